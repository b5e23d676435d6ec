"""The tool list a person gives `codegen import`, read as data: JSON first (its `\\ud83d\\ude00`
escapes make one character), else YAML; every string whole Unicode text."""

from __future__ import annotations

import json
from typing import Any

import yaml

from codegen.catalog.load import long_integer_message, longest_integer
from codegen.catalog.tool_lists import UnreadableToolList
from codegen.diagnostics import JsonPath, format_path, quoted
from codegen.unicode_text import NOT_TEXT, joined_pairs, lone_surrogate


def read_document(text: str) -> Any:
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        try:
            document = yaml.safe_load(text)  # JSON is YAML too, and what JSON refused may be YAML
        except yaml.MarkedYAMLError as exc:
            # Its problem and line, not PyYAML's own text, which quotes the line it stopped on.
            mark = exc.problem_mark or exc.context_mark
            line = f" (line {mark.line + 1})" if mark is not None else ""
            raise UnreadableToolList(
                f"neither JSON nor YAML: {exc.problem or exc.context}{line}"
            ) from None
        except yaml.YAMLError as exc:
            raise UnreadableToolList(f"neither JSON nor YAML: {exc}") from None
        except ValueError:
            raise UnreadableToolList(long_integer_message(longest_integer(text)[1])) from None
    except ValueError:  # an integer longer than Python reads from text
        raise UnreadableToolList(long_integer_message(longest_integer(text)[1])) from None
    return _whole_text(document, ())


def _whole_text(value: Any, path: JsonPath) -> Any:
    """`value` with each UTF-16 surrogate pair (YAML's `\\ud83d\\ude00` escapes give two halves)
    joined into its character; a lone surrogate is an error naming where it is."""
    if isinstance(value, str):
        return _joined(value, path)
    if isinstance(value, list):
        return [_whole_text(item, (*path, index)) for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {
            _joined(key, path) if isinstance(key, str) else key: _whole_text(item, (*path, key))
            for key, item in value.items()
        }
    return value


def _joined(text: str, path: JsonPath) -> str:
    joined = joined_pairs(text)
    lone = lone_surrogate(joined)
    if lone is not None:
        raise UnreadableToolList(f"{format_path(path)}: lone surrogate {quoted(lone)} {NOT_TEXT}")
    return joined

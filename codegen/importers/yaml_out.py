"""A catalog as YAML a person would write: keys in reading order, long text as block scalars.

The build reads YAML 1.2; PyYAML writes YAML 1.1, which quotes every string 1.1 would read as
something else (`yes`, `010`, `2024-01-01`). The writer here also quotes what YAML 1.2 reads as
something else (`1e3`, `0o17`, `.5e1`) and what other 1.1 readers take for booleans (`y`, `n`),
and escapes the line breaks that are not `\\n` (U+0085, U+2028, U+2029, `\\r`), which a plain or
block scalar would turn into a newline: what is written reads back the same with either reader
(tests/test_import_values.py, a property test over any JSON value).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from codegen.catalog.load import yaml_1_2_resolvers
from codegen.vocabulary import READING_ORDER, holds_schemas, subschemas_mapped

# A tool's keys in the order a person reads them (a schema's: `vocabulary.READING_ORDER`); others
# follow as they came.
_TOOL_ORDER = ("name", "title", "description", "annotations", "examples", "parameters", "returns")
LONG = 80  # characters: a longer text goes on lines of its own


class _Block(str):
    """Text written as a block scalar."""


class _Dumper(yaml.SafeDumper):
    pass


# A string is written plain only when no reader takes it for something else: YAML 1.1's
# resolvers (PyYAML's), YAML 1.2 core's (the build's), and 1.1's one-letter booleans.
for _first, _resolvers in yaml_1_2_resolvers().items():
    for _tag, _pattern in _resolvers:
        _Dumper.add_implicit_resolver(_tag, _pattern, [_first])
_Dumper.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))

# Line breaks that a plain, single-quoted or block scalar keeps raw and a reader turns into `\n`.
_OTHER_BREAKS = re.compile("[\r\x85\u2028\u2029]")


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    if _OTHER_BREAKS.search(text):
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"')
    return dumper.represent_str(text)


_Dumper.add_representer(str, _str)


def _block(dumper: yaml.SafeDumper, text: _Block) -> yaml.ScalarNode:
    # Literal (`|`) keeps the line breaks a description has; folded (`>`) wraps a long line.
    style = "|" if "\n" in text else ">"
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(text), style=style)


_Dumper.add_representer(_Block, _block)


class _Flow(list[object]):
    """A short list of scalars (`required`, `enum`), written on one line as people write them."""


def _flow(dumper: yaml.SafeDumper, items: _Flow) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", list(items), flow_style=True)


_Dumper.add_representer(_Flow, _flow)


def to_yaml(catalog: dict[str, Any]) -> str:
    tools = [_ordered(tool, _TOOL_ORDER, _tool_value) for tool in catalog["tools"]]
    head = {k: v for k, v in catalog.items() if k != "tools"}
    text: str = yaml.dump(
        {**head, "tools": tools},
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=False,
    )
    return text


def _ordered(value: dict[str, Any], order: tuple[str, ...], child: Any) -> dict[str, Any]:
    first = [k for k in order if k in value]
    rest = [k for k in value if k not in order]
    return {k: child(k, value[k]) for k in first + rest}


def _tool_value(key: str, value: Any) -> Any:
    if key in ("parameters", "returns"):
        return _schema(value)
    return _text(value) if key == "description" else value


def _schema(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    return _ordered(schema, READING_ORDER, _schema_value)


def _schema_value(key: str, value: Any) -> Any:
    if holds_schemas(key):
        return subschemas_mapped(key, value, lambda _, sub: _schema(sub))
    if key == "description":
        return _text(value)
    return _short_list(value)


def _short_list(value: Any) -> Any:
    scalars = (str, int, float, bool, type(None))
    if (
        isinstance(value, list)
        and all(isinstance(v, scalars) for v in value)
        and len(yaml.safe_dump(value, default_flow_style=True, width=1000)) <= LONG
    ):
        return _Flow(value)
    return value


def _text(value: Any) -> Any:
    if isinstance(value, str) and (len(value) > LONG or "\n" in value) and _blockable(value):
        return _Block(value)
    return value


def _blockable(text: str) -> bool:
    # A block scalar cannot hold trailing spaces on a line or a leading space that changes the
    # indentation; such text stays quoted.
    return (
        not any(line != line.rstrip() for line in text.split("\n"))
        and not text.startswith(" ")
        and not _OTHER_BREAKS.search(text)
    )

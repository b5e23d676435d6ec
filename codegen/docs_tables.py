"""The reference tables of docs/*.md, rendered from the code so that they cannot drift.

Each table sits in its page between two marker comments; `python -m codegen.docs_tables` renders
every table and rewrites what is between the markers (`--check`: exit 1, naming the stale tables,
and write nothing). tests/test_docs_pages.py fails when a committed page differs from this output.

The parser's codes, with their levels and meanings, are the runtime's own table
(`codegen/runtime/_codes.py`, copied into every package); the tests hold it to what the generated
packages emit.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from codegen.cli import _parser
from codegen.diagnostics import CODES
from codegen.runtime import _codes
from codegen.runtime import _runtime as rt
from codegen.vocabulary import FORMATS, KEYWORDS, formats_kept

DOCS = Path(__file__).resolve().parent.parent / "docs"
REFRESH = "python -m codegen.docs_tables"

_SECTIONS = {
    "parameter": "About one parameter (`code:path`)",
    "call": "About the whole call",
    "repair": "Text repair, run only when strict decoding fails (reported in this order)",
    "text": "Model text: the shapes `parse_reply` reads (before the parser's own codes)",
    "reply": "Adapters and prompt mode: about a provider's reply",
    "result": (
        "The executor: a handler's value that JSON cannot carry (for any tool; `:<path>` inside"
        " the result), or that does not match the tool's `returns`, is a failed call with these"
        " codes, or, for `returns`, any code above with its path inside the result"
        " (`missing_required:orders`, `string_literal_converted_to_integer:total`)"
    ),
    "stream": (
        "Stream readers (`from_*_stream`): warnings on a call, or a `StreamProblem` in the"
        " reader's `problems`; a call cut off is `truncated_arguments`"
    ),
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def parse_codes_table() -> str:
    lines: list[str] = []
    for section, title in _SECTIONS.items():
        lines += [f"**{title}**", "", "| code | level | when |", "| --- | --- | --- |"]
        lines += [
            f"| `{code}` | {entry.level} | {_cell(entry.meaning)} |"
            for code, entry in _codes.CODES.items()
            if entry.section == section
        ]
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def findings_table() -> str:
    """Every finding code of `codegen build`, `validate` and `lint`: one table for both."""
    lines = ["| code | level | name | finding |", "| --- | --- | --- | --- |"]
    lines += [
        f"| {code} | {level} | `{name}` | {_cell(words)} |"
        for code, (level, name, words) in sorted(CODES.items())
    ]
    return "\n".join(lines)


def keywords_table() -> str:
    """Every JSON Schema keyword codegen knows, from its registry row (`codegen/vocabulary.py`)."""
    lines = [
        "| keyword | constrains | the parser | OpenAI strict | Gemini legacy |",
        "| --- | --- | --- | --- | --- |",
    ]
    for word, row in KEYWORDS.items():
        if row.structure:
            parser = "reads it as the kind of value"
        elif row.annotation:
            parser = "describes the value"
        elif row.enforced:
            parser = "enforces it"
        elif word.startswith("x-") or word in ("optional", "example"):
            parser = "reads it (the catalog format's own)"
        else:
            parser = "does not enforce it: a build warning"
        kept = [
            "kept" if payload in row.payloads else "rewritten or left out, said"
            for payload in ("openai-strict", "gemini")
        ]
        lines.append(
            f"| `{word}` | {row.applies_to or 'any value'} | {parser} | {' | '.join(kept)} |"
        )
    return "\n".join(lines)


def formats_table() -> str:
    """Every string format codegen knows: the parser checks the runtime's (`_runtime.FORMATS`),
    and each strict mode keeps those its registry row names (`codegen/vocabulary.FORMATS`)."""
    lines = [
        "| format | the parser | OpenAI strict | Anthropic strict |",
        "| --- | --- | --- | --- |",
    ]
    for name in sorted({*FORMATS, *rt.FORMATS}):
        parser = (
            f"checks it (`{rt.FORMATS[name].__name__}`)"
            if name in rt.FORMATS
            else "keeps the text: a build warning"
        )
        kept = [
            "kept" if name in formats_kept(mode) else "left out (into the description), said"
            for mode in ("openai-strict", "anthropic-strict")
        ]
        lines.append(f"| `{name}` | {parser} | {' | '.join(kept)} |")
    return "\n".join(lines)


def cli_table() -> str:
    parser = _parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help or "" for choice in commands._choices_actions}
    every = [own for own in map(_own, parser._actions) if own is not None]
    lines = ["Every command takes `-h`/`--help`; " + "; ".join(every) + ".", ""]
    # An argument some command leaves undescribed means what the same argument means elsewhere.
    said = {
        (a.dest, a.metavar): a.help
        for command in commands.choices.values()
        for a in reversed(command._actions)
        if a.help
    }
    for name, command in commands.choices.items():
        actions = [a for a in command._actions if not isinstance(a, argparse._HelpAction)]
        synopsis = " ".join(["codegen", name, *(_synopsis(a) for a in actions)])
        lines += [
            f"### `codegen {name}`",
            "",
            _cell(helps[name]) + ".",
            "",
            "```",
            synopsis,
            "```",
            "",
        ]
        lines += ["| argument | what it is |", "| --- | --- |"]
        for action in actions:
            described = _described(
                action, action.help or said.get((action.dest, action.metavar), "")
            )
            lines.append(f"| `{_spelling(action)}` | {_cell(described)} |")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def _own(action: argparse.Action) -> str | None:
    """The top-level options besides help and the commands, such as `--version`."""
    if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
        return None
    return f"`codegen {_spelling(action)}` " + (action.help or "").rstrip(".")


def _metavar(action: argparse.Action) -> str:
    if action.choices is not None and action.metavar is None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return str(action.metavar or action.dest.upper())


def _spelling(action: argparse.Action) -> str:
    if not action.option_strings:
        return _metavar(action)
    flags = ", ".join(action.option_strings)
    return flags if action.nargs == 0 else f"{flags} {_metavar(action)}"


def _synopsis(action: argparse.Action) -> str:
    if not action.option_strings:
        word = _metavar(action)
        return {"*": f"[{word} ...]", "?": f"[{word}]", "+": f"{word} [{word} ...]"}.get(
            str(action.nargs), word
        )
    first = action.option_strings[-1]
    return f"[{first}]" if action.nargs == 0 else f"[{first} {_metavar(action)}]"


def _described(action: argparse.Action, text: str) -> str:
    if (
        action.option_strings
        and action.nargs != 0
        and action.default not in (None, argparse.SUPPRESS)
    ):
        text = f"{text} (default: `{action.default}`)".strip()
    return text


TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "parse-codes": ("parsing.md", parse_codes_table),
    "findings": ("catalog.md", findings_table),
    "keywords": ("catalog.md", keywords_table),
    "formats": ("catalog.md", formats_table),
    "cli": ("cli.md", cli_table),
}


# Where a table's rows are edited, when not here: the parser's codes are the runtime's own table.
_SOURCES = {"parse-codes": "codegen/runtime/_codes.py"}


def _markers(name: str) -> tuple[str, str]:
    source = _SOURCES.get(name, "codegen/docs_tables.py")
    return (
        f"<!-- BEGIN GENERATED {name}: edit {source}, then run `{REFRESH}` -->",
        f"<!-- END GENERATED {name} -->",
    )


def render(docs: Path = DOCS) -> dict[Path, str]:
    """Each page that holds a table, with every table rendered afresh between its markers."""
    pages: dict[Path, str] = {}
    for name, (page, table) in TABLES.items():
        path = docs / page
        text = pages.get(path) or path.read_text(encoding="utf-8")
        begin, end = _markers(name)
        block = re.compile(re.escape(begin) + r"\n(?:.*?\n)?" + re.escape(end), re.DOTALL)
        found = list(block.finditer(text))
        if len(found) != 1:
            raise ValueError(f"{path}: needs exactly one {begin!r} … {end!r} block")
        start, stop = found[0].span()
        pages[path] = f"{text[:start]}{begin}\n{table()}\n{end}{text[stop:]}"
    return pages


def stale(docs: Path = DOCS) -> list[Path]:
    """The pages whose committed text differs from what render() gives."""
    return [path for path, text in render(docs).items() if path.read_text(encoding="utf-8") != text]


def main(argv: Sequence[str] | None = None) -> int:
    if "--check" in (sys.argv[1:] if argv is None else argv):
        outdated = stale()
        for path in outdated:
            print(f"{path}: stale; run `{REFRESH}`", file=sys.stderr)
        return 1 if outdated else 0
    for path, text in render().items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

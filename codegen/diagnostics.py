"""Problems found in a catalog, collected as values so one run reports all of them.

Every finding has a level and a stable code (`CODES`, shared with `codegen lint`):
- `error`: the build cannot generate this (nothing is written);
- `warning`: the catalog was changed to build, or a keyword is not enforced;
- `note`: a provider's format cannot say a keyword that the generated parser enforces anyway.
`--strict` refuses errors and warnings; `[tool.codegen] ignore` silences codes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Literal

JsonPath = tuple[str | int, ...]
Level = Literal["error", "warning", "note"]

# code → (level, short name, what it means). The codes are public: never reuse one for another
# meaning. CG001-CG008 are `codegen lint`'s own rules; the others are the build's findings
# (CG100, which every build warning had before they had codes of their own, is not used again).
CODES: dict[str, tuple[str, str, str]] = {
    "CG000": (
        "error",
        "catalog-error",
        (
            "the build cannot generate this: a tool with no usable schema, one wire name twice, a "
            "`$ref` that does not resolve, a file that is not JSON or YAML, ..."
        ),
    ),
    "CG001": (
        "warning",
        "tool-description-short",
        (
            "a tool described in fewer than 20 characters: the model chooses tools by their "
            "descriptions (lint)"
        ),
    ),
    "CG002": (
        "warning",
        "parameter-description-missing",
        (
            "a parameter with neither a description nor a title (a `$ref` is described where it is "
            "defined) (lint)"
        ),
    ),
    "CG003": (
        "info",
        "parameter-description-short",
        "a parameter described in fewer than 10 characters (lint)",
    ),
    "CG004": (
        "info",
        "enum-values-unexplained",
        "an enum whose description mentions none of its values (lint)",
    ),
    "CG005": (
        "error",
        "default-contradicts-description",
        (
            'a description that states a default ("defaults to X", "default: X", "default is X", '
            '"(default X)") other than the schema\'s `default`; the finding quotes the words it read '
            "(lint)"
        ),
    ),
    "CG006": (
        "warning",
        "required-with-default",
        "a required parameter with a default, which never applies (lint)",
    ),
    "CG007": (
        "info",
        "provider-alias",
        (
            "a tool name some provider forbids, so that provider is sent an alias (`PROVIDER_NAMES`) "
            "(lint)"
        ),
    ),
    "CG008": (
        "warning",
        "strict-mode-limit",
        "a tool whose strict form goes over OpenAI's limits (properties, nesting, enum values, text)",
    ),
    "CG101": (
        "warning",
        "keyword-not-enforced",
        (
            "a keyword the generated parser does not enforce (`uniqueItems`, `format: email`, an "
            "unknown key in a schema, a bound of another type, a `required` name not in `properties`)"
        ),
    ),
    "CG102": (
        "warning",
        "wild-keyword-read",
        (
            "a non-standard keyword or a value in the wrong form, read by its plain meaning "
            '(`optional: "True"`, `optional: [rating]` beside `properties`, `minimum: "1"`)'
        ),
    ),
    "CG103": (
        "warning",
        "keyword-ignored",
        (
            "a key or value nothing can read, left out (an unknown key in a catalog or a tool, a "
            "`description` that is a list, an invalid `pattern`, an enum value of another type)"
        ),
    ),
    "CG104": (
        "warning",
        "keyword-misspelt",
        'a key one or two letters from a keyword (`requried`): "did you mean `required`?"',
    ),
    "CG105": (
        "warning",
        "default-corrected",
        "a `default` that breaks its schema, corrected or left out",
    ),
    "CG106": (
        "warning",
        "python-name-chosen",
        (
            "a name that cannot be used in Python as it is, given another: two that collide "
            "(`todo.add` and `todo_add`), one the package itself binds (a tool `reply`: "
            "`parse_reply`), a Python keyword or a name the generated class uses (`class`, "
            "`date`), or a pinned name that cannot be used"
        ),
    ),
    "CG107": (
        "warning",
        "type-inferred",
        "a schema without `type`, read as the kind its keywords name",
    ),
    "CG108": (
        "warning",
        "combination-read",
        "`oneOf`, `allOf` or a `$ref`'s siblings read in a weaker or merged form",
    ),
    "CG109": (
        "warning",
        "provider-alias-collision",
        "a provider alias that another tool's name has, suffixed",
    ),
    "CG110": (
        "warning",
        "pattern-backtracking",
        (
            "a `pattern` with a repeat that can divide a value in more than one way (`(a+)+`, "
            "`(a|aa)*`, `(.*a){20}`, `(a?){25}a{25}`), which Python's `re` can take exponential "
            "time on"
        ),
    ),
    "CG111": (
        "warning",
        "result-not-typed",
        (
            "an MCP `outputSchema` the build cannot type (not an object, a `$ref` that does not "
            "resolve, ...): the tool's results are sent unchecked, the outputSchema given back as is"
        ),
    ),
    "CG112": (
        "warning",
        "comma-ends-value",
        (
            "a comma in a one-line `{...}` that ends a plain value (`{description: The city, e.g. "
            "Paris}` is a description and a key `e.g. Paris`): quote the value to keep its comma"
        ),
    ),
    "CG113": (
        "warning",
        "description-missing",
        (
            "a tool without a description (or a blank one): the model chooses tools by their "
            "descriptions"
        ),
    ),
    "CG114": (
        "warning",
        "parameters-missing",
        "a tool without `parameters`, read as a tool that takes none",
    ),
    "CG201": (
        "note",
        "provider-cannot-say",
        (
            "a provider format cannot say a keyword; the generated parser enforces it anyway (a "
            "`default` in OpenAI strict mode, a `minLength` in Gemini's legacy form)"
        ),
    ),
    "CG202": (
        "warning",
        "provider-loses",
        (
            "a provider format loses what the parser cannot make up for (an open object's other keys "
            "in OpenAI strict mode)"
        ),
    ),
    "CG203": (
        "note",
        "provider-name-undocumented",
        "a property name Gemini's legacy `parameters` does not document",
    ),
}


# How much of a catalog value a message may show. A catalog may be a link to any file (a key, a
# token), and findings go to CI logs: a value longer than QUOTE_LIMIT characters is shown by its
# first EXCERPT characters and its length, never whole. Every message that quotes catalog text,
# a value or a key, asks `quoted` (or `excerpt`, for text shown bare; a path's keys, `format_path`).
QUOTE_LIMIT = 40
EXCERPT = 16


def quoted(value: object) -> str:
    """A catalog value as a message shows it: its `repr`, or its start and its length."""
    if isinstance(value, str):
        if len(value) <= QUOTE_LIMIT:
            return repr(value)
        return f"{value[:EXCERPT]!r}… ({len(value):,} characters)"
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            shown = repr(value)
        except ValueError:  # Python writes no integer of over 4,300 digits
            return "an integer too long to write"
        if len(shown) <= QUOTE_LIMIT:
            return shown
        return f"{shown[:EXCERPT]}… ({len(shown.lstrip('-')):,} digits)"
    if isinstance(value, (list, dict)):
        # Each item shortened first: the whole `repr` of a large value is not made to be cut.
        shown = _shortened(value, QUOTE_LIMIT)
        return shown if len(shown) <= QUOTE_LIMIT else f"{shown[:EXCERPT]}… ({_size(value)})"
    shown = repr(value)
    return shown if len(shown) <= QUOTE_LIMIT else f"{shown[:EXCERPT]}…"


def excerpt(text: str) -> str:
    """Catalog text shown bare (a name in a list, a key in a path): its start when it is long."""
    return text if len(text) <= QUOTE_LIMIT else f"{text[:EXCERPT]}…"


def listed(texts: list[str], most: int = 5) -> str:
    """Catalog texts shown bare, joined by commas: at most `most` of them, and how many in all."""
    shown = ", ".join(excerpt(text) for text in texts[:most])
    return shown if len(texts) <= most else f"{shown}, … ({len(texts):,} in all)"


def worded(message: str, *values: object) -> str:
    """A message another library wrote about catalog values (jsonschema writes each whole, as its
    `repr`), with each value as `quoted` shows it."""
    for value in values:
        whole = repr(value)
        shown = quoted(value)
        if shown != whole:
            message = message.replace(whole, shown)
    return message


def _shortened(value: object, budget: int) -> str:
    """`repr(value)`, stopped once it is over `budget` characters, with each string in it cut."""
    if isinstance(value, list):
        parts: list[str] = []
        for item in value:
            parts.append(_shortened(item, budget))
            if sum(map(len, parts)) > budget:
                break
        return "[" + ", ".join(parts) + "]"
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            parts.append(f"{_shortened(key, budget)}: {_shortened(item, budget)}")
            if sum(map(len, parts)) > budget:
                break
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, str) and len(value) > QUOTE_LIMIT:
        return repr(value[:EXCERPT]) + "…"
    return quoted(value)


def _size(value: list[object] | dict[object, object]) -> str:
    return f"{len(value):,} {'items' if isinstance(value, list) else 'keys'}"


def format_path(path: JsonPath) -> str:
    """Render a JSON path the way people write it: `tools[0].parameters.properties.limit`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            # Keys are catalog text: a newline in one must not split the message, and a long one
            # is shown by its start (`quoted`).
            part = excerpt(part)
            text = (
                part
                if part.isprintable()
                else "".join(
                    ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                    for ch in part
                )
            )
            out += f".{text}" if out else text
    return out or "(root)"


@dataclass(frozen=True, order=True)
class Diagnostic:
    file: str
    line: int
    path: str
    message: str
    level: Level = "error"
    code: str = "CG000"

    def __str__(self) -> str:
        generic = self.level == "error" and self.code == "CG000"
        prefix = "" if generic else f"{self.level} {self.code}: "
        return f"{self.file}:{self.line}: {prefix}{self.path}: {self.message}"


def in_order(found: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Findings in `Diagnostic`'s own order (by file, line, path, ...), each key made once: the
    comparisons `order=True` writes make two tuples each, a third of sorting a package's findings."""
    return sorted(found, key=_ORDER)


_ORDER = attrgetter(*(field.name for field in fields(Diagnostic)))


def warning(file: str, line: int, path: str, message: str, code: str) -> Diagnostic:
    """A finding at the level its code has."""
    return Diagnostic(file, line, path, message, CODES[code][0], code)  # type: ignore[arg-type]


class CatalogError(Exception):
    """Raised with every error of a run; nothing has been written when it is."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = in_order(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))

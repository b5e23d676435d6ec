"""The loose type names of tool lists in the wild, read by their plain meaning: the one reader
that `codegen build` (`catalog/wild.py`) and `codegen import` (`importers/dialect.py`) share, so
that a tool list builds exactly as it imports, with the same findings (code, path, text).

Function-calling benchmarks and other languages' tool lists write `dict`, `float`, `tuple`, `any`,
`int`, `String` or `HashMap` for a type, `number[]` or `Array<number>` for an array and a Python
annotation (`List[int]`, `Dict[str, float]`, `Optional[str]`, `str | None`, `Literal["a", "b"]`)
for a container, a union or a choice; each is read as the JSON
Schema it plainly means (CG102). A name that means nothing is left out, so the value may be any
value, with "did you mean" when it is one or two letters from a name that means something (CG104),
else as ignored (CG103); so is a `required` name one or two letters from a property's. A
property's cardinality written beside it (`required: true`, `optional: "True"`, xLAM's
`"type": "int, optional"`) goes into its object's `required` list, and parameters written as a map
of properties alone become an object of them (CG102).

This module is below both readers: it imports nothing of the catalog's or the importers'.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from codegen.diagnostics import JsonPath, quoted
from codegen.runtime._runtime import choice_key
from codegen.unicode_text import joined_pairs, lone_surrogate

JSON_TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")

# Type names found in the wild (compared in lower case) → the JSON Schema type; None: any value.
# From Python (`str`, `dict`, `tuple`), Java (`long`, `HashMap`, `ArrayList`, `char`), JavaScript
# and TypeScript (`Bigint`, `Record`, `any`), as BFCL's Python, Java and JavaScript sets write them.
TYPE_NAMES: dict[str, str | None] = {
    "string": "string", "str": "string", "text": "string", "char": "string",
    "integer": "integer", "int": "integer", "long": "integer", "int32": "integer",
    "int64": "integer", "short": "integer", "byte": "integer", "bigint": "integer",
    "number": "number", "float": "number", "double": "number", "decimal": "number",
    "boolean": "boolean", "bool": "boolean",
    "object": "object", "dict": "object", "map": "object", "hashmap": "object",
    "hashtable": "object", "record": "object", "struct": "object",
    "array": "array", "list": "array", "tuple": "array", "arraylist": "array", "set": "array",
    "queue": "array", "stack": "array",
    "null": "null", "none": "null",
    "any": None,
}  # fmt: skip

READ = "CG102"  # wild-keyword-read: the finding of a loose name read by its plain meaning
IGNORED = "CG103"  # keyword-ignored: a type name that means nothing
MISSPELT = "CG104"  # keyword-misspelt: ... one or two letters from one that means something


@dataclass(frozen=True)
class Finding:
    """What the reader did at `path` (a path in the document read), with its build code."""

    path: JsonPath
    message: str
    code: str


def read_type(schema: dict[str, Any], path: JsonPath) -> tuple[dict[str, Any], list[Finding]]:
    """`schema` with its `type` read by its plain meaning (a copy when anything changed), and a
    finding for each name read; a `type` that is no name or list of names is left to the checks
    that follow."""
    written = schema.get("type")
    listed: list[Any] = written if isinstance(written, list) else [written]
    names = [name for name in listed if isinstance(name, str)]
    if not names or len(names) < len(listed):
        return schema, []
    at = (*path, "type")
    if isinstance(written, str):
        items = _array_of(written)
        if items is not None:  # TypeScript's `number[]`
            item_schema, found = read_type({"type": items}, (*path, "items"))
            read = {k: v for k, v in schema.items() if k != "type"}
            read = {"type": "array", **read, "items": item_schema}
            said = f"type {quoted(written)} read as an array of {quoted(items)}"
            return read, [Finding(at, said, READ), *found]
        # A bracket, a bar or a quote marks an annotation; a lone number is no type.
        marked = any(mark in written for mark in "[|'\"")
        annotated = annotation_schema(written) if marked else None
        if annotated is not None:  # Python's `List[int]`, `str | None`, TypeScript's `"a" | "b"`
            shown = json.dumps(annotated) if annotated else "no type (any value)"
            said = f"type {quoted(written)} read as {shown}"
            return {**_untyped(schema), **annotated}, [Finding(at, said, READ)]
    types: list[str] = []
    findings: list[Finding] = []
    for name in names:
        meant = TYPE_NAMES.get(name.strip().lower(), "") if name not in JSON_TYPES else name
        if meant == "":
            return _untyped(schema), [_unknown(name, at)]
        if meant is None:
            said = f"type {quoted(name)} means any value: read with no type"
            return _untyped(schema), [*findings, Finding(at, said, READ)]
        if meant != name:
            findings.append(Finding(at, f"type {quoted(name)} read as {quoted(meant)}", READ))
        if meant not in types:
            types.append(meant)
    if not findings and len(types) == len(names):  # each a JSON type, none twice
        return schema, []
    kept = types if isinstance(written, list) and len(types) > 1 else types[0]
    return {**schema, "type": kept}, findings


def _array_of(name: str, depth: int = 0) -> str | None:
    """The item type of TypeScript's `T[]`, when T is one name, or of `Array<T>`, when T is one
    name or an array of its own (`Array<Array<string>>`, `Array<string[]>`)."""
    stripped = name.strip()
    if stripped.endswith("[]") and stripped[:-2].strip().isidentifier():
        return stripped[:-2].strip()
    generic = _TS_ARRAY.fullmatch(stripped)
    if generic is None or depth >= _MAX_DEPTH:
        return None
    item = generic.group(1).strip()
    return item if item.isidentifier() or _array_of(item, depth + 1) is not None else None


_TS_ARRAY = re.compile(r"Array\s*<(.*)>", re.DOTALL)


# The generics of a Python annotation written as text, by what they hold.
_SEQUENCES = frozenset({"list", "sequence", "iterable", "set", "frozenset", "tuple"})
_MAPPINGS = frozenset({"dict", "mapping"})
_GENERIC = re.compile(r"\s*(\w+)\s*\[(.*)\]\s*", re.DOTALL)
_NULL: dict[str, Any] = {"type": "null"}
# Deeper than this is no annotation a tool list means (and the reader stays off the stack's end).
_MAX_DEPTH = 32


def annotation_schema(text: str) -> dict[str, Any] | None:
    """The JSON Schema of a Python annotation written as text, as datasets write types
    (`List[int]`, `Dict[str, float]`, `Optional[str]`, nested), read as Python's `typing` reads
    it (`importers/python.py` writes a real annotation so, which
    `tests/test_dialect.py` compares); None when the text is not one. The text is read, never
    evaluated."""
    members = _members(text, 0, literal_types=True)
    return None if members is None else _union(members)


def _members(text: str, depth: int, literal_types: bool) -> list[dict[str, Any]] | None:
    """The schemas of the members of the union `text` spells (one, for no union), flattened as
    `typing.Union` flattens them; None when it is no annotation. TypeScript's literal types are
    read where TypeScript writes them (`literal_types`): the whole text and its union's members,
    not a generic's arguments, where quoted text is Python's forward reference to a type."""
    if depth > _MAX_DEPTH:
        return None
    union = _split(text, "|")
    if len(union) > 1:  # `str | None` (PEP 604), TypeScript's `string | null`, `"a" | "b"`
        members: list[dict[str, Any]] = []
        literals: list[Any] = []
        for part in union:
            literal = _literal_type(part) if literal_types else None
            if literal is not None:
                if not literals:  # one enum of them all, where the first of them is written
                    members.append({})
                    enum_at = len(members) - 1
                literals.append(literal)
                continue
            member = _members(part, depth + 1, literal_types)
            if member is None:
                return None
            members += member
        if literals and all(_names_a_type(value) for value in literals):
            return None  # `'string' | 'null'`: type names quoted once too often, said as such
        if literals:
            members[enum_at] = enum_schema(_each_once(literals))
        return members
    generic = _GENERIC.fullmatch(text)
    if generic is None:
        name = text.strip().lower()
        if name in TYPE_NAMES:
            meant = TYPE_NAMES[name]
            return [{} if meant is None else {"type": meant}]
        literal = _literal_type(text) if literal_types else None
        if literal is None or _names_a_type(literal):
            return None
        return [enum_schema([literal])]
    outer = generic.group(1).lower()
    if outer == "literal":
        values = _literal_values(generic.group(2))
        return None if values is None else [enum_schema(values)]
    arguments = _split(generic.group(2), ",")
    if outer in _SEQUENCES:
        items = [_members(a, depth + 1, False) for a in arguments if a.strip() != "..."]
        if any(item is None for item in items):
            return None
        schemas = [_union(item) for item in items if item is not None]
        array: dict[str, Any] = {"type": "array"}
        if len({json.dumps(item, sort_keys=True) for item in schemas}) == 1:
            array["items"] = schemas[0]
        elif schemas:
            array["items"] = {"anyOf": schemas}
        return [array]
    parts = [_members(a, depth + 1, False) for a in arguments]
    if any(part is None for part in parts):
        return None
    read = [part for part in parts if part is not None]
    if outer in _MAPPINGS:
        mapping: dict[str, Any] = {"type": "object"}
        if len(read) == 2 and _union(read[1]) != {}:
            mapping["additionalProperties"] = _union(read[1])
        return [mapping]
    if outer == "optional" and len(read) == 1:
        return [*read[0], _NULL]
    if outer == "union" and read:
        return [member for part in read for member in part]
    return None


def _union(members: list[dict[str, Any]]) -> dict[str, Any]:
    """The schema of a union of `members`, each once, null last as `Optional` puts it."""
    unique = list({json.dumps(m, sort_keys=True): m for m in members}.values())
    others = [m for m in unique if m != _NULL]
    if not others:
        return dict(_NULL)
    nullable = len(others) < len(unique)
    if len(others) == 1:
        (one,) = others
        if not nullable:
            return one
        if isinstance(one.get("type"), str):
            return {**one, "type": [one["type"], "null"]}
        return {"anyOf": [one, _NULL]}
    return {"anyOf": [*others, _NULL] if nullable else others}


def _split(text: str, separator: str) -> list[str]:
    """`text` cut at each `separator` outside brackets and quoted text: a generic's arguments
    (`,`, with a `Literal["a, b"]` among them kept whole), a union's members (`|`)."""
    parts, depth, start, quote, escaped = [], 0, 0, "", False
    for at, char in enumerate(text):
        if quote:  # inside a quoted text: only its closing quote (not one escaped) ends it
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "'\"":
            quote = char
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == separator and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return parts


# TypeScript's literal types as one token each: a quoted text with JSON's escapes (and `\'`), or a
# number as JSON writes it. Anything else (Python's `u''`, `'a' 'b'`, `0x1F`) is no literal type.
_QUOTED = re.compile(r"""\s*(?:"((?:[^"\\\n]|\\.)*+)"|'((?:[^'\\\n]|\\.)*+)')\s*""")
_NUMBER = re.compile(r"\s*(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*")
_JSON_QUOTING = re.compile(r'\\.|"')


def _literal_type(text: str) -> Any:
    """The value of the TypeScript literal type `text` (`"read"`, `'read'`, `3`, `-1.5`), or None
    when it is none (its text must be Unicode text: `codegen.unicode_text`)."""
    number = _NUMBER.fullmatch(text)
    if number is not None:
        value = json.loads(number.group(1))
        return value if math.isfinite(value) else None
    quoted_text = _QUOTED.fullmatch(text)
    if quoted_text is None:
        return None
    inside = quoted_text.group(1) if quoted_text.group(1) is not None else quoted_text.group(2)
    as_json = _JSON_QUOTING.sub(lambda m: {"\\'": "'", '"': '\\"'}.get(m[0], m[0]), inside)
    try:
        value = joined_pairs(json.loads(f'"{as_json}"', strict=False))
    except ValueError:  # an escape JSON has not: `\x41`, `\u{1F600}`, `\q`
        return None
    return None if lone_surrogate(value) is not None else value


def _names_a_type(value: Any) -> bool:
    """Whether a literal type's value is a type name: `"integer"` alone, or `'string' | 'null'`,
    is text quoted once too often (the type names' reader says which it means, CG104), where
    `'auto' | 'none'` is two values."""
    return isinstance(value, str) and value.strip().lower() in TYPE_NAMES


def _each_once(values: list[Any]) -> list[Any]:
    """`values` in their order, each once, as the parser tells an enum's choices apart
    (`runtime._runtime.choice_key`: 1, 1.0 and True are three), which is also how
    `typing.Literal` keeps them."""
    return list({choice_key(value): value for value in values}.values())


def _literal_values(text: str) -> list[Any] | None:
    """The values of `Literal[...]`'s arguments written as `text`, each once, as `typing` keeps
    them; None unless each is a string, a number JSON can carry, `True`, `False` or `None`. The
    text is parsed, never evaluated."""
    try:
        with warnings.catch_warnings():
            # An escape Python does not know (`"\\q"`) warns, and on the user's terminal: no value.
            warnings.simplefilter("error")
            tree = ast.parse(f"({text},)", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError, Warning):
        return None
    if not isinstance(tree, ast.Tuple):
        return None
    values: list[Any] = []
    for node in tree.elts:
        negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
        constant = node.operand if isinstance(node, ast.UnaryOp) and negative else node
        if not isinstance(constant, ast.Constant):
            return None
        value: Any = constant.value
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if negative and number:
            value = -value
        elif negative or not (number or isinstance(value, (str, bool)) or value is None):
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, str) and lone_surrogate(value) is not None:  # no file could hold it
            return None
        values.append(value)
    return _each_once(values) or None


# The JSON Schema of each Python scalar type: of a parameter annotated with it
# (`importers/python.py`), and, by its `type`, of an enum's value of it (a date is a string).
PYTHON_SCALARS: dict[type, dict[str, str]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    datetime: {"type": "string", "format": "date-time"},
    date: {"type": "string", "format": "date"},
}


def enum_schema(values: list[Any]) -> dict[str, Any]:
    """An enum of `values`, with its type when every value has the same one (as a person writes
    it): a `Literal[...]` written as text here, and a real `Literal` or `Enum` in
    `importers/python.py`."""
    kinds = {PYTHON_SCALARS.get(type(value), {}).get("type") for value in values}
    if len(kinds) == 1 and None not in kinds:
        return {"type": kinds.pop(), "enum": values}
    return {"enum": values}


def _untyped(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "type"}


def _unknown(name: str, at: JsonPath) -> Finding:
    meant = misspelt(name.strip().lower(), frozenset(TYPE_NAMES))
    if meant is not None:
        plain = TYPE_NAMES[meant]
        shown = f"`{meant}`" + (f" ({plain})" if plain not in (meant, None) else "")
        said = f"type {quoted(name)} is no type name: did you mean {shown}? (left out: any value)"
        return Finding(at, said, MISSPELT)
    said = f"type {quoted(name)} is no type name (one of {', '.join(JSON_TYPES)})"
    return Finding(at, f"{said}: left out, any value", IGNORED)


def required_slips(schema: dict[str, Any], path: JsonPath) -> list[Finding]:
    """A name in `required` that is no property but one or two letters from one (`idd` beside
    `id`): said with "did you mean" (the normalizer says it is not enforced, CG101)."""
    properties, listed = schema.get("properties"), schema.get("required")
    if not isinstance(properties, dict) or not isinstance(listed, list):
        return []
    names = frozenset(str(name) for name in properties)
    findings = []
    for index, name in enumerate(listed):
        if not isinstance(name, str) or name in names:
            continue
        meant = misspelt(name, names, shortest=2)
        if meant is not None:
            said = f"{quoted(name)} in `required` is no property: did you mean `{meant}`?"
            findings.append(Finding((*path, "required", index), said, MISSPELT))
    return findings


_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


def read_flag(value: Any) -> bool | None:
    """A boolean written as one, or as the text of one ("True", "no"); None for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    return None


# `"type": "int, optional"`, as xLAM's datasets write an optional property's type.
_OPTIONAL_TYPE = re.compile(r"\s*(.*?)\s*,\s*optional\s*", re.IGNORECASE)


def lift_cardinality(
    schema: dict[str, Any], path: JsonPath
) -> tuple[dict[str, Any], list[Finding]]:
    """`schema` with its properties' cardinality written beside them (a flag `required` or
    `optional`, also as text, and a type `"T, optional"`) lifted into its `required` list (a copy
    when anything changed), and a finding for each. Read at the object before its properties are,
    so that a property with properties of its own keeps its `required` list for them."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema, []
    listed = schema.get("required")
    required = list(listed) if isinstance(listed, list) else []
    findings: list[Finding] = []
    lifted: dict[str, Any] = {}
    for name, prop in properties.items():
        lifted[name] = prop
        if not isinstance(prop, dict):
            continue
        where = (*path, "properties", name)
        written = prop.get("type")
        marked = _OPTIONAL_TYPE.fullmatch(written) if isinstance(written, str) else None
        if marked is not None:
            prop = {**prop, "type": marked.group(1)}
            if name in required:
                required.remove(name)
            said = (
                f"type {quoted(written)} read as {quoted(marked.group(1))}, the property optional"
            )
            findings.append(Finding((*where, "type"), said, READ))
        for word in ("required", "optional"):
            value = read_flag(prop.get(word))
            if value is None:
                continue  # no flag: the wild reader says what it is
            wanted = value if word == "required" else not value
            if wanted and name not in required:
                required.append(name)
            elif not wanted and name in required:
                required.remove(name)
            shown = _flag_shown(prop[word])
            state = "required" if wanted else "optional"
            said = (
                f"`{word}: {shown}` beside a property is not JSON Schema: read as {state} "
                "(list the name in the object's `required` to say so)"
            )
            findings.append(Finding((*where, word), said, READ))
            prop = {k: v for k, v in prop.items() if k != word}
        lifted[name] = prop
    if not findings:
        return schema, []
    read = {**schema, "properties": lifted}
    if required or isinstance(listed, list):
        if listed is not None and not isinstance(listed, list):
            # A flag for its own parent (read by now: the parent lifts before its properties
            # are read) and a list for its properties: the list takes the key.
            said = f"`required: {quoted(listed)}` beside properties read as the list of their names"
            findings.append(Finding((*path, "required"), said, READ))
        read["required"] = required
    return read, findings


def stray_cardinality(
    schema: dict[str, Any], path: JsonPath
) -> tuple[dict[str, Any], list[Finding]]:
    """`schema` without a `required` or `optional` flag (also as text) of its own, and a finding
    for each: beside a property its object has lifted it by now (`lift_cardinality`, read at the
    object first); anywhere else (the parameters themselves, an array's `items`) nothing can
    honour it."""
    stray = [word for word in ("required", "optional") if read_flag(schema.get(word)) is not None]
    findings = [
        Finding((*path, word), f"`{word}: {_flag_shown(schema[word])}` is not beside a property "
                "here: ignored", IGNORED)
        for word in stray
    ]  # fmt: skip
    return ({k: v for k, v in schema.items() if k not in stray} if stray else schema), findings


def _flag_shown(value: Any) -> str:
    """A flag as the catalog wrote it: `true` in JSON's words, text quoted."""
    return str(value).lower() if isinstance(value, bool) else quoted(value)


NO_TYPE = "CG107"  # type-inferred


def object_typed(schema: dict[str, Any], path: JsonPath) -> tuple[dict[str, Any], list[Finding]]:
    """A tool's parameters or `returns` schema with no `type` read as `type: object` (what a
    tool's schema is), with a finding."""
    if "type" in schema:
        return schema, []
    what = "the parameters have" if path[-1:] == ("parameters",) else "the `returns` schema has"
    said = f"{what} no `type`: read as `type: object` (write it to say so)"
    return {"type": "object", **schema}, [Finding(path, said, NO_TYPE)]


def properties_alone(parameters: Any, path: JsonPath) -> tuple[Any, list[Finding]]:
    """A tool's parameters written as a map of property names to schemas with no object around
    it (`{"query": {"type": "str", ...}}`, even `{"type": {"type": "str"}}` for a parameter named
    `type`), as xLAM's datasets write them, read as an object of those properties, each required
    (unless its type says `optional`, `lift_cardinality`); anything else as it is."""
    if not _property_map(parameters):
        return parameters, []
    said = (
        "a map of properties alone, as xLAM's datasets write it: read as the properties of an "
        "object, each required unless its type says `optional`"
    )
    read = {"type": "object", "properties": parameters, "required": list(parameters)}
    return read, [Finding(path, said, READ)]


def _property_map(parameters: Any) -> bool:
    if not isinstance(parameters, dict) or not parameters or "properties" in parameters:
        return False
    if any(
        key in _SCHEMA_WORDS and not (key == "type" and isinstance(value, dict))
        for key, value in parameters.items()
    ):
        return False
    return all(
        isinstance(value, dict) and ("type" in value or "description" in value)
        for value in parameters.values()
    )


# The keywords of a schema, by which a schema is told from a map of properties.
_SCHEMA_WORDS = frozenset(
    {
        "type", "properties", "required", "items", "additionalProperties", "enum", "const",
        "anyOf", "oneOf", "allOf", "not", "$ref", "$defs", "definitions", "description",
        "title", "default", "examples", "format", "nullable", "patternProperties",
        "minProperties", "maxProperties", "if", "then", "else", "$schema", "optional",
    }
)  # fmt: skip


def misspelt(word: str, known: frozenset[str], shortest: int = 3) -> str | None:
    """The known word `word` is one or two edits from (a case slip counts as one), if any: one
    edit for words under six letters, two from six on; words under `shortest` letters are never
    slips."""
    if word in known or len(word) < shortest:
        return None
    limit = 1 if len(word) < 6 else 2
    best: tuple[int, str] | None = None
    for candidate in sorted(known):
        if abs(len(candidate) - len(word)) > limit:
            continue
        distance = _distance(word, candidate, limit)
        if distance <= limit and (best is None or distance < best[0]):
            best = (distance, candidate)
    return best[1] if best is not None else None


def _distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (a swap of two letters is one edit), capped at limit+1."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


NO_DESCRIPTION = "CG113"  # description-missing
NO_PARAMETERS = "CG114"  # parameters-missing
NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def tool_gaps(tool: dict[str, Any], path: JsonPath) -> tuple[dict[str, Any], list[Finding]]:
    """A tool entry with what it left out filled in by its plain meaning: no `parameters` is a
    tool that takes none, no description (or a blank one) is an empty one; and the Berkeley
    leaderboard's `response` (the schema of what the function returns) is its `returns`; each
    with a finding."""
    findings = []
    filled = dict(tool)
    if "response" in filled:
        response = filled.pop("response")
        at = (*path, "response")
        if isinstance(response, dict) and "returns" not in filled:
            filled["returns"] = response
            findings.append(Finding(at, "`response` read as `returns`: the result's schema", READ))
        else:
            why = "beside `returns`" if "returns" in filled else "not a schema"
            findings.append(Finding(at, f"`response` {why}: ignored", IGNORED))
    if "parameters" not in tool:
        filled["parameters"] = dict(NO_ARGUMENTS)
        said = (
            "no `parameters`: read as a tool that takes none (write `parameters: {type: object}`)"
        )
        findings.append(Finding((*path, "parameters"), said, NO_PARAMETERS))
    description = tool.get("description")
    if description is None or (isinstance(description, str) and not description.strip()):
        filled["description"] = ""
        said = "no description: the model chooses tools by their descriptions (write one)"
        findings.append(Finding((*path, "description"), said, NO_DESCRIPTION))
    return filled, findings

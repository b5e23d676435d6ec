"""Turn a validated catalog into the IR: kinds, resolved names, checked defaults.

Problems are collected, not raised, so that one run reports every one of them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import keyword
import re
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from jsonschema import Draft202012Validator

from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.keywords import beside_choices, empty_ranges, unenforced
from codegen.catalog.kinds import (
    AnyKind,
    ArrayKind,
    BooleanKind,
    DateKind,
    DateTimeKind,
    EnumKind,
    Field,
    IntegerKind,
    JsonChoiceKind,
    Kind,
    MapKind,
    NullKind,
    NumberKind,
    ObjectKind,
    StringKind,
    UnionKind,
    UriKind,
    walk,
)
from codegen.catalog.load import LoadedCatalog
from codegen.catalog.names import pascal, snake, usable
from codegen.catalog.refs import ANNOTATIONS, RefError, conjoin, merge_all_of, ref_target
from codegen.catalog.typeless import inferred_types
from codegen.diagnostics import Diagnostic, JsonPath, format_path
from codegen.python.imports import TAKEN

# allOf inside allOf, $ref to $ref: deeper than this is a cycle.
_MAX_MERGES = 32
_FORMATS = {"date-time": DateTimeKind, "date": DateKind, "uri": UriKind, "x-attachment": StringKind}


class _Names:
    """Module-level names of one tool module: unique, deterministic, in catalog order."""

    def __init__(self) -> None:
        self.taken: set[str] = set(TAKEN)

    def take(self, name: str) -> str:
        candidate, n = name, 1
        while candidate in self.taken:
            n += 1
            candidate = f"{name}{n}"
        self.taken.add(candidate)
        return candidate


def normalize(
    loaded: LoadedCatalog, skip: set[int] | frozenset[int] = frozenset()
) -> tuple[Catalog | None, list[Diagnostic]]:
    """The IR of a catalog whose shape the meta-schema accepted; tools in `skip` failed it and are left out."""
    data = loaded.data
    problems: list[Diagnostic] = []
    if keyword.iskeyword(data["name"]):
        message = f"catalog name {data['name']!r} is a Python keyword: the generated package could not be imported"
        problems.append(loaded.diagnostic(("name",), message))
    tools: list[Tool] = []
    lines = _lines_by_tool(loaded)
    owners: dict[str, tuple[int, str]] = {}
    seen: set[str] = set()
    for index, spec in enumerate(data["tools"]):
        if index in skip:
            continue
        duplicate = spec["name"] in seen
        seen.add(spec["name"])
        if duplicate:
            problems.append(
                loaded.diagnostic(("tools", index, "name"), f"duplicate tool name {spec['name']!r}")
            )
            continue
        try:
            tool = _ToolNormalizer(loaded, index, spec, problems, lines.get(index, {})).tool()
        except Exception as exc:  # noqa: BLE001 - a bug of codegen's: report it, with the place
            problems.append(loaded.diagnostic(("tools", index), internal_error(exc)))
            continue
        if tool is None:
            continue
        clash = next((name for name in (tool.module, tool.args.class_name) if name in owners), None)
        if clash is not None:
            _, other = owners[clash]
            message = f"tool {spec['name']!r} and tool {other!r} both become Python name {clash!r} (set x-python-name on one)"
            problems.append(loaded.diagnostic(("tools", index, "name"), message))
            continue
        owners[tool.module] = owners[tool.args.class_name] = (index, spec["name"])
        tools.append(tool)
    if any(p.level == "error" for p in problems):
        return None, problems
    catalog = Catalog(
        name=data["name"],
        title=data.get("title"),
        version=data.get("version"),
        description=data.get("description", ""),
        source=loaded.file,
        sha256=loaded.sha256,
        tools=tuple(tools),
        name_line=loaded.line_of(("name",)),
    )
    return catalog, problems


def _lines_by_tool(loaded: LoadedCatalog) -> dict[int, dict[JsonPath, int]]:
    """Each tool's line map, by path inside the tool: one pass over the catalog's lines."""
    found: dict[int, dict[JsonPath, int]] = {}
    for path, line in loaded.lines.items():
        if len(path) >= 2 and path[0] == "tools" and isinstance(path[1], int):
            found.setdefault(path[1], {})[path[2:]] = line
    return found


def internal_error(exc: BaseException) -> str:
    """The message for a failure of codegen itself on a tool: a bug, reported where it happened."""
    return f"codegen failed on this tool, which is a bug in codegen (please report it with this tool): {type(exc).__name__}: {exc}"


def definition_digest(spec: dict[str, Any]) -> str:
    """The digest of a tool's definition as written (its `$defs` live inside its parameters)."""
    text = json.dumps(spec, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _ToolNormalizer:
    def __init__(
        self,
        loaded: LoadedCatalog,
        index: int,
        spec: dict[str, Any],
        problems: list[Diagnostic],
        lines: dict[JsonPath, int],
    ) -> None:
        self.loaded = loaded
        self.lines = lines
        self.spec = spec
        self.root: dict[str, Any] = spec["parameters"]
        self.base: JsonPath = ("tools", index, "parameters")
        self.problems = problems
        self.names = _Names()
        self.module = (
            snake(spec["x-python-name"])
            if "x-python-name" in spec
            else snake(spec["name"], fallback="tool")
        )
        self.pascal = pascal(spec.get("x-python-name") or spec["name"], fallback="Tool")
        self.root_helper = self.names.take("_arguments")  # before any parameter can claim the name
        self.shared: dict[str, Kind] = {}  # $ref target → kind, so one definition is one class
        self.resolving: list[str] = []
        self.failed = False

    # -- reporting ---------------------------------------------------------------------------

    def error(self, path: JsonPath, message: str) -> None:
        self.failed = True
        self.problems.append(self.loaded.diagnostic((*self.base, *path), message))

    def warn(self, path: JsonPath, message: str) -> None:
        self.problems.append(self.loaded.diagnostic((*self.base, *path), message, "warning"))

    # -- the tool ----------------------------------------------------------------------------

    def tool(self) -> Tool | None:
        root = self.object_kind(
            self.root, (), (), f"{self.pascal}Args", self.root_helper, root=True
        )
        if self.failed or not isinstance(root, ObjectKind):
            return None
        kinds = list(dict.fromkeys(walk(root)))  # a shared definition appears once
        return Tool(
            wire_name=self.spec["name"],
            description=self.spec["description"],
            title=self.spec.get("title"),
            module=self.module,
            args=root,
            parse_name=f"parse_{self.module}",
            schema=self.root,
            helpers=tuple(k for k in kinds if k.needs_helper),
            # A nullable use of a shared definition is a kind of its own with the same class.
            classes=tuple(
                {k.class_name: k for k in reversed(kinds) if isinstance(k, ObjectKind)}.values()
            )[::-1],
            enums=tuple(k for k in kinds if isinstance(k, EnumKind)),
            choice_lists=tuple(k for k in kinds if isinstance(k, JsonChoiceKind)),
            patterns=tuple(k for k in kinds if isinstance(k, StringKind) and k.pattern is not None),
            sha256=definition_digest(self.spec),
            line=self.loaded.line_of(self.base[:2]),
            path=format_path(self.base[:2]),
            annotations=dict(self.spec.get("annotations", {})),
            examples=tuple(self.spec.get("examples", ())),
            lines=self.lines,
        )

    # -- kinds -------------------------------------------------------------------------------

    def kind(self, schema: Any, path: JsonPath, parts: tuple[str, ...]) -> Kind:
        """The kind of `schema`, at `path` inside the parameters; `parts` name it (`settings`, `mode`)."""
        if schema is True or schema == {}:
            return AnyKind()
        if schema is False:
            self.error(path, "a `false` schema accepts no value")
            return AnyKind()
        if "$ref" in schema:
            return self.referenced(schema, path, parts)
        for _ in range(_MAX_MERGES):
            if "allOf" not in schema:
                break
            schema = self.merged_all_of(schema, path)
            if schema is False:
                return AnyKind()
        nullable = schema.get("nullable") is True
        if "enum" in schema or "const" in schema:
            return self.enum_kind(schema, path, parts, nullable)
        if "anyOf" in schema or "oneOf" in schema:
            return self.union_of(schema, path, parts, nullable)
        types = schema.get("type")
        types = [types] if isinstance(types, str) else list(types or [])
        if "type" not in schema:
            types, message = inferred_types(schema)
            if message is not None:
                self.warn(path, message)
        elif not types:
            # Only a merge leaves no type (the meta-schema refuses `type: []`).
            self.error(path, "the types of the schemas merged here (allOf, $ref) share no value")
            return AnyKind()
        if "null" in types:
            nullable = True
            types.remove("null")
            if not types:
                self.check_keywords(schema, path, ["null"])
                return NullKind(helper=self.helper_name(parts))
        self.check_keywords(schema, path, types)
        if not types:
            return AnyKind()
        if len(types) == 1:
            return self.typed(types[0], schema, path, parts, nullable)
        members = tuple(self.typed(t, schema, path, (*parts, t), False) for t in types)
        return UnionKind(members=members, nullable=nullable, helper=self.helper_name(parts))

    def merged_all_of(self, schema: dict[str, Any], path: JsonPath) -> dict[str, Any] | bool:
        """`schema` with its `allOf` members merged in (False when one of them accepts nothing)."""
        members: list[dict[str, Any]] = []
        for i, member in enumerate(schema["allOf"]):
            if member is False:
                self.error((*path, "allOf", i), "a `false` schema accepts no value")
                return False
            members.append(self.resolved(member, (*path, "allOf", i)))
        merged, notes = merge_all_of(schema, members)
        for note in notes:
            self.warn((*path, "allOf"), note)
        return merged

    def resolved(self, schema: Any, path: JsonPath, depth: int = 0) -> dict[str, Any]:
        """`schema` with its `$ref` followed (for merging `allOf` members)."""
        if isinstance(schema, dict) and "$ref" in schema and depth < _MAX_MERGES:
            try:
                _, target = ref_target(self.root, schema["$ref"], (*path, "$ref"))
            except RefError as exc:
                self.error(exc.path, exc.message)
                return {}
            if target is False:
                self.error(path, "a `false` schema accepts no value")
                return {}
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            merged, notes = conjoin(self.resolved(target, path, depth + 1), rest)
            for note in notes:
                self.warn((*path, "$ref"), note)
            return merged
        return schema if isinstance(schema, dict) else {}

    def referenced(self, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...]) -> Kind:
        ref = schema["$ref"]
        try:
            name, target = ref_target(self.root, ref, (*path, "$ref"))
        except RefError as exc:
            self.error(exc.path, exc.message)
            return AnyKind()
        if ref in self.resolving:
            self.error(
                (*path, "$ref"),
                f"$ref {ref!r} refers to itself: recursive schemas are not supported",
            )
            return AnyKind()
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        shareable = set(siblings) <= ANNOTATIONS
        if shareable and ref in self.shared:
            return self.shared[ref]
        self.resolving.append(ref)
        if shareable:
            # One kind for every use: the definition as written (a use's own description
            # describes the parameter, not the shared class).
            kind = self.kind(target, tuple(ref[2:].split("/")), (name,))
        else:
            # The siblings of a $ref apply beside it (2020-12): both must hold.
            kind = self.kind(self.resolved(schema, path), path, parts)
        self.resolving.pop()
        if shareable:
            self.shared[ref] = kind
        return kind

    def typed(
        self,
        type_name: str,
        schema: dict[str, Any],
        path: JsonPath,
        parts: tuple[str, ...],
        nullable: bool,
    ) -> Kind:
        self.check_bounds(schema, path)
        if type_name == "boolean":
            return BooleanKind(nullable=nullable, helper=self.helper_name(parts))
        if type_name in ("integer", "number"):
            bounds = {
                "minimum": schema.get("minimum"),
                "maximum": schema.get("maximum"),
                "exclusive_minimum": schema.get("exclusiveMinimum"),
                "exclusive_maximum": schema.get("exclusiveMaximum"),
            }
            cls = IntegerKind if type_name == "integer" else NumberKind
            return cls(nullable=nullable, helper=self.helper_name(parts), **bounds)
        if type_name == "string":
            return self.string_kind(schema, path, parts, nullable)
        if type_name == "array":
            items = schema.get("items")
            max_items = schema.get("maxItems")
            if items is False:  # no item may be there: only the empty list
                items, max_items = None, 0
            item_kind = (
                None if items is None else self.kind(items, (*path, "items"), (*parts, "item"))
            )
            if isinstance(item_kind, AnyKind):
                item_kind = None  # a list of anything needs no per-item work
            return ArrayKind(
                items=item_kind,
                min_items=schema.get("minItems"),
                max_items=max_items,
                nullable=nullable,
                helper=self.helper_name(parts),
            )
        # An object: with properties a dataclass of its own, without them a map or a free-form dict.
        # `additionalProperties: false` alone allows no name at all: a dataclass without fields.
        if "properties" in schema or schema.get("additionalProperties") is False:
            class_name = self.names.take(self.pascal + "".join(pascal(p) for p in parts))
            return self.object_kind(
                schema, path, parts, class_name, self.helper_name(parts), nullable=nullable
            )
        extra = schema.get("additionalProperties")
        values = (
            None
            if extra is None
            else self.kind(extra, (*path, "additionalProperties"), (*parts, "value"))
        )
        if isinstance(values, AnyKind):
            values = None
        required = schema.get("required", [])
        return MapKind(
            values=values,
            required=tuple(required),
            nullable=nullable,
            helper=self.helper_name(parts),
        )

    def string_kind(
        self, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
    ) -> Kind:
        fmt = schema.get("format")
        cls: type[Kind] = StringKind
        if fmt is not None:
            if fmt in _FORMATS:
                cls = _FORMATS[fmt]
            else:
                self.warn(
                    (*path, "format"), f"format {fmt!r} is not checked: values are kept as text"
                )
        helper = self.helper_name(parts)
        if cls in (DateTimeKind, DateKind):
            for word in ("minLength", "maxLength", "pattern"):
                if word in schema:
                    self.warn((*path, word), f"keyword {word!r} is not enforced on a {fmt} value")
            return cls(nullable=nullable, helper=helper)
        pattern = schema.get("pattern")
        pattern_name = ""
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                self.error(
                    (*path, "pattern"),
                    f"pattern {pattern!r} is not a valid regular expression: {exc}",
                )
                pattern = None
            else:
                pattern_name = self.names.take(
                    "_" + "_".join(snake(p).upper() for p in parts) + "_PATTERN"
                )
        return cls(  # type: ignore[call-arg]
            nullable=nullable,
            helper=helper,
            min_length=schema.get("minLength"),
            max_length=schema.get("maxLength"),
            pattern=pattern,
            pattern_name=pattern_name,
        )

    def enum_kind(
        self, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
    ) -> Kind:
        source = "enum" if "enum" in schema else "const"
        raw = schema["enum"] if source == "enum" else [schema["const"]]
        types = schema.get("type")
        if types == "null" or (isinstance(types, list) and "null" in types):
            nullable = True
        if any(isinstance(choice, (dict, list)) for choice in raw):
            return self.json_choice_kind(schema, raw, path, parts, nullable)
        choices: list[str | int | float | bool] = []
        for i, choice in enumerate(raw):
            where = (*path, source, i) if source == "enum" else (*path, source)
            if choice is None:
                nullable = True
            elif isinstance(choice, (dict, list)):
                self.error(where, "enum values must be strings, numbers or booleans")
            elif (type(choice), choice) in {(type(c), c) for c in choices}:
                self.error(where, f"duplicate enum value {choice!r}")
            else:
                choices.append(choice)
        for word, message in beside_choices(schema, source):
            self.warn((*path, word), message)
        if not choices:
            return (
                NullKind(code="enum_out_of_range", helper=self.helper_name(parts))
                if nullable
                else AnyKind()
            )
        stem = "".join(pascal(p) for p in parts)
        alias = self.names.take(self.pascal + stem)
        table = self.names.take("_" + "_".join(snake(p).upper() for p in parts))
        folded_table = self.names.take(table + "_FOLDED")
        one_type = len({type(c) for c in choices}) == 1
        return EnumKind(
            choices=tuple(choices),
            case_sensitive=schema.get("x-case-sensitive") is True,
            alias=alias,
            table=table,
            folded_table=folded_table,
            value_set=self.names.take(table + "_VALUES") if one_type else "",
            nullable=nullable,
            helper=self.helper_name(parts),
        )

    def json_choice_kind(
        self,
        schema: dict[str, Any],
        raw: list[Any],
        path: JsonPath,
        parts: tuple[str, ...],
        nullable: bool,
    ) -> Kind:
        source = "enum" if "enum" in schema else "const"
        for word, message in beside_choices(schema, source):
            self.warn((*path, word), message)
        return JsonChoiceKind(
            choices=tuple(choice for choice in raw if choice is not None),
            table=self.names.take("_" + "_".join(snake(p).upper() for p in parts) + "_CHOICES"),
            nullable=nullable or any(choice is None for choice in raw),
            helper=self.helper_name(parts),
        )

    def union_of(
        self, schema: dict[str, Any], path: JsonPath, parts: tuple[str, ...], nullable: bool
    ) -> Kind:
        combiner = "anyOf" if "anyOf" in schema else "oneOf"
        members: list[Kind] = []
        # What the schema says beside the combiner holds for every member (a oneOf beside an
        # anyOf among it, so both are enforced).
        outer = {
            k: v
            for k, v in schema.items()
            if k not in (combiner, "description", "title", "default", "examples")
        }
        constraints = [k for k in outer if k not in ANNOTATIONS and not k.startswith("x-")]
        branches = schema[combiner]
        for i, member in enumerate(branches):
            where = (*path, combiner, i)
            if member is False:
                continue  # a branch that takes nothing never matches
            resolved = self.resolved(member, where) if isinstance(member, dict) else member
            if isinstance(resolved, dict) and resolved.get("type") == "null" and len(resolved) <= 2:
                nullable = True
                continue
            if member is True:
                member_schema = outer
            elif not constraints:
                # Only notes beside the combiner: a $ref branch stays the shared definition.
                member_schema = member if "$ref" in member else {**outer, **member}
            else:
                member_schema, notes = conjoin(outer, resolved)
                for note in notes:
                    self.warn(where, note)
            kind = self.kind(
                member_schema, where, parts if len(branches) <= 2 else (*parts, str(i))
            )
            if isinstance(kind, NullKind):
                nullable = True
                continue
            if kind.accepts_anything and combiner == "anyOf":
                return AnyKind()  # one branch takes every value, so the union does
            if kind.nullable and not kind.accepts_anything:
                nullable = True
                kind = dataclasses.replace(
                    kind, nullable=False, helper=self.helper_name((*parts, "value"))
                )
            members.append(kind)
        if all(member is False for member in branches):
            self.error(
                (*path, combiner),
                f"every branch of this {combiner} is `false`: it accepts no value",
            )
            return AnyKind()
        if not members:
            return NullKind(helper=self.helper_name(parts))
        if len(members) == 1:
            only = members[0]
            if not nullable or only.accepts_anything:
                return only
            # A shared definition keeps its own helper for its other uses; a private one is reused.
            shared = any(only is kind for kind in self.shared.values())
            return dataclasses.replace(
                only, nullable=True, helper=self.helper_name(parts) if shared else only.helper
            )
        # Members that take disjoint JSON types never both match: oneOf is then anyOf.
        disjoint = sum(len(m.json_types) for m in members) == len(
            frozenset().union(*(m.json_types for m in members))
        )
        return UnionKind(
            members=tuple(members),
            nullable=nullable,
            helper=self.helper_name(parts),
            exactly_one=combiner == "oneOf" and not disjoint,
        )

    def object_kind(
        self,
        schema: dict[str, Any],
        path: JsonPath,
        parts: tuple[str, ...],
        class_name: str,
        helper: str,
        root: bool = False,
        nullable: bool = False,
    ) -> Kind:
        if root:
            class_name = self.names.take(class_name)
            self.check_keywords(schema, path, ["object"])
        properties: dict[str, Any] = schema.get("properties", {})
        required: list[str] = schema.get("required", [])
        for i, name in enumerate(required):
            if name not in properties:
                self.error(
                    (*path, "required", i), f"required parameter {name!r} is not in properties"
                )
        fields: list[Field] = []
        by_py_name: dict[str, str] = {}
        for wire, prop in properties.items():
            where = (*path, "properties", wire)
            py_name = (
                prop.get("x-python-name")
                if isinstance(prop, dict) and "x-python-name" in prop
                else snake(wire)
            )
            if not usable(py_name):
                self.error(
                    (*where, "x-python-name"),
                    f"x-python-name {py_name!r} is a Python keyword or a name the generated class uses",
                )
                continue
            if py_name in by_py_name:
                self.error(
                    where,
                    f"parameter {wire!r} and parameter {by_py_name[py_name]!r} both become Python name {py_name!r} (set x-python-name on one)",
                )
                continue
            by_py_name[py_name] = wire
            kind = self.kind(prop, where, (*parts, wire))
            fields.append(self.field(wire, py_name, kind, prop, where, wire in required))
        extra_schema = schema.get("additionalProperties")
        extra = None
        if isinstance(extra_schema, dict) and extra_schema:
            extra = self.kind(extra_schema, (*path, "additionalProperties"), (*parts, "extra"))
        constant = helper.strip("_").upper() or "ARGUMENTS"
        return ObjectKind(
            class_name=class_name,
            description=schema.get("description", ""),
            fields=tuple(fields),
            extra=extra,
            root=root,
            nullable=nullable,
            helper=helper,
            keys_name=self.names.take(f"_{constant}_KEYS"),
            draft_name=self.names.take(f"_{constant}_DRAFT"),
        )

    def field(
        self, wire: str, py_name: str, kind: Kind, prop: Any, path: JsonPath, required: bool
    ) -> Field:
        description = prop.get("description", "") if isinstance(prop, dict) else ""
        if not isinstance(prop, dict) or "default" not in prop:
            return Field(wire, py_name, kind, required, description)
        default = prop["default"]
        if default is None and not kind.nullable:
            return Field(
                wire, py_name, kind, required, description
            )  # `default: null` means "no value"
        if isinstance(kind, IntegerKind) and isinstance(default, float) and default.is_integer():
            default = int(default)
        for message in self.default_problems(prop, kind, default):
            self.error((*path, "default"), message)
        return Field(wire, py_name, kind, required, description, has_default=True, default=default)

    def default_problems(self, prop: dict[str, Any], kind: Kind, default: Any) -> Iterator[str]:
        context = {key: self.root[key] for key in ("$defs", "definitions") if key in self.root}
        validator = Draft202012Validator({**context, **prop})
        for problem in sorted(validator.iter_errors(default), key=lambda e: list(e.absolute_path)):
            if problem.validator != "default":
                yield f"default {default!r} does not match the parameter's schema: {problem.message}"
                return
        check = {DateTimeKind: datetime.fromisoformat, DateKind: date.fromisoformat}.get(type(kind))
        if check is not None and default is not None:
            try:
                check(default)
            except (TypeError, ValueError):
                yield f"default {default!r} is not an ISO-8601 {'date-time' if kind.__class__ is DateTimeKind else 'date'}"

    # -- helpers -----------------------------------------------------------------------------

    def helper_name(self, parts: tuple[str, ...]) -> str:
        return self.names.take("_" + "_".join(snake(p) for p in parts))

    def check_bounds(self, schema: dict[str, Any], path: JsonPath) -> None:
        for word, message in empty_ranges(schema):
            self.error((*path, word), message)

    def check_keywords(self, schema: dict[str, Any], path: JsonPath, types: list[str]) -> None:
        for word, message in unenforced(schema, types):
            self.warn((*path, word), message)

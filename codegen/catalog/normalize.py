"""Turn a validated catalog into the IR: kinds, resolved names, checked defaults.

Problems are collected, not raised, so that one run reports every one of them.
"""

from __future__ import annotations

import hashlib
import json
import keyword
import re
from typing import Any

from codegen.catalog.backtracking import BACKTRACKING_WARNING, exponential_shape
from codegen.catalog.choices import Choices
from codegen.catalog.combinations import Combinations
from codegen.catalog.ir import Catalog, Tool, classes_of
from codegen.catalog.kinds import (
    AnyKind,
    ArrayKind,
    BooleanKind,
    DateKind,
    DateTimeKind,
    EnumKind,
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
from codegen.catalog.names import (
    Claim,
    Names,
    class_stem,
    identifier,
    pascal,
    resolve,
    snake,
    snake_base,
)
from codegen.catalog.objects import Objects
from codegen.catalog.returns import result_of
from codegen.catalog.reuse import ToolResults, anchored, layout, moved, relative, spec_digest
from codegen.catalog.tool_state import GONE, MAX_MERGES
from codegen.catalog.typeless import inferred_types
from codegen.diagnostics import Diagnostic, JsonPath, format_path

# MCP `Tool` fields kept as written for MCP_TOOLS, in the order MCP's schema lists them.
MCP_FIELDS = ("outputSchema", "execution", "icons", "_meta")
_FORMATS = {"date-time": DateTimeKind, "date": DateKind, "uri": UriKind, "x-attachment": StringKind}


def normalize(
    loaded: LoadedCatalog,
    skip: set[int] | frozenset[int] = frozenset(),
    results: ToolResults | None = None,
) -> tuple[Catalog | None, list[Diagnostic]]:
    """The IR of a catalog whose shape the meta-schema accepted; tools in `skip` failed it and are
    left out. With `results`, a tool the last build normalized with the same definition, Python
    names and layout is taken from there, its findings anchored where it is now."""
    data = loaded.data
    problems: list[Diagnostic] = []
    if keyword.iskeyword(data["name"]):
        message = f"catalog name {data['name']!r} is a Python keyword: the generated package could not be imported"
        problems.append(loaded.diagnostic(("name",), message))
    tools: list[Tool] = []
    lines = _lines_by_tool(loaded)
    owners: dict[str, tuple[int, str]] = {}
    seen: set[str] = set()
    python_names = tool_python_names(loaded, skip, problems)
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
        python_name = python_names[index]
        lines_of_tool = lines.get(index, {})
        line, path = loaded.line_of(("tools", index)), format_path(("tools", index))
        parts = (spec_digest(spec), *python_name, layout(lines_of_tool, line))
        reused = results.get("tool", *parts) if results is not None else None
        if reused is not None:
            tool, found = reused
            problems += anchored(loaded.file, found, line, path)
            tool = tool and moved(tool, line, index, lines_of_tool)
        else:
            start = len(problems)
            try:
                normalizer = _ToolNormalizer(
                    loaded, index, spec, problems, python_name, lines_of_tool
                )
                tool = normalizer.tool()
            except Exception as exc:  # noqa: BLE001 - a bug of codegen's: report it, with the place
                problems.append(loaded.diagnostic(("tools", index), internal_error(exc)))
                continue
            if results is not None:
                results.put("tool", parts, (tool, relative(problems[start:], line, path)))
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


def tool_python_names(
    loaded: LoadedCatalog, skip: set[int] | frozenset[int], problems: list[Diagnostic]
) -> dict[int, tuple[str, str]]:
    """Each tool's module name and class stem, by the one naming rule (`names.resolve`): tools
    whose names collide in Python (`todo.add` and `todo_add`) are told apart, with a warning.
    """
    specs = loaded.data["tools"]
    claims: list[Claim[int]] = []
    first: dict[str, int] = {}  # the same wire name twice is an error of its own, not a rename
    for index, spec in enumerate(specs):
        if index in skip or first.setdefault(spec["name"], index) != index:
            continue
        pinned = spec.get("x-python-name")
        module = snake_base(pinned) if pinned else snake_base(spec["name"], fallback="tool")
        stem = pascal(pinned or spec["name"], fallback="Tool")

        def variants(n: int, module: str = module, stem: str = stem) -> tuple[str, ...]:
            return identifier(module, n), class_stem(stem, n)

        claims.append(
            Claim(
                index,
                variants,
                pinned=bool(pinned),
                exact=spec["name"] == identifier(module),
            )
        )
    given, renames = resolve(claims)
    for rename in renames:
        name, other = specs[rename.owner]["name"], specs[rename.holder]["name"]
        if rename.pinned:
            message = (
                f"tool {name!r} and tool {other!r} both pin Python name {rename.wanted!r}:"
                f" {name!r} becomes {rename.given!r} (give it another x-python-name)"
            )
        else:
            message = (
                f"tool {name!r} becomes Python name {rename.given!r}, since tool {other!r} has"
                f" {rename.wanted!r} (set x-python-name on either to choose)"
            )
        problems.append(loaded.diagnostic(("tools", rename.owner, "name"), message, "CG106"))
    chosen: dict[int, tuple[str, str]] = {}
    for index, spec in enumerate(specs):
        if index not in skip:
            module, stem = given[first[spec["name"]]]
            chosen[index] = (module, stem)
    return chosen


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


class _ToolNormalizer(Objects, Choices, Combinations):
    """Turns one tool's parameters into kinds: the tool, and the kind of each schema by its type."""

    # -- the tool ----------------------------------------------------------------------------

    def tool(self) -> Tool | None:
        # Before any parameter's class can claim the name: the tool's own names are predictable.
        keywords_name = self.names.take(f"{self.pascal}Keywords")
        root = self.object_kind(
            self.root, (), (), f"{self.pascal}Args", self.root_helper, root=True
        )
        result = result_of(self)
        if self.failed or not isinstance(root, ObjectKind):
            return None
        kinds = list(dict.fromkeys(walk(root)))  # a shared definition appears once
        classes = classes_of(tuple(kinds))
        if result is not None:
            kinds += result.kinds
        return Tool(
            wire_name=self.spec["name"],
            description=self.spec["description"],
            title=self.spec.get("title"),
            module=self.module,
            args=root,
            parse_name=f"parse_{self.module}",
            keywords_name=keywords_name,
            call_self=Names(f.py_name for f in root.fields).take("self"),
            schema=self.fixed_schema(),
            helpers=tuple(k for k in kinds if k.needs_helper),
            classes=classes,
            enums=tuple(k for k in kinds if isinstance(k, EnumKind)),
            choice_lists=tuple(k for k in kinds if isinstance(k, JsonChoiceKind)),
            patterns=tuple(k for k in kinds if isinstance(k, StringKind) and k.pattern is not None),
            sha256=definition_digest(self.spec),
            line=self.loaded.line_of(self.base[:2]),
            path=format_path(self.base[:2]),
            annotations=dict(self.spec.get("annotations", {})),
            examples=tuple(self.spec.get("examples", ())),
            lines=self.lines,
            mcp_fields={k: self.spec[k] for k in MCP_FIELDS if k in self.spec},
            result=result,
        )

    # -- kinds -------------------------------------------------------------------------------

    def kind(self, schema: Any, path: JsonPath, parts: tuple[str, ...]) -> Kind:
        """The kind of `schema`, at `path` inside the parameters; `parts` name it (`settings`, `mode`)."""
        if schema is True or schema == {}:
            return AnyKind()
        if schema is False:
            self.error(path, "a `false` schema accepts no value")
            return AnyKind()
        flags = [w for w in ("required", "optional") if isinstance(schema.get(w), bool)]
        if flags:
            # Beside a property the object honours them (objects.plain_property); here nothing can.
            for word in flags:
                self.warn(
                    (*path, word), f"`{word}` is not beside a property here: ignored", "CG103"
                )
                self.fix((*path, word), GONE)
            schema = {k: v for k, v in schema.items() if k not in flags}
        if "$ref" in schema:
            return self.referenced(schema, path, parts)
        for _ in range(MAX_MERGES):
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
                self.warn(path, message, "CG107")
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
                    (*path, "format"),
                    f"format {fmt!r} is not checked: values are kept as text",
                    "CG101",
                )
        helper = self.helper_name(parts)
        if cls in (DateTimeKind, DateKind):
            for word in ("minLength", "maxLength", "pattern"):
                if word in schema:
                    self.warn(
                        (*path, word), f"keyword {word!r} is not enforced on a {fmt} value", "CG101"
                    )
            return cls(nullable=nullable, helper=helper)
        pattern = schema.get("pattern")
        pattern_name = ""
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                # Python's `re` and ECMA-262 differ: what it cannot compile is not checked, said.
                self.warn(
                    (*path, "pattern"),
                    f"pattern {pattern!r} is not a valid regular expression ({exc}): not checked",
                    "CG103",
                )
                self.fix((*path, "pattern"), GONE)
                pattern = None
            else:
                pattern_name = self.names.take(
                    "_" + "_".join(snake(p).upper() for p in parts) + "_PATTERN"
                )
                if exponential_shape(pattern):
                    self.warn(
                        (*path, "pattern"), BACKTRACKING_WARNING.format(pattern=pattern), "CG110"
                    )
        return cls(  # type: ignore[call-arg]
            nullable=nullable,
            helper=helper,
            min_length=schema.get("minLength"),
            max_length=schema.get("maxLength"),
            pattern=pattern,
            pattern_name=pattern_name,
        )

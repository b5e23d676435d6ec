"""Objects with properties: a dataclass each, their fields, Python names and checked defaults."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from jsonschema import Draft202012Validator

from codegen.catalog.kinds import DateKind, DateTimeKind, Field, IntegerKind, Kind, ObjectKind
from codegen.catalog.names import snake, usable
from codegen.catalog.tool_state import ToolState
from codegen.diagnostics import JsonPath


class Objects(ToolState):
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
        examples = prop.get("examples", []) if isinstance(prop, dict) else []
        examples = tuple(examples) if isinstance(examples, list) else ()
        if not isinstance(prop, dict) or "default" not in prop:
            return Field(wire, py_name, kind, required, description, examples=examples)
        default = prop["default"]
        if default is None and not kind.nullable:
            # `default: null` means "no value"
            return Field(wire, py_name, kind, required, description, examples=examples)
        if isinstance(kind, IntegerKind) and isinstance(default, float) and default.is_integer():
            default = int(default)
        for message in self.default_problems(prop, kind, default):
            self.error((*path, "default"), message)
        return Field(
            wire,
            py_name,
            kind,
            required,
            description,
            has_default=True,
            default=default,
            examples=examples,
        )

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

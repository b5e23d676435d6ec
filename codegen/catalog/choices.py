"""`enum` and `const`: closed sets of scalar values, or of JSON values compared as JSON."""

from __future__ import annotations

from typing import Any

from codegen.catalog.keywords import beside_choices
from codegen.catalog.kinds import AnyKind, EnumKind, JsonChoiceKind, Kind, NullKind
from codegen.catalog.names import pascal, snake
from codegen.catalog.tool_state import ToolState
from codegen.diagnostics import JsonPath


class Choices(ToolState):
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
        seen: set[tuple[type, object]] = set()  # by type too: 1, 1.0 and True are three values
        for i, choice in enumerate(raw):
            where = (*path, source, i) if source == "enum" else (*path, source)
            if choice is None:
                nullable = True
            elif isinstance(choice, (dict, list)):
                self.error(where, "enum values must be strings, numbers or booleans")
            elif (type(choice), choice) in seen:
                self.error(where, f"duplicate enum value {choice!r}")
            else:
                seen.add((type(choice), choice))
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

"""The baseline a generated parser must beat: one parser that interprets the JSON Schema per call.

Same semantics and the same result as the generated code for the subset the corpus uses (scalars
with bounds, enums, defaults, nested objects, arrays, unknown keys, double encoding): a
`ToolCallRequest` with the plain values and frozen dataclasses made from the schemas at start-up,
as pydantic makes its models. It runs on the generated runtime's own decoding, coercions and
request assembly, so the only difference measured is interpreting the schema versus specializing it.
"""

from __future__ import annotations

from dataclasses import field, make_dataclass
from types import ModuleType
from typing import Any


class Interpreter:
    def __init__(self, runtime: ModuleType, schemas: dict[str, dict[str, Any]]) -> None:
        self.rt = runtime
        self.schemas = schemas
        self.enum_tables: dict[int, tuple[dict[Any, Any], dict[str, Any]]] = {}
        self.classes: dict[int, type] = {}
        for tool, schema in schemas.items():
            self.make_classes(schema, tool)
        self.coerce = {
            "string": runtime.to_str,
            "integer": runtime.to_int,
            "number": runtime.to_float,
            "boolean": runtime.to_bool,
        }

    def tables(self, schema: dict[str, Any]) -> tuple[dict[Any, Any], dict[str, Any]]:
        """An enum's lookup tables, made once per schema: a fair interpreter caches what it can."""
        key = id(schema)
        if key not in self.enum_tables:
            exact = {(type(c), c): c for c in schema["enum"]}
            folded = {c.casefold(): c for c in schema["enum"] if isinstance(c, str)}
            self.enum_tables[key] = (exact, folded)
        return self.enum_tables[key]

    def make_classes(self, schema: dict[str, Any], name: str) -> None:
        """A frozen dataclass per object schema, as the generated code declares them."""
        if schema.get("type") == "array":
            self.make_classes(schema["items"], name + "_item")
        if schema.get("type") != "object":
            return
        fields: list[Any] = []
        for prop, sub in schema["properties"].items():
            self.make_classes(sub, f"{name}_{prop}")
            if prop in schema.get("required", ()):
                fields.append((prop, Any))
            elif isinstance(sub.get("default"), (list, dict)):
                fields.append((prop, Any, field(default_factory=lambda d=sub["default"]: d)))
            else:
                fields.append((prop, Any, field(default=sub.get("default"))))
        self.classes[id(schema)] = make_dataclass(
            name, fields, frozen=True, slots=True, kw_only=True
        )

    def parse(self, tool: str, raw: str) -> Any:
        schema = self.schemas[tool]

        def arguments(root: Any, path: str, warnings: list[str], errors: list[str]) -> Any:
            values = self.object(root, schema, path, warnings, errors)
            if errors or values is self.rt.INVALID:
                return values, self.rt.INVALID
            return values, self.typed(values, schema)

        return self.rt.run_parser(tool, "", raw, arguments)

    def typed(self, value: Any, schema: dict[str, Any]) -> Any:
        if schema.get("type") == "array":
            return [self.typed(item, schema["items"]) for item in value]
        if schema.get("type") != "object":
            return value
        properties = schema["properties"]
        return self.classes[id(schema)](
            **{
                name: self.typed(item, properties[name])
                for name, item in value.items()
                if name in properties
            }
        )

    def object(
        self, src: Any, schema: dict[str, Any], path: str, warnings: list[str], errors: list[str]
    ) -> Any:
        if type(src) is not dict:
            src = self.rt.to_dict(src, path, warnings, errors)
            if src is self.rt.INVALID:
                return src
        values: dict[str, Any] = {}
        required = schema.get("required", ())
        for name, sub in schema["properties"].items():
            where = f"{path}.{name}" if path else name
            if name not in src or src[name] is None:
                if name in required:
                    errors.append(f"missing_required:{where}")
                elif "default" in sub:
                    values[name] = sub["default"]
                continue
            value = self.value(src[name], sub, where, warnings, errors)
            if value is not self.rt.INVALID:
                values[name] = value
        for name in src:
            if name not in schema["properties"]:
                warnings.append(
                    f"unknown_parameter:{path}.{name}" if path else f"unknown_parameter:{name}"
                )
                values[name] = src[name]
        return values

    def value(
        self, v: Any, schema: dict[str, Any], path: str, warnings: list[str], errors: list[str]
    ) -> Any:
        if "enum" in schema:
            exact, folded = self.tables(schema)
            return self.rt.to_choice(v, exact, folded, path, warnings, errors)
        kind = schema.get("type")
        if kind == "object":
            return self.object(v, schema, path, warnings, errors)
        if kind == "array":
            items = v if type(v) is list else self.rt.to_list(v, path, warnings, errors)
            if items is self.rt.INVALID:
                return items
            return [
                self.value(item, schema["items"], f"{path}[{i}]", warnings, errors)
                for i, item in enumerate(items)
            ]
        value = self.coerce[kind](v, path, warnings, errors)
        if value is not self.rt.INVALID and kind in ("integer", "number"):
            low, high = schema.get("minimum"), schema.get("maximum")
            if (low is not None and value < low) or (high is not None and value > high):
                errors.append(f"out_of_range:{path}")
                return self.rt.INVALID
        if (
            value is not self.rt.INVALID
            and kind == "string"
            and len(value) > schema.get("maxLength", len(value))
        ):
            errors.append(f"length_out_of_range:{path}")
            return self.rt.INVALID
        return value

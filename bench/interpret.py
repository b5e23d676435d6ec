"""The baseline a generated parser must beat: one parser that interprets the JSON Schema per call.

Same semantics as the generated code for the subset the corpus uses (scalars with bounds, enums,
defaults, nested objects, arrays, unknown keys, double encoding), built on the generated runtime's
own coercions, so the only difference measured is interpreting the schema versus specializing it.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


class Interpreter:
    def __init__(self, runtime: ModuleType, schemas: dict[str, dict[str, Any]]) -> None:
        self.rt = runtime
        self.schemas = schemas
        self.enum_tables: dict[int, tuple[dict[Any, Any], dict[str, Any]]] = {}
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

    def parse(self, tool: str, raw: str) -> tuple[dict[str, Any], list[str], list[str]]:
        doc = self.rt.decode_arguments(raw)
        if doc.root is None:
            return {}, doc.warnings, doc.errors
        values = self.object(doc.root, self.schemas[tool], "", doc.warnings, doc.errors)
        return values, doc.warnings, doc.errors

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

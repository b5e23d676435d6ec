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
        self.classes: dict[int, tuple[type, type]] = {}
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
        cls = make_dataclass(name, fields, frozen=True, slots=True, kw_only=True)
        self.classes[id(schema)] = (cls, self.rt.draft_class(cls))

    def parser(self, tool: str) -> Any:
        """The parse function of one tool, as the generated package has one per tool."""
        schema = self.schemas[tool]
        run_parser = self.rt.run_parser
        invalid = self.rt.INVALID

        def arguments(root: Any, warnings: list[str], errors: list[str]) -> Any:
            self.object(root, schema, "", warnings, errors)
            return invalid if errors else self.typed(root, schema)

        def parse(raw: str, tool_call_id: str = "") -> Any:
            return run_parser(tool, tool_call_id, raw, arguments)

        return parse

    def typed(self, value: Any, schema: dict[str, Any]) -> Any:
        if schema.get("type") == "array":
            return [self.typed(item, schema["items"]) for item in value]
        if schema.get("type") != "object":
            return value
        # Built as the generated code builds them: on the runtime's writable twin of the class.
        cls, draft_class = self.classes[id(schema)]
        draft = object.__new__(draft_class)
        for name, sub in schema["properties"].items():
            setattr(draft, name, self.typed(value[name], sub) if name in value else None)
        draft.__class__ = cls
        return draft

    def object(
        self, src: Any, schema: dict[str, Any], path: str, warnings: list[str], errors: list[str]
    ) -> Any:
        """The object corrected in place, as the generated code does."""
        if type(src) is not dict:
            src = self.rt.to_dict(src, path, warnings, errors)
            if src is self.rt.INVALID:
                return src
        required = schema.get("required", ())
        for name, sub in schema["properties"].items():
            where = f"{path}.{name}" if path else name
            v = src.get(name, self.rt.ABSENT)
            if v is self.rt.ABSENT:
                if name in required:
                    errors.append(f"missing_required:{where}")
                elif "default" in sub:
                    src[name] = sub["default"]
                continue
            # The text "null" means null but for plain strings, where it is a valid value.
            null_text = sub.get("type") != "string" or "enum" in sub
            if v is None or (null_text and self.rt.is_null_text(v, where, warnings)):
                if name in required:
                    errors.append(f"missing_required:{where}")
                    del src[name]
                    continue
                warnings.append(f"null_treated_as_absent:{where}")
                if "default" in sub:
                    src[name] = sub["default"]
                else:
                    del src[name]
                continue
            value = self.value(v, sub, where, warnings, errors)
            if value is self.rt.INVALID:
                del src[name]
            else:
                src[name] = value
        for name in src:
            if name not in schema["properties"]:
                warnings.append(
                    f"unknown_parameter:{path}.{name}" if path else f"unknown_parameter:{name}"
                )
        return src

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
            failed = len(errors)
            for i, item in enumerate(items):
                items[i] = self.value(item, schema["items"], f"{path}[{i}]", warnings, errors)
            if len(errors) > failed:
                return [item for item in items if item is not self.rt.INVALID]
            return items
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

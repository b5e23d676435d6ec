"""The peers, built from the same JSON Schemas: pydantic v2 models, msgspec structs, validators."""

from __future__ import annotations

import json
from typing import Any, Literal

import fastjsonschema
import jsonschema
import msgspec
import pydantic

_SCALARS: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool}


def _annotation(schema: dict[str, Any], name: str, build: Any) -> Any:
    if "enum" in schema:
        return Literal[tuple(schema["enum"])]
    kind = schema["type"]
    if kind == "object":
        return build(schema, name)
    if kind == "array":
        return list[_annotation(schema["items"], name + "Item", build)]  # type: ignore[misc]
    return _SCALARS[kind]


def pydantic_model(schema: dict[str, Any], name: str) -> type[pydantic.BaseModel]:
    fields: dict[str, Any] = {}
    for prop, sub in schema["properties"].items():
        annotation = _annotation(sub, name + prop.title(), pydantic_model)
        if prop in schema.get("required", ()):
            fields[prop] = (annotation, ...)
        else:
            fields[prop] = (annotation | None, sub.get("default"))
    return pydantic.create_model(name, **fields)


def msgspec_struct(schema: dict[str, Any], name: str) -> type[msgspec.Struct]:
    required, optional = [], []
    for prop, sub in schema["properties"].items():
        annotation = _annotation(sub, name + prop.title(), msgspec_struct)
        if prop in schema.get("required", ()):
            required.append((prop, annotation))
        else:
            optional.append((prop, annotation | None, sub.get("default")))
    return msgspec.defstruct(name, required + optional)


class Peers:
    """Each peer's parse function per tool; each returns normally when it accepts the call."""

    def __init__(self, schemas: dict[str, dict[str, Any]]) -> None:
        models = {tool: pydantic_model(s, f"M{i}") for i, (tool, s) in enumerate(schemas.items())}
        structs = {tool: msgspec_struct(s, f"S{i}") for i, (tool, s) in enumerate(schemas.items())}
        self.parsers: dict[str, dict[str, Any]] = {
            "pydantic model_validate_json": {t: m.model_validate_json for t, m in models.items()},
            # The result a generated parser gives (typed arguments and their plain values), the
            # pydantic way: context for the ratios, not a target.
            "pydantic model_validate_json + model_dump": {
                t: _with_dump(m.model_validate_json) for t, m in models.items()
            },
            "pydantic validate_json": {
                t: m.__pydantic_validator__.validate_json for t, m in models.items()
            },
            "msgspec (strict=False)": {
                t: msgspec.json.Decoder(s, strict=False).decode for t, s in structs.items()
            },
            "fastjsonschema (validation only)": {
                t: _after_json(fastjsonschema.compile(s)) for t, s in schemas.items()
            },
            "jsonschema (validation only)": {
                t: _after_json(jsonschema.Draft202012Validator(s).validate)
                for t, s in schemas.items()
            },
        }


def _with_dump(validate: Any) -> Any:
    def parse(raw: str) -> tuple[Any, dict[str, Any]]:
        model = validate(raw)
        return model, model.model_dump()

    return parse


def _after_json(validate: Any) -> Any:
    def parse(raw: str) -> None:
        validate(json.loads(raw))

    return parse

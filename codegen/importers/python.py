"""Tools from type-annotated Python functions (`codegen import pkg.module[:function] --from python`).

The function's name is the tool's; its docstring (Google, NumPy or reST, read by docstring_parser)
gives the tool's description and each parameter's; its annotations give the JSON Schema: `str`,
`int`, `float`, `bool`, `Literal[...]` and `Enum`s as enums, `X | None` as nullable, lists, tuples
and sets as arrays, `dict[str, X]` as maps, dataclasses and TypedDicts as nested objects, `datetime`
and `date` as formatted strings; a default makes a parameter optional, and is kept when it is JSON.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
import sys
import traceback
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import docstring_parser

from codegen.catalog.dialect import PYTHON_SCALARS, enum_schema
from codegen.catalog.tool_lists import UnreadableToolList
from codegen.diagnostics import JsonPath
from codegen.importers.dialect import Notes


def functions_of(target: str, root: Path) -> list[Callable[..., Any]]:
    """`package.module` → its public functions (those defined there); `package.module:name` → one."""
    module_name, _, function_name = target.partition(":")
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UnreadableToolList(f"cannot import {module_name!r}: {exc}") from None
    except SystemExit as exc:
        raise UnreadableToolList(
            f"importing {module_name!r} called sys.exit({exc.code!r})"
        ) from None
    except Exception as exc:  # noqa: BLE001 - the module's own error: reported as its, not ours
        raise UnreadableToolList(_raised(module_name, exc, root)) from None
    finally:
        sys.path.remove(str(root))
    if function_name:
        function = getattr(module, function_name, None)
        if not inspect.isfunction(function):
            raise UnreadableToolList(f"{module_name!r} has no function {function_name!r}")
        return [function]
    found: list[Callable[..., Any]] = [
        value
        for name, value in vars(module).items()
        if inspect.isfunction(value)
        and value.__module__ == module.__name__
        and not name.startswith("_")
    ]
    if not found:
        raise UnreadableToolList(f"{module_name!r} defines no public function")
    return found


def _raised(module_name: str, exc: BaseException, root: Path) -> str:
    """What the module raised, and where in its own code (the import machinery left out)."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if not frame.filename.startswith("<")
        and Path(frame.filename).parent != Path(importlib.__file__).parent
        and Path(frame.filename) != Path(__file__)
    ]
    where = "".join(
        f"\n  {_near(frame.filename, root)}:{frame.lineno} in {frame.name}" for frame in frames
    )
    return f"importing {module_name!r} raised {type(exc).__name__}: {exc}{where}"


def _near(filename: str, root: Path) -> str:
    try:
        return Path(filename).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return filename


def tools_of(functions: list[Callable[..., Any]], notes: Notes) -> list[dict[str, Any]]:
    return [_tool(function, ("tools", i), notes) for i, function in enumerate(functions)]


def _tool(function: Callable[..., Any], where: JsonPath, notes: Notes) -> dict[str, Any]:
    doc = docstring_parser.parse(inspect.getdoc(function) or "")
    described = {p.arg_name: (p.description or "").strip() for p in doc.params}
    hints = typing.get_type_hints(function, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(function).parameters.items():
        path = (*where, "parameters", "properties", name)
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            notes.add(path, f"`{parameter}` takes what no schema can name: left out")
            continue
        if name not in hints:
            notes.add(path, "no annotation: any value")
        schema = _schema(hints.get(name, Any), path, notes)
        if described.get(name):
            schema = {**schema, "description": described[name]}
        if parameter.default is parameter.empty:
            required.append(name)
        elif _json(parameter.default):
            schema["default"] = _plain(parameter.default)
        properties[name] = schema
    description = "\n\n".join(
        part for part in (doc.short_description, doc.long_description) if part
    ).strip()
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return {"name": function.__name__, "description": description, "parameters": parameters}


def _schema(hint: Any, path: JsonPath, notes: Notes) -> dict[str, Any]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        schema = _schema(args[0], path, notes)
        text = next((a for a in args[1:] if isinstance(a, str)), None)
        return {**schema, "description": text} if text else schema
    if hint in PYTHON_SCALARS:
        return dict(PYTHON_SCALARS[hint])
    if hint is Any or hint is object:
        return {}
    if origin is typing.Literal:
        return enum_schema(list(args))
    if origin in (typing.Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        nullable = len(members) < len(args)
        if len(members) == 1:
            schema = _schema(members[0], path, notes)
            return _nullable(schema) if nullable else schema
        union = {"anyOf": [_schema(m, path, notes) for m in members]}
        return {"anyOf": [*union["anyOf"], {"type": "null"}]} if nullable else union
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return enum_schema([member.value for member in hint])
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _object_of(hint, path, notes)
    if typing.is_typeddict(hint):
        return _typed_dict(hint, path, notes)
    if origin in (list, tuple, set, frozenset, Sequence) or hint in (list, tuple, set):
        items = [a for a in args if a is not Ellipsis]
        schema = {"type": "array"}
        if len(set(items)) == 1:
            schema["items"] = _schema(items[0], (*path, "items"), notes)
        elif items:
            schema["items"] = {"anyOf": [_schema(a, (*path, "items"), notes) for a in items]}
        return schema
    if origin in (dict, Mapping) or hint is dict:
        schema = {"type": "object"}
        if len(args) == 2 and args[1] is not Any:
            schema["additionalProperties"] = _schema(args[1], path, notes)
        return schema
    notes.add(path, f"type {hint!r} has no JSON Schema here: any value")
    return {}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if isinstance(schema.get("type"), str):
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _object_of(cls: type, path: JsonPath, notes: Notes) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, include_extras=True)
    doc = docstring_parser.parse(inspect.getdoc(cls) or "")
    described = {p.arg_name: (p.description or "").strip() for p in doc.params}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        schema = _schema(hints[field.name], (*path, "properties", field.name), notes)
        if described.get(field.name):
            schema["description"] = described[field.name]
        if field.default is not dataclasses.MISSING and _json(field.default):
            schema["default"] = _plain(field.default)
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            required.append(field.name)
        properties[field.name] = schema
    return _object(properties, required, doc.short_description)


def _typed_dict(cls: type, path: JsonPath, notes: Notes) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, include_extras=True)
    properties = {
        name: _schema(hint, (*path, "properties", name), notes) for name, hint in hints.items()
    }
    required = [name for name in hints if name in getattr(cls, "__required_keys__", ())]
    return _object(properties, required, None)


def _object(
    properties: dict[str, Any], required: list[str], description: str | None
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    if description:
        schema["description"] = description
    schema["properties"] = properties
    if required:
        schema["required"] = required
    return schema


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def _json(value: Any) -> bool:
    value = _plain(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return True
    if isinstance(value, (list, tuple)):
        return all(_json(v) for v in value)
    return isinstance(value, dict) and all(
        isinstance(k, str) and _json(v) for k, v in value.items()
    )

"""A deterministic corpus for the parse benchmark: a catalog of tools shaped like real ones, and calls.

Tools are flat, with enums and defaults, with a nested object, or with arrays of objects. Each tool
gets clean calls (exactly the declared types) and calls with the slips models make: numbers and
booleans as strings, a scalar for a list, an enum in the wrong case, double-encoded arguments,
an unknown key.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

VERBS = ["get", "list", "create", "update", "delete", "search", "send", "fetch", "sync", "archive"]
NOUNS = [
    "issue",
    "event",
    "file",
    "message",
    "user",
    "order",
    "invoice",
    "ticket",
    "page",
    "report",
]
WORDS = ["alpha", "beta", "gamma", "delta", "omega", "north", "south", "red", "blue", "green"]


@dataclass(frozen=True)
class Call:
    tool: str
    raw: str
    slipped: bool


def catalog(tools: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    entries = []
    for index in range(tools):
        name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}_{index}"
        shape = ("flat", "enums", "nested", "arrays")[index % 4]
        entries.append(
            {
                "name": name,
                "description": f"{name.replace('_', ' ')}.",
                "parameters": _parameters(rng, shape),
            }
        )
    return {"name": "bench_tools", "tools": entries}


def _scalar(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(["string", "string", "integer", "number", "boolean"])
    schema: dict[str, Any] = {"type": kind, "description": f"A {kind}."}
    if kind == "integer" and rng.random() < 0.5:
        schema.update(minimum=0, maximum=10_000)
    if kind == "string" and rng.random() < 0.3:
        schema["maxLength"] = 200
    return schema


def _object(rng: random.Random, count: int, optional_defaults: bool = True) -> dict[str, Any]:
    properties = {f"{rng.choice(WORDS)}{i}": _scalar(rng) for i in range(count)}
    names = list(properties)
    required = names[: max(1, count // 2)]
    if optional_defaults:
        for name in names[len(required) :]:
            if rng.random() < 0.5:
                properties[name]["default"] = _value(properties[name], rng)
    return {"type": "object", "properties": properties, "required": required}


def _parameters(rng: random.Random, shape: str) -> dict[str, Any]:
    root = _object(rng, rng.randint(2, 6))
    if shape == "enums":
        values = rng.sample(WORDS, rng.randint(3, 5))
        root["properties"]["mode"] = {
            "type": "string",
            "enum": values,
            "default": values[0],
            "description": "How.",
        }
        root["properties"]["order"] = {
            "type": "string",
            "enum": ["asc", "desc"],
            "description": "Order.",
        }
    if shape == "nested":
        root["properties"]["options"] = {
            **_object(rng, rng.randint(2, 4)),
            "description": "Options.",
        }
        root["required"].append("options")
    if shape == "arrays":
        root["properties"]["tags"] = {
            "type": "array",
            "items": {"type": "string"},
            "description": "Tags.",
        }
        root["properties"]["items"] = {
            "type": "array",
            "items": _object(rng, 3, optional_defaults=False),
            "description": "Items.",
        }
    return root


def _value(schema: dict[str, Any], rng: random.Random) -> Any:
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        return f"{rng.choice(WORDS)} {rng.randint(1, 999)}"
    if kind == "integer":
        return rng.randint(0, 10_000)
    if kind == "number":
        return round(rng.uniform(0, 100), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [_value(schema["items"], rng) for _ in range(rng.randint(1, 3))]
    return {
        name: _value(sub, rng)
        for name, sub in schema["properties"].items()
        if name in schema["required"] or rng.random() < 0.6
    }


def _slip(args: dict[str, Any], schema: dict[str, Any], rng: random.Random) -> str:
    """The same arguments as a model might get them wrong."""
    slipped = dict(args)
    for name, sub in schema["properties"].items():
        if name not in slipped:
            continue
        value = slipped[name]
        if sub.get("type") in ("integer", "number") and "enum" not in sub:
            slipped[name] = str(value)
        elif sub.get("type") == "boolean":
            slipped[name] = "true" if value else "false"
        elif "enum" in sub:
            slipped[name] = str(value).upper()
        elif sub.get("type") == "array" and sub["items"].get("type") == "string" and value:
            slipped[name] = value[0]
    kind = rng.random()
    if kind < 0.25:
        return json.dumps(json.dumps(slipped))
    if kind < 0.5:
        slipped["note"] = "an unknown key"
    return json.dumps(slipped)


def calls(data: dict[str, Any], per_tool: int = 2, seed: int = 11) -> list[Call]:
    rng = random.Random(seed)
    out = []
    for tool in data["tools"]:
        for _ in range(per_tool):
            args = _value(tool["parameters"], rng)
            out.append(Call(tool["name"], json.dumps(args), False))
            out.append(Call(tool["name"], _slip(args, tool["parameters"], rng), True))
    return out

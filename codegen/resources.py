"""Find the templates and the catalog meta-schema, in a wheel or in a source checkout."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent


def _locate(in_wheel: Path, in_checkout: Path) -> Path:
    # A wheel carries these inside the package (see pyproject's force-include); a checkout keeps
    # them at the repository root, where the mandated layout puts them.
    return in_wheel if in_wheel.exists() else in_checkout


def templates_dir() -> Path:
    return _locate(_PACKAGE / "templates", _PACKAGE.parent / "templates")


def meta_schema_path() -> Path:
    return _locate(
        _PACKAGE / "catalog.schema.json", _PACKAGE.parent / "schemas" / "catalog.schema.json"
    )


@cache
def catalog_meta_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(meta_schema_path().read_text(encoding="utf-8"))
    return schema

"""Find the templates and the catalog meta-schema, in a wheel or in a source checkout."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

_PACKAGE = Path(__file__).resolve().parent


def _locate(in_wheel: Path, in_checkout: Path) -> Path:
    # A wheel carries these inside the package (see pyproject's force-include); a checkout keeps
    # them at the repository root, where the mandated layout puts them.
    return in_wheel if in_wheel.exists() else in_checkout


def templates_dir() -> Path:
    return _locate(_PACKAGE / "templates", _PACKAGE.parent / "templates")


def template_environment(**options: Any) -> jinja2.Environment:
    """A jinja2 environment of codegen's templates. Compiling them took a tenth of a rebuild, so
    the compiled code is kept where jinja2 keeps it by default: a directory of the user's own
    (mode 0700, its owner checked) in the system's temporary directory, never in the project,
    whose files a pull request could plant. Entries are checked against the template's text."""
    try:
        compiled: jinja2.BytecodeCache | None = jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):  # no safe directory: compile each time
        compiled = None
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        bytecode_cache=compiled,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        **options,
    )


def meta_schema_path() -> Path:
    return _locate(
        _PACKAGE / "catalog.schema.json", _PACKAGE.parent / "schemas" / "catalog.schema.json"
    )


@cache
def catalog_meta_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(meta_schema_path().read_text(encoding="utf-8"))
    return schema

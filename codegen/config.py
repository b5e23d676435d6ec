"""`[tool.codegen]` in pyproject.toml: where catalogs are and where output goes."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

DEFAULT_SOURCES = ("schemas",)
DEFAULT_OUT = "generated"


class ConfigError(Exception):
    pass


@dataclass(frozen=True)
class Config:
    sources: tuple[Path, ...]
    out: Path


def load_config(project: Path) -> Config:
    """The settings of the project in `project`; defaults where pyproject.toml says nothing."""
    pyproject = project / "pyproject.toml"
    table: dict[str, object] = {}
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{pyproject.name}: {exc}") from None
        found = data.get("tool", {}).get("codegen", {})
        if not isinstance(found, dict):
            raise ConfigError(f"{pyproject.name}: [tool.codegen] must be a table")
        table = found
    sources = table.get("sources", list(DEFAULT_SOURCES))
    out = table.get("out", DEFAULT_OUT)
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise ConfigError(f"{pyproject.name}: [tool.codegen] sources must be a list of paths")
    if not isinstance(out, str):
        raise ConfigError(f"{pyproject.name}: [tool.codegen] out must be a path")
    return Config(tuple(project / s for s in sources), project / out)

"""`[tool.codegen]` in pyproject.toml: where catalogs are, where output goes, which findings
count and which providers' payloads are emitted."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from codegen.diagnostics import CODES
from codegen.outputs import PROVIDERS

DEFAULT_SOURCES = ("schemas",)
DEFAULT_OUT = "generated"


class ConfigError(Exception):
    pass


_KEYS = frozenset({"sources", "out", "strict", "ignore", "providers"})


@dataclass(frozen=True)
class Config:
    root: Path  # the project: where pyproject.toml is; paths in output are relative to it
    sources: tuple[Path, ...]
    out: Path
    strict: bool = False  # every build warning is an error
    ignore: frozenset[str] = frozenset()  # finding codes (CG...) never shown nor counted
    providers: tuple[str, ...] = tuple(PROVIDERS)  # whose payloads are emitted


def find_project(start: Path) -> Path:
    """The nearest directory from `start` upwards with a pyproject.toml, else `start` itself."""
    for directory in (start, *start.parents):
        if (directory / "pyproject.toml").is_file():
            return directory
    return start


def load_config(start: Path) -> Config:
    """The settings of the project around `start`; defaults where pyproject.toml says nothing."""
    project = find_project(start.resolve())
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
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(
            f"{pyproject.name}: unknown key(s) in [tool.codegen]: {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})"
        )
    sources = table.get("sources", list(DEFAULT_SOURCES))
    out = table.get("out", DEFAULT_OUT)
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise ConfigError(f"{pyproject.name}: [tool.codegen] sources must be a list of paths")
    if not isinstance(out, str):
        raise ConfigError(f"{pyproject.name}: [tool.codegen] out must be a path")
    strict = table.get("strict", False)
    if not isinstance(strict, bool):
        raise ConfigError(f"{pyproject.name}: [tool.codegen] strict must be true or false")
    ignore = table.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(c, str) for c in ignore):
        raise ConfigError(f"{pyproject.name}: [tool.codegen] ignore must be a list of codes")
    unknown = sorted(set(ignore) - set(CODES))
    if unknown:
        raise ConfigError(
            f"{pyproject.name}: [tool.codegen] ignore: unknown code(s) {', '.join(unknown)} "
            "(the README's table lists them)"
        )
    if "CG000" in ignore:
        raise ConfigError(
            f"{pyproject.name}: [tool.codegen] ignore: CG000 is an error, which cannot be ignored"
        )
    providers = table.get("providers", list(PROVIDERS))
    if not isinstance(providers, list) or not all(p in PROVIDERS for p in providers):
        raise ConfigError(
            f"{pyproject.name}: [tool.codegen] providers must be a list of: {', '.join(PROVIDERS)}"
        )
    return Config(
        project,
        tuple(_shown(project / s) for s in sources),
        _shown(project / out),
        strict,
        frozenset(ignore),
        tuple(p for p in PROVIDERS if p in providers),
    )


def _shown(path: Path) -> Path:
    # Relative to the working directory when inside it, so messages read `generated/...`.
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path

"""Compare the in-memory build with the output directory, or write it: atomically, owned files only.

The manifest in the output directory lists every file a build wrote and the catalog source it came
from. Only files listed there are ever removed, so files a person put beside them are safe.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from codegen import __version__
from codegen.build import BuildResult

MANIFEST = ".codegen-manifest.json"


@dataclass
class Plan:
    """What a build changes in the output directory."""

    stale: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.stale or self.missing or self.orphaned)


def manifest_text(owners: dict[str, str]) -> str:
    data = {"generator": f"codegen {__version__}", "files": dict(sorted(owners.items()))}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def read_manifest(out: Path) -> dict[str, str]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def expected_files(result: BuildResult, out: Path) -> dict[str, str]:
    """The build's files plus the manifest, which keeps the entries of catalogs not built this time."""
    previous = read_manifest(out)
    built_sources = set(result.owners.values())
    kept = {
        path: source
        for path, source in previous.items()
        if source not in built_sources and Path(source).exists() and path not in result.files
    }
    files = dict(result.files)
    files[MANIFEST] = manifest_text({**kept, **result.owners})
    return files


def plan(result: BuildResult, out: Path) -> Plan:
    files = expected_files(result, out)
    previous = read_manifest(out)
    built_sources = set(result.owners.values())
    outcome = Plan()
    for path, text in sorted(files.items()):
        target = out / path
        if not target.exists():
            outcome.missing.append(path)
        elif target.read_bytes() != text.encode("utf-8"):
            outcome.stale.append(path)
        else:
            outcome.unchanged.append(path)
    for path, source in sorted(previous.items()):
        # A file is ours to remove when the catalog that made it was rebuilt without it, or is gone.
        if (
            path not in files
            and (source in built_sources or not Path(source).exists())
            and (out / path).exists()
        ):
            outcome.orphaned.append(path)
    return outcome


def write(result: BuildResult, out: Path) -> Plan:
    outcome = plan(result, out)
    files = expected_files(result, out)
    for path in outcome.missing + outcome.stale:
        if path != MANIFEST:
            _write_atomic(out / path, files[path])
    for path in outcome.orphaned:
        (out / path).unlink(missing_ok=True)
        _remove_empty_parents((out / path).parent, out)
    # Last, so an interrupted write is seen as stale and finished by the next build.
    if MANIFEST in outcome.missing or MANIFEST in outcome.stale:
        _write_atomic(out / MANIFEST, files[MANIFEST])
    return outcome


def _write_atomic(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove_empty_parents(directory: Path, stop: Path) -> None:
    while directory != stop and directory.is_dir():
        leftovers = [p for p in directory.iterdir() if p.name != "__pycache__"]
        if leftovers:
            return
        for cache in directory.iterdir():
            for item in cache.iterdir():
                item.unlink()
            cache.rmdir()
        directory.rmdir()
        directory = directory.parent

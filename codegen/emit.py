"""Compare the in-memory build with the output directory, or write it: atomically, owned files only.

The manifest in the output directory lists every file a build wrote and the catalog source it came
from (relative to the project root). Only files listed there, inside the output directory, are ever
removed, so files a person put beside them are safe.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from codegen import __version__
from codegen.build import BuildResult

MANIFEST = ".codegen-manifest.json"


@dataclass
class Plan:
    """What a build changes in the output directory, and the full text it should hold."""

    files: dict[str, str] = field(default_factory=dict)
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
    """The previous build's files; entries that would point outside `out` are never trusted."""
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    if not isinstance(files, dict):
        return {}
    return {str(k): str(v) for k, v in files.items() if _inside(str(k))}


def _inside(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return (
        bool(parts)
        and not PurePosixPath(path).is_absolute()
        and ".." not in parts
        and "\\" not in path
    )


def plan(result: BuildResult, out: Path, root: Path) -> Plan:
    """Compare the build with `out`. Sources in the manifest are resolved from the project `root`."""
    previous = read_manifest(out)
    built = set(result.owners.values())

    def ours_to_drop(source: str) -> bool:
        # The catalog that made a file was rebuilt (without it), or no longer exists.
        return source in built or not (root / source).exists()

    kept = {p: s for p, s in previous.items() if not ours_to_drop(s) and p not in result.files}
    outcome = Plan(files={**result.files, MANIFEST: manifest_text({**kept, **result.owners})})
    for path, text in sorted(outcome.files.items()):
        target = out / path
        if not target.exists():
            outcome.missing.append(path)
        elif target.read_bytes() != text.encode("utf-8"):
            outcome.stale.append(path)
        else:
            outcome.unchanged.append(path)
    for path, source in sorted(previous.items()):
        if path not in outcome.files and ours_to_drop(source) and (out / path).is_file():
            outcome.orphaned.append(path)
    return outcome


def write(result: BuildResult, out: Path, root: Path) -> Plan:
    """Bring `out` in line with the build: every changed file is staged first, then all swapped in."""
    outcome = plan(result, out, root)
    changed = [p for p in outcome.missing + outcome.stale if p != MANIFEST]
    staged: list[tuple[str, Path]] = []
    try:
        for path in changed:
            staged.append((_stage(out / path, outcome.files[path]), out / path))
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    for tmp, target in staged:
        os.replace(tmp, target)
    for path in outcome.orphaned:
        (out / path).unlink(missing_ok=True)
        _remove_empty_parents((out / path).parent, out)
    # Last, so an interrupted write is seen as stale and finished by the next build.
    if MANIFEST in outcome.missing or MANIFEST in outcome.stale:
        os.replace(_stage(out / MANIFEST, outcome.files[MANIFEST]), out / MANIFEST)
    return outcome


def _stage(target: Path, text: str) -> str:
    """Write `text` beside `target` under a temporary name, with the mode a new file would get."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes files only their owner can read
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


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

"""Compare the in-memory build with the output directory, or write it: whole, owned files only.

The manifest in the output directory lists every file a build wrote and the catalog source it came
from (relative to the project root). Only files listed there, inside the output directory, are ever
removed, so files a person put beside them are safe.

A build never writes into the output directory in place. It makes the whole new tree in a work
directory beside it (`.generated.codegen-build/`, which tells git to ignore it): unchanged files
as hard links, changed ones written, removed ones left out; then swaps the two directories in one
step (Linux's `renameat2(RENAME_EXCHANGE)`) and deletes the old tree. A build killed at any moment
leaves the old tree or the new one, never a mix, and the next build removes its work directory.
Builds into one directory take turns (a lock on the directory that holds it). Every file is read,
written, renamed and removed through `guarded_fs`, which follows no symbolic link: a link where
the build reads, writes or removes is an error, and so is an output directory that is or holds
the project, the working directory, the cache or a source.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from codegen import __version__
from codegen.build import BuildResult
from codegen.cache import DIRECTORY
from codegen.guarded_fs import Folder, LinkRefused, Tree, UnsafeOutput, holder, shown, unsafe_output
from codegen.memory import BuildMemory, Stamp, stamp
from codegen.package_files import Files

MANIFEST = ".codegen-manifest.json"
WORK = ".{}.codegen-build"  # beside the output directory named in the braces


class OutputError(Exception):
    """The output directory cannot be written safely or at all; nothing of it was changed."""


@dataclass
class Plan:
    """What a build changes in the output directory, and every file it should hold."""

    files: Files = field(default_factory=Files)
    stale: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    # Left by interrupted builds: in the output directory, or beside it.
    debris: list[Path] = field(default_factory=list)
    # Unchanged files not written to for a while, with their bytes and stamp (`BuildMemory`).
    settled: dict[str, tuple[bytes, Stamp]] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not (self.stale or self.missing or self.orphaned or self.debris)


def manifest_text(owners: dict[str, str]) -> str:
    data = {"generator": f"codegen {__version__}", "files": dict(sorted(owners.items()))}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def plan(result: BuildResult, out: Path, root: Path, memory: BuildMemory | None = None) -> Plan:
    """Compare the build with `out`. Sources in the manifest are resolved from the project `root`.
    With the `memory` of this process's last build, a file that is still the one it found, with
    the bytes it had then, is not read again."""
    refuse_unsafe_output(out, root, [root / source for source in set(result.owners.values())])
    held = holder(out, root)
    if held is None:
        return _plan(result, out, root, memory, None, "")
    with held[0] as parent:
        return _plan(result, out, root, memory, parent, held[1])


def refuse_unsafe_output(out: Path, root: Path, sources: list[Path]) -> None:
    """A build replaces its whole output directory: not one that is or holds the project, the
    working directory, the cache or a source (`guarded_fs.unsafe_output`)."""
    kept = {"the project": root, "the build cache": root / DIRECTORY}
    kept.update({f"the source {shown(source)}": source for source in sources})
    reason = unsafe_output(out, kept)
    if reason is not None:
        raise UnsafeOutput(reason)


def _plan(
    result: BuildResult,
    out: Path,
    root: Path,
    memory: BuildMemory | None,
    parent: Folder | None,
    name: str,
) -> Plan:
    settled = memory.written.get(os.fspath(out), {}) if memory is not None else {}
    # A file written less than two seconds before may change again within the same tick of the
    # file system's clock (FAT's is two seconds), its stamp unchanged: it is read by the next
    # build, and settled then.
    quiet = time.time_ns() - 2 * 10**9
    built = set(result.owners.values())

    def ours_to_drop(source: str) -> bool:
        # The catalog that made a file was rebuilt (without it), or no longer exists.
        return source in built or not (root / source).exists()

    if parent is not None and parent.kind(name) not in (None, stat.S_IFDIR):
        # A swap would put the file aside and the sweep delete it: a file is the user's.
        raise OutputError(f"{shown(out)} is a file: the output must be a directory of its own")
    outcome = Plan(files=result.files.copy())
    with Tree(None if parent is None else parent.folder(name)) as tree:
        previous = read_manifest(tree)
        kept = {p: s for p, s in previous.items() if not ours_to_drop(s) and p not in result.files}
        outcome.files[MANIFEST] = manifest_text({**kept, **result.owners})
        for path in sorted(outcome.files):
            data = outcome.files.data(path)
            found = tree.lstat(path)
            if found is None:
                outcome.missing.append(path)
                continue
            last = settled.get(path)
            if stat.S_ISREG(found.st_mode) and (
                (last is not None and last[1] == stamp(found) and last[0] == data)
                or _same_bytes(tree, path, data, found.st_size)
            ):
                outcome.unchanged.append(path)
                if found.st_mtime_ns < quiet:
                    outcome.settled[path] = (data, stamp(found))
            else:
                outcome.stale.append(path)
        for path, source in sorted(previous.items()):
            # A build writes files only: an entry that names a directory (a hand-edited manifest)
            # would leave out everything under it, the files this build makes there too.
            if path not in outcome.files and ours_to_drop(source):
                found = tree.lstat(path)
                if found is not None and stat.S_ISREG(found.st_mode):
                    outcome.orphaned.append(path)
        _refuse_linked_bytecode(tree, outcome.orphaned)
        outcome.debris = _debris(out, parent, tree, outcome.files)
    return outcome


def _refuse_linked_bytecode(tree: Tree, orphaned: list[str]) -> None:
    """A directory left empty by the files removed goes, with the bytecode in its `__pycache__`
    (`_remove_empty_parents`): a link there is refused now, before anything is written, named
    where it is in the output."""
    directories = {path.rpartition("/")[0] for path in orphaned}
    for directory in list(directories):
        while directory:
            directory = directory.rpartition("/")[0]
            directories.add(directory)
    for directory in sorted(directories - {""}):
        folder = tree.folder(directory)
        if folder is not None:
            folder.kind("__pycache__")


def write(result: BuildResult, out: Path, root: Path, memory: BuildMemory | None = None) -> Plan:
    """Bring `out` in line with the build: the new tree is made beside it, then swapped in whole.
    The `memory` of a process that builds again keeps the files found unchanged (`plan`)."""
    refuse_unsafe_output(out, root, [root / source for source in set(result.owners.values())])
    with output_lock(out, root) as (parent, name):
        try:
            outcome = _plan(result, out, root, memory, parent, name)
        except (OutputError, LinkRefused) as exc:
            raise OutputError(f"{exc}; nothing was written") from None
        if memory is not None:
            # Hard links in the new tree keep each unchanged file's inode and times.
            memory.written[os.fspath(out)] = outcome.settled
        if outcome.clean:
            return outcome
        work = _work_name(out)
        try:
            _sweep(parent, work, name)
            with _start(parent, work) as folder:
                _stage(out, outcome, parent, name, folder)
                _swap(parent, name, folder)
            _sweep(parent, work, name)
        except LinkRefused as exc:
            _sweep_quietly(parent, work, name)
            raise OutputError(f"{exc}; the previous output is unchanged") from None
        except OSError as exc:
            _sweep_quietly(parent, work, name)
            raise OutputError(os_message(exc) + "; the previous output is unchanged") from None
    return outcome


def os_message(exc: OSError) -> str:
    name = errno.errorcode.get(exc.errno or 0, "")
    where = f"{shown(exc.filename)}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}" + (f" ({name})" if name else "")


def read_manifest(tree: Tree) -> dict[str, str]:
    """The previous build's files; entries that would point outside the output are never
    trusted."""
    try:
        found = tree.lstat(MANIFEST)
        if found is None or not stat.S_ISREG(found.st_mode):
            return {}
        data = json.loads(tree.read(MANIFEST).decode("utf-8"))
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    if not isinstance(files, dict):
        return {}
    return {str(k): str(v) for k, v in files.items() if _inside(str(k))}


def _inside(path: str) -> bool:
    # A file the build made: relative, "/"-separated, with no empty, "." or ".." part.
    return "\\" not in path and all(part not in ("", ".", "..") for part in path.split("/"))


def work_directory(out: Path) -> Path:
    """The work directory beside `out`, named after it as it resolves (`--out .` is named after
    the directory it is, and beside it, never inside it)."""
    return Path(os.path.abspath(out)).parent / _work_name(out)


def _work_name(out: Path) -> str:
    return WORK.format(os.path.basename(os.path.abspath(out)))


def _same_bytes(tree: Tree, path: str, data: bytes, size: int) -> bool:
    if len(data) != size:
        return False  # a file of another size is not read (the payload files are megabytes)
    # One byte more than expected tells a longer file from an equal one.
    return tree.read(path, len(data) + 1) == data


# -- what interrupted builds leave -----------------------------------------------------------

# An earlier codegen wrote `.NAME.RANDOM.tmp` beside each file, and a killed build left them.
_OLD_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[A-Za-z0-9_]{8}\.tmp")


def _debris(out: Path, parent: Folder | None, tree: Tree, files: Files) -> list[Path]:
    found: list[Path] = []
    if parent is not None and parent.kind(_work_name(out)) is not None:
        found.append(work_directory(out))
    # Strings, not paths: this runs over every file of the output.
    directories = {path.rpartition("/")[0] for path in files}
    for directory in sorted(directories):
        folder = tree.folder(directory)
        if folder is None:
            continue
        prefix = f"{directory}/" if directory else ""
        for name in sorted(folder.names()):
            match = _OLD_TEMPORARY.fullmatch(name)
            if match and prefix + match["name"] in files:
                found.append(out / directory / name)
    return found


def _start(parent: Folder, work: str) -> Folder:
    """The new work directory `work` in `parent`, opened."""
    parent.make(work)
    folder = parent.folder(work)
    assert folder is not None  # made just now, under the lock
    # Git ignores a folder that ignores everything in it, so a killed build leaves nothing to add:
    # the marker must appear whole, since an empty one (a build killed between creating and
    # writing it) is a file git shows, where an empty folder is not.
    folder.create_whole(".gitignore", b"# A codegen build at work.\n*\n")
    return folder


def _sweep(parent: Folder, work: str, out: str) -> None:
    """Remove the work directory; when a build stopped between its two renames (where the
    one-step swap is not available), put the previous tree back first."""
    kind = parent.kind(work)
    if kind is None:
        return
    if kind == stat.S_IFDIR:
        folder = parent.folder(work)
        assert folder is not None
        with folder:
            if parent.lstat(out) is None and folder.kind("previous") == stat.S_IFDIR:
                folder.rename("previous", parent, out)
            for item in folder.names():
                folder.kind(item)  # only codegen makes these: a link was planted, and is refused
                if item != ".gitignore":
                    folder.remove(item)
    # The marker goes last: until then git ignores what is left.
    parent.remove(work)


def _sweep_quietly(parent: Folder, work: str, out: str) -> None:
    try:
        _sweep(parent, work, out)
    except (OSError, LinkRefused):
        pass  # the error being reported matters more; the next build sweeps again


# -- the new tree, and the swap --------------------------------------------------------------


def _stage(out: Path, outcome: Plan, parent: Folder, name: str, work: Folder) -> None:
    """The new output tree as `next` in the work directory: what `out` holds (without our removed
    files and debris) as hard links, the links a person put there as links, then every changed
    file written."""
    changed = set(outcome.missing) | set(outcome.stale)
    leave_out = set(outcome.orphaned) | changed
    leave_out |= {p.relative_to(out).as_posix() for p in outcome.debris if p != work_directory(out)}
    work.make("next")
    with Tree(work.folder("next"), make=True) as staged:
        assert staged.top is not None  # made just now, under the lock
        current = parent.folder(name)
        if current is not None:
            with current:
                os.fchmod(staged.top.fd, stat.S_IMODE(os.fstat(current.fd).st_mode))
                current.copy_tree(staged.top, leave_out)
        for path in sorted(changed):
            directory, _, file = path.rpartition("/")
            folder = staged.folder(directory)
            assert folder is not None  # made where missing
            folder.remove(file)  # a directory where this file goes
            folder.write_new(file, outcome.files.data(path))
        for path in outcome.orphaned:
            _remove_empty_parents(staged.top, path.rpartition("/")[0])


def _remove_empty_parents(staged: Folder, directory: str) -> None:
    """Remove `directory` in the new tree and each above it left with no file of their own: the
    bytecode an import left in their `__pycache__` goes with them. A link there is refused,
    never entered (one planted at `__pycache__` led to the files it points to)."""
    while directory:
        above, _, name = directory.rpartition("/")
        holding = staged.walk(above)
        if holding is None:
            return
        with holding:
            folder = holding.folder(name)
            if folder is None:
                return
            with folder:
                names = folder.names()
                if any(item != "__pycache__" for item in names):
                    return
                if names:
                    folder.kind("__pycache__")  # a link is refused
                    folder.remove("__pycache__")
            holding.remove_empty(name)
        directory = above


def _swap(parent: Folder, name: str, work: Folder) -> None:
    if parent.lstat(name) is None:
        work.rename("next", parent, name)
    elif not work.exchange("next", parent, name):
        # Two steps where the one-step swap is missing: a build stopped between them is finished
        # by the next one (_sweep puts the previous tree back).
        parent.rename(name, work, "previous")
        work.rename("next", parent, name)


# -- one build at a time ---------------------------------------------------------------------


@contextmanager
def output_lock(out: Path, root: Path) -> Iterator[tuple[Folder, str]]:
    """Hold the lock of builds into `out` (on the directory that holds it: `out` itself is
    swapped), and that directory, opened, with `out`'s name in it. A second build waits, and
    says so."""
    try:
        held = holder(out, root, make=True)
    except LinkRefused as exc:
        raise OutputError(f"{exc}; nothing was written") from None
    assert held is not None  # made where missing
    with held[0] as parent:
        try:
            import fcntl
        except ImportError:  # Windows: builds into one directory are not serialized
            yield held
            return
        try:
            fcntl.flock(parent.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(
                f"codegen: waiting for another build into {shown(out)} to finish",
                file=sys.stderr,
                flush=True,
            )
            fcntl.flock(parent.fd, fcntl.LOCK_EX)
        yield held  # closing the directory releases the lock

"""Compare the in-memory build with the output directory, or write it: whole, owned files only.

The manifest in the output directory lists every file a build wrote and the catalog source it came
from (relative to the project root). Only files listed there, inside the output directory, are ever
removed, so files a person put beside them are safe.

A build never writes into the output directory in place. It makes the whole new tree in a work
directory beside it (`.generated.codegen-build/`, which tells git to ignore it): unchanged files
as hard links, changed ones written, removed ones left out; then swaps the two directories in one
step (Linux's `renameat2(RENAME_EXCHANGE)`) and deletes the old tree. A build killed at any moment
leaves the old tree or the new one, never a mix, and the next build removes its work directory.
Builds into one directory take turns (a lock on the directory that holds it). No path is followed
through a symbolic link: a link where the build writes or removes a file is an error.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import shutil
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from codegen import __version__
from codegen.build import BuildResult
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


def read_manifest(out: Path) -> dict[str, str]:
    """The previous build's files; entries that would point outside `out` are never trusted."""
    try:
        data = json.loads(_read_inside(out, MANIFEST) or "")
        files = data["files"]
    except (ValueError, KeyError, TypeError):
        return {}
    if not isinstance(files, dict):
        return {}
    return {str(k): str(v) for k, v in files.items() if _inside(str(k))}


def _inside(path: str) -> bool:
    # A file the build made: relative, "/"-separated, with no empty, "." or ".." part.
    return "\\" not in path and all(part not in ("", ".", "..") for part in path.split("/"))


def work_directory(out: Path) -> Path:
    return out.parent / WORK.format(out.name)


def plan(result: BuildResult, out: Path, root: Path, memory: BuildMemory | None = None) -> Plan:
    """Compare the build with `out`. Sources in the manifest are resolved from the project `root`.
    With the `memory` of this process's last build, a file that is still the one it found, with
    the bytes it had then, is not read again."""
    _refuse_linked_output(out)
    settled = memory.written.get(os.fspath(out), {}) if memory is not None else {}
    # A file written less than two seconds before may change again within the same tick of the
    # file system's clock (FAT's is two seconds), its stamp unchanged: it is read by the next
    # build, and settled then.
    quiet = time.time_ns() - 2 * 10**9
    previous = read_manifest(out)
    built = set(result.owners.values())

    def ours_to_drop(source: str) -> bool:
        # The catalog that made a file was rebuilt (without it), or no longer exists.
        return source in built or not (root / source).exists()

    kept = {p: s for p, s in previous.items() if not ours_to_drop(s) and p not in result.files}
    outcome = Plan(files=result.files.copy())
    outcome.files[MANIFEST] = manifest_text({**kept, **result.owners})
    directories: dict[str, int | None] = {}  # each directory's kind, looked up once
    for path in sorted(outcome.files):
        data = outcome.files.data(path)
        found = _lstat(out, path, directories)
        if found is None:
            outcome.missing.append(path)
            continue
        last = settled.get(path)
        if stat.S_ISREG(found.st_mode) and (
            (last is not None and last[1] == stamp(found) and last[0] == data)
            or _same_bytes(out, path, data, found.st_size)
        ):
            outcome.unchanged.append(path)
            if found.st_mtime_ns < quiet:
                outcome.settled[path] = (data, stamp(found))
        else:
            outcome.stale.append(path)
    for path, source in sorted(previous.items()):
        # A build writes files only: an entry that names a directory (a hand-edited manifest)
        # would leave out everything under it, the files this build makes there too.
        if (
            path not in outcome.files
            and ours_to_drop(source)
            and _status(out, path, directories) == stat.S_IFREG
        ):
            outcome.orphaned.append(path)
    outcome.debris = _debris(out, outcome.files)
    return outcome


def write(result: BuildResult, out: Path, root: Path, memory: BuildMemory | None = None) -> Plan:
    """Bring `out` in line with the build: the new tree is made beside it, then swapped in whole.
    The `memory` of a process that builds again keeps the files found unchanged (`plan`)."""
    with output_lock(out):
        try:
            outcome = plan(result, out, root, memory)
        except OutputError as exc:
            raise OutputError(f"{exc}; nothing was written") from None
        if memory is not None:
            # Hard links in the new tree keep each unchanged file's inode and times.
            memory.written[os.fspath(out)] = outcome.settled
        if outcome.clean:
            return outcome
        work = work_directory(out)
        try:
            _sweep(work, out)
            _start(work)
            _swap(_stage(out, outcome, work / "next"), out, work)
            _sweep(work, out)
        except OSError as exc:
            _sweep_quietly(work, out)
            raise OutputError(os_message(exc) + "; the previous output is unchanged") from None
    return outcome


def os_message(exc: OSError) -> str:
    name = errno.errorcode.get(exc.errno or 0, "")
    where = f"{shown(exc.filename)}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}" + (f" ({name})" if name else "")


def shown(filename: object) -> str:
    """A path in a message: relative to the working directory when it is inside it."""
    path = Path(os.fsdecode(filename))  # type: ignore[arg-type]
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


# -- links ---------------------------------------------------------------------------------


def _refuse_linked_output(out: Path) -> None:
    if out.is_symlink():
        raise OutputError(_link_message(out))


def _link_message(link: Path) -> str:
    return (
        f"{shown(link)} is a symbolic link: codegen follows no link inside its output "
        "directory (remove it and build again)"
    )


def _status(out: Path, path: str, directories: dict[str, int | None] | None = None) -> int | None:
    """The kind of file at `path` inside `out` (None: there is none), as `_lstat` finds it."""
    found = _lstat(out, path, directories)
    return None if found is None else stat.S_IFMT(found.st_mode)


def _lstat(
    out: Path, path: str, directories: dict[str, int | None] | None = None
) -> os.stat_result | None:
    """The file at `path` inside `out` (None: there is none), found without following a link: a
    link on the way is an error, since writing or deleting through it would reach a file
    outside `out`. `directories` keeps what was found of each directory on the way, for the
    next path."""
    directories = {} if directories is None else directories
    current = os.fspath(out)
    *folders, name = path.split("/")  # a path the build made: relative, "/"-separated
    for part in folders:
        # Joined as strings: this runs for every file of the output, and os.path.join's checks
        # cost more than the lstat.
        current = f"{current}/{part}"
        if current not in directories:
            found = _lstat_here(current)
            directories[current] = None if found is None else found.st_mode
        if directories[current] is None:
            return None
    return _lstat_here(f"{current}/{name}")


def _lstat_here(path: str) -> os.stat_result | None:
    """`path` itself (None: there is none, or a file stands where a directory should); a link
    is an error."""
    try:
        found = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None  # a file where a directory should be: the build replaces it
    if stat.S_ISLNK(found.st_mode):
        raise OutputError(_link_message(Path(path)))
    return found


def _same_bytes(out: Path, path: str, data: bytes, size: int) -> bool:
    if len(data) != size:
        return False  # a file of another size is not read (the payload files are megabytes)
    fd = os.open(f"{os.fspath(out)}/{path}", os.O_RDONLY)
    try:
        # One byte more than expected tells a longer file from an equal one.
        return os.read(fd, len(data) + 1) == data
    finally:
        os.close(fd)


def _read_inside(out: Path, path: str) -> str | None:
    if _status(out, path) != stat.S_IFREG:
        return None
    try:
        return (out / path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


# -- what interrupted builds leave -----------------------------------------------------------

# An earlier codegen wrote `.NAME.RANDOM.tmp` beside each file, and a killed build left them.
_OLD_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[A-Za-z0-9_]{8}\.tmp")


def _debris(out: Path, files: Files) -> list[Path]:
    found: list[Path] = []
    if os.path.lexists(work_directory(out)):
        found.append(work_directory(out))
    # Strings, not paths: this runs over every file of the output.
    directories = {path.rpartition("/")[0] for path in files}
    for directory in sorted(directories):
        try:
            names = os.listdir(os.path.join(out, directory))
        except OSError:
            continue
        prefix = f"{directory}/" if directory else ""
        for name in sorted(names):
            match = _OLD_TEMPORARY.fullmatch(name)
            if match and prefix + match["name"] in files:
                found.append(out / directory / name)
    return found


def _start(work: Path) -> None:
    work.mkdir()
    # Git ignores a folder that ignores everything in it, so a killed build leaves nothing to add:
    # the marker must appear whole, since an empty one (a build killed between creating and
    # writing it) is a file git shows, where an empty folder is not.
    _create_whole(work / ".gitignore", b"# A codegen build at work.\n*\n")


def _create_whole(path: Path, data: bytes) -> None:
    """Make the new file `path` holding `data`, never seen empty or cut short: written with no name
    (Linux's O_TMPFILE), then linked in. Where that is missing, it is written in place."""
    try:
        fd = os.open(path.parent, os.O_TMPFILE | os.O_WRONLY, 0o666)
    except (AttributeError, OSError):  # not Linux, or a file system without it
        _write_new(path, data)
        return
    try:
        with os.fdopen(fd, "wb", closefd=False) as handle:
            handle.write(data)
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            # With a directory's descriptor, os.link is linkat(AT_SYMLINK_FOLLOW): it names the
            # file behind /proc/self/fd (a plain link() of that path fails across devices).
            os.link(f"/proc/self/fd/{fd}", path.name, dst_dir_fd=folder)
        finally:
            os.close(folder)
    except OSError:
        _write_new(path, data)  # no /proc mounted
    finally:
        os.close(fd)


def _sweep(work: Path, out: Path) -> None:
    """Remove the work directory; when a build stopped between its two renames (where the
    one-step swap is not available), put the previous tree back first."""
    previous = work / "previous"
    if not os.path.lexists(out) and previous.is_dir() and not previous.is_symlink():
        os.rename(previous, out)
    if not os.path.lexists(work):
        return
    if work.is_symlink() or not work.is_dir():
        work.unlink()
        return
    for item in work.iterdir():
        if item.name != ".gitignore":
            _remove(item)
    # The marker goes last: until then git ignores what is left.
    _remove(work)


def _sweep_quietly(work: Path, out: Path) -> None:
    try:
        _sweep(work, out)
    except OSError:
        pass  # the error being reported matters more; the next build sweeps again


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


# -- the new tree, and the swap --------------------------------------------------------------


def _stage(out: Path, outcome: Plan, staged: Path) -> Path:
    """The new output tree at `staged`: what `out` holds (without our removed files and debris)
    as hard links, the links a person put there as links, then every changed file written."""
    changed = set(outcome.missing) | set(outcome.stale)
    leave_out = set(outcome.orphaned) | changed
    leave_out |= {p.relative_to(out).as_posix() for p in outcome.debris if p.parent != out.parent}
    if os.path.lexists(out):
        _copy_tree(out, staged, leave_out)
        os.chmod(staged, stat.S_IMODE(os.stat(out).st_mode))
    else:
        staged.mkdir()
    for path in sorted(changed):
        target = staged / path
        if os.path.lexists(target):
            _remove(target)  # a directory where this file goes
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_new(target, outcome.files.data(path))
    for path in outcome.orphaned:
        _remove_empty_parents((staged / path).parent, staged)
    return staged


def _copy_tree(source: Path, target: Path, leave_out: set[str]) -> None:
    target.mkdir()
    # Strings and scandir's entries, not Path objects: this visits every file of the output.
    pending = [(os.fspath(source), os.fspath(target), "")]
    while pending:
        origin_dir, copy_dir, relative = pending.pop()
        with os.scandir(origin_dir) as entries:
            for entry in entries:
                path = relative + entry.name
                if path in leave_out:
                    continue
                copy = os.path.join(copy_dir, entry.name)
                if entry.is_symlink():
                    os.symlink(os.readlink(entry.path), copy)
                elif entry.is_dir(follow_symlinks=False):
                    os.mkdir(copy)
                    os.chmod(copy, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode))
                    pending.append((entry.path, copy, path + "/"))
                else:
                    _link_or_copy(entry.path, copy)


def _link_or_copy(origin: str, copy: str) -> None:
    try:
        os.link(origin, copy, follow_symlinks=False)
    except OSError:
        shutil.copy2(origin, copy, follow_symlinks=False)  # a file system without hard links


def _write_new(path: Path, data: bytes) -> None:
    """Write a file that does not exist yet, with the mode a new file gets."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _swap(staged: Path, out: Path, work: Path) -> None:
    if not os.path.lexists(out):
        os.rename(staged, out)
    elif not _exchange(staged, out):
        # Two steps where the one-step swap is missing: a build stopped between them is finished
        # by the next one (_sweep puts the previous tree back).
        os.rename(out, work / "previous")
        os.rename(staged, out)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Swap two directories in one step; False where the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    done = renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), os.fsdecode(second))


# -- one build at a time ---------------------------------------------------------------------


@contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """Hold the lock of builds into `out` (on the directory that holds it: `out` itself is
    swapped). A second build waits, and says so."""
    try:
        import fcntl
    except ImportError:  # Windows: builds into one directory are not serialized
        yield
        return
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(parent, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(
                f"codegen: waiting for another build into {shown(out)} to finish",
                file=sys.stderr,
                flush=True,
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


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

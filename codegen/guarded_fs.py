"""The one place that decides whether codegen may touch a path: every read, write, rename and
removal in the output directory, the work directory beside it and the build cache goes through
here (issue 32).

Each is made relative to an opened directory, one name at a time, and no symbolic link is
followed (`O_NOFOLLOW`, `dir_fd=`, `follow_symlinks=False`): a link on the way is refused with an
error naming it. The walk starts at a directory that is trusted: the project root for a path
inside the project (a link anywhere below it may have come with a pull request, since
`.gitignore`'s `__pycache__/` matches directories only), else the directory a path outside the
project is named in, the user's own. A directory once opened stays the one opened, so a link put
in its place meanwhile is not followed either. An output directory that is or holds the project,
the working directory, the cache or a source is refused before anything is read or written
(`unsafe_output`); its work directory is named after it as it resolves, so it is always beside it
(`emit.work_directory`: `--out .` once copied the work directory into itself).

POSIX only (the calls relative to a directory's descriptor); where Linux's one-step swap
(`renameat2`) or nameless files (`O_TMPFILE`) are missing, a build falls back to two renames or a file
written in place.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import shutil
import stat
import sys
from pathlib import Path
from types import TracebackType
from typing import Self

# A directory, opened without following a link, not handed down to programs the build runs.
# (Windows has none of these flags nor `dir_fd`: there the commands that write nothing still run,
# and a build is refused in words, `unsafe_output`.)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_FILE = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FOLDER = os.O_RDONLY | _DIRECTORY | _FILE
# What opening a link without following it gives: ELOOP for a file, ENOTDIR with O_DIRECTORY
# (Linux), EMLINK (FreeBSD).
_MAYBE_A_LINK = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)


class LinkRefused(Exception):
    """A symbolic link where codegen would read, write or remove: never followed, and never
    removed in its stead (a link planted in a committed directory is what a reviewer must see)."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"{shown(path)} is a symbolic link: codegen follows no link in its output or its cache "
            "(remove it and build again)"
        )
        self.path = path


class UnsafeOutput(Exception):
    """An output directory that is, or holds, what a build must never replace."""


def shown(filename: object) -> str:
    """A path in a message: relative to the working directory when it is inside it."""
    path = Path(os.fsdecode(filename))  # type: ignore[arg-type]
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)


class Folder:
    """A directory opened without following a link; `path` names it in messages. Everything below
    it is reached through its methods, one name at a time."""

    __slots__ = ("fd", "path")

    def __init__(self, fd: int, path: str) -> None:
        self.fd = fd
        self.path = path

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _named(self, name: str) -> str:
        return f"{self.path}/{name}"

    def _refuse_a_link(self, name: str) -> None:
        self.found(name)

    def lstat(self, name: str) -> os.stat_result | None:
        """What `name` is (None: there is none), the link itself for a link."""
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None

    def found(self, name: str) -> os.stat_result | None:
        """What `name` is (None: there is none); a link is refused."""
        found = self.lstat(name)
        if found is not None and stat.S_ISLNK(found.st_mode):
            raise LinkRefused(self._named(name))
        return found

    def kind(self, name: str) -> int | None:
        """`name`'s file type (`stat.S_IFREG`, ...); None: there is none. A link is refused."""
        found = self.found(name)
        return None if found is None else stat.S_IFMT(found.st_mode)

    def folder(self, name: str, *, make: bool = False, mode: int = 0o777) -> Folder | None:
        """The directory `name` in this one, opened; None when there is none or a file stands
        there (made, when `make`, if there is none). A link is refused."""
        try:
            fd = os.open(name, _FOLDER, dir_fd=self.fd)
        except FileNotFoundError:
            if not make:
                return None
            try:
                os.mkdir(name, mode, dir_fd=self.fd)
            except FileExistsError:
                pass  # made meanwhile by another build: opened below, as any
            return self.folder(name)
        except OSError as exc:
            if exc.errno in _MAYBE_A_LINK:
                self._refuse_a_link(name)
            if exc.errno == errno.ENOTDIR and not make:
                return None
            exc.filename = self._named(name)  # the whole path, in the message
            raise
        return Folder(fd, self._named(name))

    def walk(self, relative: str, *, make: bool = False) -> Folder | None:
        """The directory at the "/"-separated `relative` below this one, as `folder` finds each
        part ("" is a new handle on this one)."""
        current = Folder(os.dup(self.fd), self.path)
        for part in filter(None, relative.split("/")):
            try:
                found = current.folder(part, make=make)
            finally:
                current.close()
            if found is None:
                return None
            current = found
        return current

    def open(self, name: str, flags: int, mode: int = 0o666) -> int:
        """A descriptor of the file `name`; a link is refused."""
        try:
            return os.open(name, flags | _FILE, mode, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in _MAYBE_A_LINK:
                self._refuse_a_link(name)
            if exc.filename is not None:
                exc.filename = self._named(name)
            raise

    def read(self, name: str, limit: int = -1) -> bytes:
        """The bytes of the file `name` (at most `limit`); a link is refused."""
        fd = self.open(name, os.O_RDONLY)
        try:
            if limit >= 0:
                return os.read(fd, limit)
            with os.fdopen(fd, "rb", closefd=False) as handle:
                return handle.read()
        finally:
            os.close(fd)

    def write_new(self, name: str, data: bytes, mode: int = 0o666) -> None:
        """Write the file `name`, which must not exist yet (nor be a link)."""
        fd = self.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)

    def create_whole(self, name: str, data: bytes) -> None:
        """Make the new file `name` holding `data`, never seen empty or cut short: written with no
        name (Linux's O_TMPFILE), then linked in. Where that is missing, written in place."""
        try:
            fd = os.open(".", os.O_TMPFILE | os.O_WRONLY | _FILE, 0o666, dir_fd=self.fd)
        except (AttributeError, OSError):  # not Linux, or a file system without it
            self.write_new(name, data)
            return
        try:
            _write_all(fd, data)
            # With a directory's descriptor, os.link is linkat(AT_SYMLINK_FOLLOW): it names the
            # file behind /proc/self/fd (a plain link() of that path fails across devices).
            os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=self.fd)
        except OSError:
            self.write_new(name, data)  # no /proc mounted
        finally:
            os.close(fd)

    def replace(self, name: str, data: bytes) -> None:
        """Make `name` hold `data`, whole or not at all, even with builds running side by side:
        written under a new name, then renamed over it (a link there is replaced, not followed)."""
        temporary = f".{secrets.token_hex(8)}.tmp"
        self.write_new(temporary, data)
        try:
            os.replace(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except OSError:
            self.remove(temporary)
            raise

    def names(self) -> list[str]:
        return os.listdir(self.fd)

    def make(self, name: str) -> None:
        """Make the directory `name`, which must not exist yet."""
        os.mkdir(name, dir_fd=self.fd)

    def remove_empty(self, name: str) -> None:
        """Remove the empty directory `name`."""
        os.rmdir(name, dir_fd=self.fd)

    def remove(self, name: str) -> None:
        """Remove `name` and, for a directory, all it holds; a link found is removed as a link,
        what it points to untouched."""
        found = self.lstat(name)
        if found is None:
            return
        if stat.S_ISDIR(found.st_mode):
            # Relative to a descriptor at every level, links unlinked, never entered.
            shutil.rmtree(name, dir_fd=self.fd)
        else:
            os.unlink(name, dir_fd=self.fd)

    def link(self, name: str, new: str) -> None:
        """A second name `new` for the file `name` (a link at `name` is linked, not followed)."""
        os.link(name, new, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)

    def rename(self, name: str, to: Folder, new: str) -> None:
        os.rename(name, new, src_dir_fd=self.fd, dst_dir_fd=to.fd)

    def exchange(self, name: str, other: Folder, other_name: str) -> bool:
        """Swap `name` with `other_name` in `other` in one step; False where the system cannot."""
        return _exchange(self.fd, name, other.fd, other_name)

    def copy_tree(self, target: Folder, leave_out: set[str]) -> None:
        """Make in `target` what this directory holds, but the "/"-separated paths `leave_out`:
        files as hard links (copies where the file system has none), links as links pointing
        where they point, directories anew with their modes."""
        # Explicit, not recursive: each level's descriptors are closed once it is done.
        # A failure midway closes every descriptor still held (a watch builds again and again).
        pending = [(Folder(os.dup(self.fd), self.path), Folder(os.dup(target.fd), target.path), "")]
        try:
            while pending:
                origin, copy, relative = pending.pop()
                with origin, copy, os.scandir(origin.fd) as entries:
                    for entry in entries:
                        path = relative + entry.name
                        if path not in leave_out:
                            _copy_entry(origin, copy, entry, path, pending)
        finally:
            for origin, copy, _ in pending:
                origin.close()
                copy.close()


def _copy_entry(
    origin: Folder,
    copy: Folder,
    entry: os.DirEntry[str],
    path: str,
    pending: list[tuple[Folder, Folder, str]],
) -> None:
    """One entry of `copy_tree`; a directory is made here and its own entries left `pending`."""
    name = entry.name
    if entry.is_symlink():
        os.symlink(os.readlink(name, dir_fd=origin.fd), name, dir_fd=copy.fd)
    elif entry.is_dir(follow_symlinks=False):
        inner = origin.folder(name)
        if inner is None:
            return  # removed meanwhile
        try:
            made = copy.folder(name, make=True)
            assert made is not None
        except BaseException:
            inner.close()
            raise
        pending.append((inner, made, path + "/"))
        os.fchmod(made.fd, stat.S_IMODE(os.fstat(inner.fd).st_mode))
    else:
        _link_or_copy(origin, copy, name)


def _link_or_copy(origin: Folder, copy: Folder, name: str) -> None:
    try:
        os.link(name, name, src_dir_fd=origin.fd, dst_dir_fd=copy.fd, follow_symlinks=False)
    except OSError:  # a file system without hard links
        source = origin.open(name, os.O_RDONLY)
        try:
            found = os.fstat(source)
            target = copy.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(source, "rb", closefd=False) as handle:
                    _write_all(target, handle.read())
                os.fchmod(target, stat.S_IMODE(found.st_mode))
                os.utime(target, ns=(found.st_atime_ns, found.st_mtime_ns))
            finally:
                os.close(target)
        finally:
            os.close(source)


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


_RENAME_EXCHANGE = 2


def _exchange(first_fd: int, first: str, second_fd: int, second: str) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    done = renameat2(first_fd, os.fsencode(first), second_fd, os.fsencode(second), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), second)


class Tree:
    """A directory and the directories below it, each opened once (a build looks up thousands of
    files in a few directories): paths are "/"-separated and relative to it."""

    def __init__(self, top: Folder | None, *, make: bool = False) -> None:
        self.top = top
        self.make = make  # directories missing on the way are made
        self._folders: dict[str, Folder | None] = {"": top}

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for folder in self._folders.values():
            if folder is not None:
                folder.close()

    def folder(self, relative: str) -> Folder | None:
        """The directory at `relative`; None when it (or one on its way) is missing or a file."""
        if relative not in self._folders:
            parent, _, name = relative.rpartition("/")
            above = self.folder(parent)
            self._folders[relative] = None if above is None else above.folder(name, make=self.make)
        return self._folders[relative]

    def lstat(self, path: str) -> os.stat_result | None:
        """The file at `path` (None: there is none); a link on the way, or there, is refused."""
        directory, _, name = path.rpartition("/")
        folder = self.folder(directory)
        return None if folder is None else folder.found(name)

    def read(self, path: str, limit: int = -1) -> bytes:
        directory, _, name = path.rpartition("/")
        folder = self.folder(directory)
        if folder is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        return folder.read(name, limit)


def holder(path: Path, root: Path, *, make: bool = False) -> tuple[Folder, str] | None:
    """The directory that holds `path`, opened, and `path`'s name in it; None when there is none
    (made, with `make`). Inside the project `root` the walk starts at the root, following no link
    below it; a path elsewhere is the user's own, and its directory is opened as named."""
    target, top = os.path.abspath(path), os.path.abspath(root)
    parent, name = os.path.split(target)
    inside = _below(parent, top)
    start, below = (top, inside) if inside is not None else (parent, ".")
    if make:
        os.makedirs(start, exist_ok=True)
    try:
        fd = os.open(start, os.O_RDONLY | _DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    with Folder(fd, start) as anchor:
        found = anchor.walk("" if below == "." else below.replace(os.sep, "/"), make=make)
    return None if found is None else (found, name)


def open_directory(path: Path, *, make: bool = False, mode: int = 0o777) -> Folder | None:
    """The directory at `path`, opened (None: there is none); its own directory is trusted, it
    and everything below it follow no link (the cache: `.codegen_cache` at the project root)."""
    held = holder(path, Path(path).parent, make=make)
    if held is None:
        return None
    with held[0] as parent:
        return parent.folder(held[1], make=make, mode=mode)


def _below(parent: str, top: str) -> str | None:
    """The part of `parent` below the project root `top` (`.` for the root itself); None when
    `parent` does not run through the root. The root may be named through links above it (a
    project reached by a link, macOS's `/tmp`): those are the user's own, so the first leading
    part of `parent` that resolves to the root counts as it, from the top down, and what follows
    is walked from the root, following no link."""
    if _within(parent, top):
        return os.path.relpath(parent, top)
    real_top = os.path.realpath(top)
    parts = Path(parent).parts
    for count in range(1, len(parts) + 1):
        if os.path.realpath(os.path.join(*parts[:count])) == real_top:
            return os.path.join(*parts[count:]) if count < len(parts) else "."
    return None


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def unsafe_output(out: Path, kept: dict[str, Path]) -> str | None:
    """Why `out` may not be an output directory (None: it may). A build replaces the whole
    directory, so it may not be or hold any of `kept` (by what each is: the project, the cache, a
    source), nor the working directory. Compared as named and as resolved (through links); what
    it is is said before what it holds."""
    if os.open not in os.supports_dir_fd:
        # Windows: no call works relative to an opened directory, and a guard that checked each
        # path before using it would race whatever replaced it with a link meanwhile.
        return (
            "a build writes only through directories it has opened, following no link, "
            "which this system cannot do: build on Linux or macOS (on Windows, under WSL)"
        )
    named, real = os.path.abspath(out), os.path.realpath(out)
    kept = {**kept, "the working directory": Path.cwd()}
    places = {what: (os.path.abspath(path), os.path.realpath(path)) for what, path in kept.items()}
    for what, (as_named, as_real) in places.items():
        if named == as_named or real == as_real:
            return _unsafe(out, f"is {what}")
    for what, (as_named, as_real) in places.items():
        if _within(as_named, named) or _within(as_real, real):
            return _unsafe(out, f"holds {what}")
    return None


def _unsafe(out: Path, relation: str) -> str:
    return (
        f"the output directory {shown(out)} {relation}: a build replaces its whole output "
        "directory (choose a directory of its own, such as generated/)"
    )

"""A content-addressed cache of what a build made, so that a rebuild makes only what changed.

An entry's key is the digest of everything its text depends on: the generator (codegen's own code,
its templates, black's version, Python's) and either a module's unformatted text, a file's text, or
a catalog file's place and bytes (for the record of its whole package). Those entries are never
updated, only added, so a stale entry cannot be read. Each starts with its seal, an HMAC of its
bytes under a key of the user's own (`seal`), checked on every read: an entry cut short, with code
appended, or made on another machine (committed by a pull request, say) is built again, never
used.

A catalog's record of per-tool results (`catalog/reuse.py`, keyed by the generator and the catalog's
place) is the one entry that changes: it is a sequence of frames, each with its own seal and
length, and a build adds a frame rather than writing it whole; a frame that fails its digest ends
what is read of it. A catalog's record and its package's entries are named by slots (`claim`), so
that the first build of another codegen removes the ones the last made, which it would never read.
The directory lives at the project root, ignores itself in git, and can be deleted at any time.
"""

from __future__ import annotations

import hashlib
import hmac
import mmap
import os
import re
import secrets
import stat
import sys
import weakref
from functools import cache
from importlib import metadata
from pathlib import Path

from codegen import __version__
from codegen.guarded_fs import Folder, LinkRefused, open_directory
from codegen.memory import Stamp, stamp
from codegen.resources import meta_schema_path, templates_dir

DIRECTORY = ".codegen_cache"


@cache
def generator_digest() -> str:
    """The digest of what turns a catalog into packages and warnings: codegen's code, templates and
    meta-schema, the versions of black, jsonschema and PyYAML, and Python's minor version
    (escaping follows its Unicode tables)."""
    versions = ", ".join(
        [f"codegen {__version__}", "python {}.{}".format(*sys.version_info)]
        + [f"{name} {metadata.version(name)}" for name in ("black", "jsonschema", "PyYAML")]
    )
    digest = hashlib.sha256(versions.encode())
    package = Path(__file__).parent
    templates = Path(templates_dir())
    # Every module of codegen's and every template, in subfolders too, each under its own path.
    sources = [(p.relative_to(package).as_posix(), p) for p in package.rglob("*.py")]
    sources += [(p.relative_to(templates).as_posix(), p) for p in templates.rglob("*.jinja")]
    sources.append((meta_schema_path().name, meta_schema_path()))
    for name, path in sorted(sources):
        digest.update(name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


# Records from this size on are mapped (`_mapped`); a smaller one costs little to read.
MAP_FROM = 2**20
# Before Python 3.13 a mapping holds a file descriptor open for as long as it lives, which is as
# long as a build holds a slice of it (its files, `Files`): at most this many at once, so that a
# project of hundreds of catalogs does not run out of descriptors. 3.13 lets the mapping close it.
MAPPED_AT_ONCE = 32
_WITHOUT_DESCRIPTOR: dict[str, bool] = {"trackfd": False} if sys.version_info >= (3, 13) else {}
_live: weakref.WeakSet[mmap.mmap] = weakref.WeakSet()


def _mapped(folder: Folder, name: str) -> memoryview:
    """The bytes of the file `name`, mapped where the system can (POSIX) instead of copied: a
    record of a 2,000-tool catalog is 50 MB, which a read copied into as many fresh pages (a
    thirtieth of a second of a one-tool rebuild). Safe from codegen's own writers, because a
    record is never changed in place: frames are appended past what is mapped, and a record
    written again whole is a new file (`_replace`), the mapped one staying as it was. A record
    that another program cuts short while a build reads it ends that build (SIGBUS) before it
    writes anything; the next one reads what is there."""
    with os.fdopen(folder.open(name, os.O_RDONLY), "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        # Windows cannot replace a mapped file.
        if (
            os.name == "posix"
            and size >= MAP_FROM
            and (_WITHOUT_DESCRIPTOR or len(_live) < MAPPED_AT_ONCE)
        ):
            try:
                mapping = mmap.mmap(
                    handle.fileno(), size, access=mmap.ACCESS_READ, **_WITHOUT_DESCRIPTOR
                )
            except (OSError, ValueError, OverflowError):  # no room to map it: read it
                pass
            else:
                _live.add(mapping)
                return memoryview(mapping)
        return memoryview(handle.read())


def seal(body: bytes | memoryview) -> bytes:
    """What an entry starts with: the HMAC-SHA256 of its bytes under this user's key. A digest of
    the bytes alone would show damage only: anyone can compute it, so a cache a pull request
    committed could put any text of the right shape into the output (and `build --check` would
    agree). Sealed, an entry made elsewhere is never read."""
    return hmac.new(user_key(), body, hashlib.sha256).hexdigest().encode()


@cache
def user_key() -> bytes:
    """This user's secret for sealing cache entries, made once, in the user's own cache directory
    (`$XDG_CACHE_HOME/codegen`, else `~/.cache/codegen`), readable by the user only. Where there
    is none to be had, a key of this process alone: the cache is then never reused."""
    try:
        home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        folder = open_directory(home / "codegen", make=True, mode=0o700)
        assert folder is not None  # made where missing
        with folder:
            if folder.found(_KEY) is None:
                made = f".key-{secrets.token_hex(8)}"
                folder.write_new(made, secrets.token_bytes(32), mode=0o600)
                try:
                    folder.link(made, _KEY)  # the first process to get there makes it, whole
                except FileExistsError:
                    pass
                finally:
                    folder.remove(made)
            found = folder.found(_KEY)
            if found is not None and _private(found):
                secret = folder.read(_KEY)
                if len(secret) == 32:
                    return secret
    except (OSError, RuntimeError, LinkRefused):  # no home, a read-only one, a link planted
        pass
    return secrets.token_bytes(32)


_KEY = "cache-key"


def _private(found: os.stat_result) -> bool:
    """A file of this user's, which no one else may read or write."""
    owned = not hasattr(os, "getuid") or found.st_uid == os.getuid()
    return stat.S_ISREG(found.st_mode) and owned and not found.st_mode & 0o077


def key(*parts: str) -> str:
    digest = hashlib.sha256(generator_digest().encode())
    for part in parts:
        digest.update(b"\0" + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class BuildCache:
    """Texts by key, in `directory`; with no directory, a cache that keeps nothing. A read-only
    cache (for `build --check`, which writes nothing) reads entries and never stores any. The
    directory and everything in it are reached through `guarded_fs`: a link there is refused
    (`LinkRefused`, which ends the build), never followed."""

    def __init__(self, directory: Path | None, *, writable: bool = True) -> None:
        self.directory = directory
        self.writable = writable
        self._opened: Folder | None = None

    def _top(self, *, make: bool = False) -> Folder | None:
        """The cache's directory, opened once found (None: there is none, and not `make`)."""
        if self._opened is None and self.directory is not None:
            self._opened = open_directory(self.directory, make=make)
            if self._opened is not None:
                weakref.finalize(self, self._opened.close)
        return self._opened

    def _folder(self, entry: str, *, make: bool = False) -> Folder | None:
        """The directory of `entry` (by its first two characters), opened."""
        top = self._top(make=make)
        return None if top is None else top.folder(entry[:2], make=make)

    def __contains__(self, entry: str) -> bool:
        return self.get(entry) is not None

    def get(self, entry: str) -> str | None:
        """The text stored under `entry`, when its bytes are still the ones stored."""
        body = self.get_bytes(entry)
        try:
            return None if body is None else body.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def get_bytes(self, entry: str) -> bytes | None:
        """The bytes stored under `entry`, when they are still the ones stored."""
        try:
            folder = self._folder(entry)
            if folder is None:
                return None
            with folder:
                stored = folder.read(entry)
        except OSError:
            return None
        digest, newline, body = stored.partition(b"\n")
        if not newline or seal(body) != digest:
            return None
        return body

    def put(self, entry: str, text: str) -> None:
        """Store `text`; a cache that cannot be written only makes the next build slower."""
        self.put_bytes(entry, text.encode("utf-8"))

    def put_bytes(self, entry: str, body: bytes) -> None:
        """Store `body`; a cache that cannot be written only makes the next build slower."""
        self._replace(entry, seal(body) + b"\n" + body)

    # An entry of frames is a sequence of bodies, each after its own digest and length: a build
    # adds what it made as a frame at the end, instead of writing the whole entry again.

    def get_frames(self, entry: str) -> tuple[list[memoryview], bool]:
        """The frames stored under `entry`, up to the first whose bytes are not the ones stored
        (a frame cut short by a kill, or damaged), and whether that was all of it."""
        try:
            folder = self._folder(entry)
            if folder is None:
                return [], True
            with folder:
                stored = _mapped(folder, entry)
        except OSError:
            return [], True
        frames: list[memoryview] = []
        start = 0
        while start < len(stored):
            end = bytes(stored[start : start + 100]).find(b"\n")
            digest, _, length = bytes(stored[start : start + max(end, 0)]).partition(b" ")
            if end < 0 or not length.isdigit():
                break
            body = stored[start + end + 1 : start + end + 1 + int(length)]
            if len(body) != int(length) or seal(body) != digest:
                break
            frames.append(body)
            start += end + 1 + len(body)
        return frames, start == len(stored)

    def put_frame(self, entry: str, body: bytes, *, alone: bool) -> bool:
        """Add `body` as the last frame of `entry`, or (`alone`) as its only one; whether it was
        written."""
        frame = b"%s %d\n" % (seal(body), len(body)) + body
        if alone:
            return self._replace(entry, frame)
        if self.directory is None or not self.writable:
            return False
        try:
            folder = self._folder(entry)
            if folder is None:
                return self._replace(entry, frame)  # there is none yet
            with folder:
                fd = folder.open(entry, os.O_WRONLY | os.O_APPEND)
        except OSError:
            return self._replace(entry, frame)  # there is none yet
        try:
            # One write: a frame cut short by a kill is refused when read, with what follows it.
            written = 0
            while written < len(frame):
                written += os.write(fd, frame[written:])
        except OSError:
            return False
        finally:
            os.close(fd)
        return True

    def stamp(self, entry: str) -> Stamp | None:
        """The inode, size and modification time of the file of `entry` (None: there is none)."""
        try:
            folder = self._folder(entry)
            if folder is None:
                return None
            with folder:
                found = folder.found(entry)
        except OSError:
            return None
        return None if found is None else stamp(found)

    def _replace(self, entry: str, stored: bytes) -> bool:
        if self.directory is None or not self.writable:
            return False
        try:
            self._ignore_in_git()
            folder = self._folder(entry, make=True)
            assert folder is not None  # made where missing
            with folder:
                folder.found(entry)  # a link is refused, not replaced unseen
                # Whole or absent, even with builds running side by side.
                folder.replace(entry, stored)
        except OSError:
            return False
        return True

    def claim(self, slot: str, entry: str) -> None:
        """Make `entry` the entry of `slot`, a name that outlives codegen's versions (a catalog's
        record, its package's): the entry the slot had, made by another version of codegen and
        never to be read again, is removed, so that upgrading codegen leaves no stale records."""
        if self.directory is None or not self.writable:
            return
        marker = hashlib.sha256(slot.encode("utf-8", "surrogatepass")).hexdigest()
        try:
            top = self._top(make=True)
            assert top is not None  # made where missing
            slots = top.folder("slots", make=True)
            assert slots is not None
            with slots:
                try:
                    previous = slots.read(marker).decode("ascii")
                except (OSError, UnicodeDecodeError):
                    previous = ""
                if previous == entry:
                    return
                if _ENTRY.fullmatch(previous):  # a planted marker names nothing outside the entries
                    folder = self._folder(previous)
                    if folder is not None:
                        with folder:
                            if folder.kind(previous) == stat.S_IFREG:
                                folder.remove(previous)
                slots.replace(marker, entry.encode("ascii"))
        except OSError:
            pass  # a cache that cannot be written only makes the next build slower

    def _ignore_in_git(self) -> None:
        top = self._top(make=True)
        assert top is not None  # made where missing
        if top.found(".gitignore") is None:
            try:
                top.write_new(
                    ".gitignore", b"# Made by codegen build: a cache, never committed.\n*\n"
                )
            except FileExistsError:
                pass  # written meanwhile by another build


_ENTRY = re.compile(r"[0-9a-f]{64}")

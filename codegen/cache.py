"""The build cache: sealed files by key, under the project's `.codegen_cache`.

An entry's key is the digest of everything its bytes depend on: the generator (codegen's own
code, its templates, black's version, Python's) and what it was made of. Each entry starts with its
seal, an HMAC of its bytes under a key of the user's own (`seal`), checked on every read, and is
written whole or not at all (a new file renamed over the old one). That is all the protection the
cache needs, for its three threats:

- a file planted by a checked-out repository or another local user: entries are pickles, and
  unpickling runs what a pickle names; a planted entry has no seal under this user's key, so it is
  never unpickled (`tests/test_cache_integrity.py`);
- a build killed while writing: the entry is renamed into place whole, or the old one stays;
- a file cut short or damaged: its seal no longer matches, and what it held is made again.

Links in the cache are refused, never followed (`guarded_fs`), so a planted link cannot make a
build write outside it. The directory ignores itself in git and can be deleted at any time.
"""

from __future__ import annotations

import hashlib
import hmac
import os
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


def seal(*parts: bytes | memoryview) -> bytes:
    """What an entry starts with: the HMAC-SHA256 of its bytes (`parts`, in order) under this
    user's key. A digest of the bytes alone would show damage only: anyone can compute it, so a
    cache a pull request committed could put any text of the right shape into the output (and
    `build --check` would agree). Sealed, an entry made elsewhere is never read."""
    mac = hmac.new(user_key(), digestmod=hashlib.sha256)
    for part in parts:
        mac.update(part)
    return mac.hexdigest().encode()


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
            return None if body is None else str(body, "utf-8")
        except UnicodeDecodeError:
            return None

    def get_bytes(self, entry: str) -> memoryview | None:
        """The bytes stored under `entry`, when they are still the ones stored: a view of them as
        read, not a copy (a memo's pack is tens of megabytes)."""
        found = self.get_sealed(entry)
        return None if found is None else found[1]

    def get_sealed(self, entry: str) -> tuple[bytes, memoryview] | None:
        """The seal and the bytes stored under `entry` (`get_bytes`): the seal names the bytes."""
        try:
            folder = self._folder(entry)
            if folder is None:
                return None
            with folder:
                stored = folder.read(entry)
        except OSError:
            return None
        end = stored.find(b"\n")
        body = memoryview(stored)[end + 1 :]
        sealed = stored[:end]
        if end < 0 or seal(body) != sealed:
            return None
        return sealed, body

    def put(self, entry: str, text: str) -> None:
        """Store `text`; a cache that cannot be written only makes the next build slower."""
        self.put_bytes(entry, text.encode("utf-8"))

    def put_bytes(self, entry: str, *parts: bytes | memoryview) -> bytes | None:
        """Store the bytes of `parts`, in order, joined once; their seal, or None when they were
        not stored (a cache that cannot be written only makes the next build slower)."""
        sealed = seal(*parts)
        return sealed if self._replace(entry, b"".join((sealed, b"\n", *parts))) else None

    def remove(self, entry: str) -> None:
        """Remove `entry`, if it is there (a link there is removed as a link)."""
        if self.directory is None or not self.writable:
            return
        try:
            folder = self._folder(entry)
            if folder is not None:
                with folder:
                    folder.remove(entry)
        except OSError:
            pass  # removed meanwhile, or never to be: it is only left over

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

"""What the last build of a catalog made per tool, so that a rebuild reads, validates, normalizes
and renders only the tools whose definitions changed.

A tool's results depend on its definition alone, given its Python names and where its nodes are
relative to its first line (what its findings say): those are the key (for a tool read from its
item, the item's digest holds both). Findings are kept relative to the tool (a line offset, the
path after `tools[i]`) and anchored where the tool is now, so a tool that only moved is not checked
again. The checks that need every tool (duplicate names, the Python names of `names.resolve`) still
run over all of them: they read names only; the provider names are kept under the tools' names.

The record is one entry of the build cache per catalog file, holding by kind: each tool's item as
read (`load`), what the wild reader read it as (`wild`), its validation (`valid`), its head
with its findings (`tool`) and its whole IR
beside (`tool-ir`, read only when a stage needs more than the head: `StoredTool`), its output
(`tool_outputs`: module, payload entries, docs page, prompt section), the provider names, and the
formatted bodies of the modules made from the whole catalog (`text`). A build adds a frame with
what it made and writes the record again whole once values no build asked for since outweigh the
live ones (`save`). Whatever it cannot give back (absent, unreadable, another codegen's) is worked
out again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import pickle
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from codegen.cache import BuildCache, key
from codegen.catalog.ir import Tool
from codegen.catalog.kinds import Want
from codegen.diagnostics import Diagnostic, JsonPath
from codegen.memory import BuildMemory, Record

# (line offset from the tool's first line, path after the tool's own, message, level, code)
Relative = tuple[int, str, str, str, str]


def pairs_of(value: Any, first: type | tuple[type, ...], second: type) -> bool:
    """Whether `value` is a list of pairs of those types (the shape of line maps and findings)."""
    return isinstance(value, list) and all(
        isinstance(pair, tuple)
        and len(pair) == 2
        and isinstance(pair[0], first)
        and isinstance(pair[1], second)
        for pair in value
    )


def is_relative(value: Any) -> bool:
    """Whether `value` is a list of findings kept relative to their tool (`Relative`)."""
    return isinstance(value, list) and all(
        isinstance(found, tuple)
        and len(found) == 5
        and type(found[0]) is int
        and all(isinstance(part, str) for part in found[1:])
        and found[3] in ("error", "warning", "note")
        for found in value
    )


def spec_digest(spec: Any) -> str:
    """The digest of a tool's data exactly as loaded: `repr` tells `1` from `1.0`, `True` and
    `"1"`, which JSON text would not (the checks do)."""
    return hashlib.sha256(repr(spec).encode("utf-8", "surrogatepass")).hexdigest()


def relative(findings: list[Diagnostic], line: int, path: str) -> list[Relative]:
    return [
        (d.line - line, d.path.removeprefix(path), d.message, d.level, d.code) for d in findings
    ]


def anchored(source: str, found: list[Relative], line: int, path: str) -> list[Diagnostic]:
    return [
        Diagnostic(source, line + offset, path + suffix, message, level, code)  # type: ignore[arg-type]
        for offset, suffix, message, level, code in found
    ]


class ToolResults:
    """The per-tool results of the last build of one catalog file, and those of this build.

    Each value is kept pickled on its own (or as bytes, which its reader reads as slices of the
    record: a tool's output, `tool_outputs.ToolOutput`): a build unpickles only the values it
    asks for, and saving the record pickles only the values made this build. What is unpickled
    is handed out again by the next build of the same process (`memory`, a watch's): the stages
    only read it (`tests/test_incremental.py` holds watched builds equal to builds without the
    cache)."""

    def __init__(
        self, cache: BuildCache | None, source: str, memory: BuildMemory | None = None
    ) -> None:
        # A cache that keeps nothing (`--no-cache`) is not asked, nor are values pickled for it.
        self.cache = cache if cache is not None and cache.directory is not None else None
        self.source = source
        self.entry = record_entry(source)
        self.memory = memory
        # Values are slices of the frames read, not copies: the record of a large catalog is tens
        # of megabytes, of which a rebuild unpickles a part.
        self.old: dict[str, bytes | memoryview] = {}
        self.new: dict[str, bytes | memoryview] = {}
        self.stored = 0  # the bytes of the record's frames
        self.whole = True  # False: bytes after the frames read (a frame cut short, say)
        # Values unpickled, by key, beside the bytes they came from: this build's, and those the
        # last build of this process left (`memory`), which are not unpickled again.
        self.objects: dict[str, tuple[bytes | memoryview, Any]] = {}
        self.remembered: dict[str, tuple[bytes | memoryview, Any]] = {}
        if self.cache is None:
            return
        kept = memory.records.get(self.entry) if memory is not None else None
        if kept is not None and kept.stamp == self.cache.stamp(self.entry):
            self.old, self.stored, self.remembered = dict(kept.values), kept.stored, kept.objects
            return
        frames, self.whole = self.cache.get_frames(self.entry)
        for frame in frames:
            self.old.update(self._read(frame))
            self.stored += len(frame)

    @staticmethod
    def _read(frame: memoryview) -> dict[str, memoryview]:
        found = unpack_values(frame)
        return {} if found is None else found  # a frame this codegen did not write: start again

    def get(
        self,
        kind: str,
        *parts: str,
        shape: Callable[[Any], bool] = lambda _: True,
        make: Callable[[Any], Any] = lambda value: value,
        pickled: bool = True,
    ) -> Any:
        """What `make` makes of the last build's value under this key, when it has the `shape`
        its reader expects (None otherwise, or when `make` refuses it: a value this codegen did
        not write is worked out again). A value not `pickled` is handed over as its bytes."""
        entry = self._key(kind, parts)
        stored = self.old.get(entry)
        if stored is None:
            return None
        kept = self.remembered.get(entry)
        if kept is not None and kept[0] is stored:
            made = kept[1]  # the same bytes, read by this process's last build, the same way
        else:
            try:
                value = unpickled(stored) if pickled else stored
            except Exception:  # noqa: BLE001 - not a value this codegen wrote: work it out again
                return None
            made = make(value) if shape(value) else None
            if made is None:
                return None
        self.new[entry] = stored
        self.objects[entry] = (stored, made)
        return made

    def keep(self, kind: str, *parts: str) -> bool:
        """Carry the last build's value under this key into this build's record without reading
        it (a later `get` may still read it); whether there is one."""
        entry = self._key(kind, parts)
        stored = self.old.get(entry)
        if stored is not None:
            self.new[entry] = stored
        return stored is not None

    def put(self, kind: str, parts: tuple[str, ...], value: Any) -> None:
        """Keep `value`, pickled, under this key in this build's record."""
        if self.cache is not None:
            self.put_bytes(kind, parts, pickle.dumps(value, 5))

    def put_bytes(self, kind: str, parts: tuple[str, ...], data: bytes) -> None:
        """Keep `data` as it is under this key in this build's record (`get(pickled=False)`)."""
        if self.cache is not None:
            self.new[self._key(kind, parts)] = data

    @staticmethod
    def _key(kind: str, parts: tuple[str, ...]) -> str:
        return "\0".join((kind, *parts))

    def save(self, *, keep: str | None = None) -> None:
        """Store this build's values: only those the record lacks, as a frame added at its end;
        the whole record is written again, with this build's values alone, once most of it is
        values no build asked for since. With `keep`, the last build's values of that kind that
        this build did not ask for (a build that stopped before making them) count as asked."""
        if self.cache is None:
            return
        carried = {k: v for k, v in self.old.items() if k.startswith(f"{keep}\0")} if keep else {}
        live = {**carried, **self.new}
        added = {k: v for k, v in live.items() if self.old.get(k) is not v}
        size = sum(map(len, live.values()))
        # What the record holds once written: its values, and the bytes of its frames.
        if self.stored > 2 * size + _SLACK or not self.whole:
            # Written again whole; a frame added after damaged bytes would never be read.
            frame = pack_values(live)
            values, stored = live, len(frame)
            written = self.cache.put_frame(self.entry, frame, alone=True)
        elif added:
            frame = pack_values(added)
            values, stored = {**self.old, **added}, self.stored + len(frame)
            written = self.cache.put_frame(self.entry, frame, alone=not self.stored)
        else:
            values, stored, written = self.old, self.stored, True
        self.cache.claim(f"tool-results\0{self.source}", self.entry)
        if self.memory is not None:
            self._remember(values, stored, written)

    def _remember(self, values: dict[str, bytes | memoryview], stored: int, written: bool) -> None:
        assert self.memory is not None and self.cache is not None
        on_disk = self.cache.stamp(self.entry)
        if not written or on_disk is None:
            self.memory.records.pop(self.entry, None)  # the next build reads what is there
            return
        objects = {k: found for k, found in self.objects.items() if values.get(k) is found[0]}
        self.memory.records[self.entry] = Record(on_disk, values, stored, objects)


def record_entry(source: str) -> str:
    """The cache entry of the record of the catalog file at `source` (as shown in messages)."""
    return key("tool-results", source)


# What a record may hold beyond twice its live values before it is written again whole.
_SLACK = 2**20


def framed(head: bytes, values: Iterable[bytes | memoryview]) -> bytes:
    """A head and values after it: the head's length, a line; the head, which says what the values
    are; then the values one after the other, as they are (`unframed`)."""
    return b"".join([b"%d\n" % len(head), head, *values])


def unframed(frame: memoryview) -> tuple[memoryview, int] | None:
    """The head of a `framed` value, and where its values start; None for any other value."""
    size, newline, _ = bytes(frame[:24]).partition(b"\n")
    if not newline or not size.isdigit():
        return None
    start = len(size) + 1
    end = start + int(size)
    return (frame[start:end], end) if end <= len(frame) else None


def pack_values(values: dict[str, bytes | memoryview]) -> bytes:
    """A frame of a record: its head is JSON of each value's key and length (read back as
    slices, `unpack_values`)."""
    return framed(json.dumps([[k, len(v)] for k, v in values.items()]).encode(), values.values())


def unpack_values(frame: memoryview) -> dict[str, memoryview] | None:
    """The values of a frame made by `pack_values`, as slices of it; None for any other frame."""
    found = unframed(frame)
    if found is None:
        return None
    head, end = found
    try:
        index = json.loads(bytes(head))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the decoder goes
        return None
    if not isinstance(index, list):
        return None
    values: dict[str, memoryview] = {}
    for item in index:
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and type(item[1]) is int
            and item[1] >= 0
        ):
            return None
        values[item[0]], end = frame[end : end + item[1]], end + item[1]
    return values if end == len(frame) else None


def unpickled(data: bytes | memoryview) -> Any:
    """What a record's pickle holds, read with the IR's classes and plain data only."""
    return _IrUnpickler(io.BytesIO(data)).load()


class _IrUnpickler(pickle.Unpickler):
    """Reads back nothing but the IR's own classes and plain data. A cache entry is a file in the
    project, which a pull request can plant (with a digest that matches): an ordinary unpickler
    would call whatever it names, so building the project would run its code."""

    _BUILTINS: ClassVar[frozenset[str]] = frozenset({"frozenset", "set"})

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in self._BUILTINS:
            return super().find_class(module, name)
        if module in ("codegen.catalog.ir", "codegen.catalog.kinds"):
            found = super().find_class(module, name)
            if isinstance(found, type) and found.__module__ == module:
                return found  # a class of the IR, not a function the module imports
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a build's record")


# A tool's fields the stages that read every tool of a catalog read (its names, description,
# examples, the names its module wants and which are its dataclasses: the code back end names its
# exports from these, `python.module_names`): kept beside its whole IR in the record, so that a
# rebuild gives an unchanged tool without unpickling its kinds (`StoredTool`). `lines` and `line`
# and `path` are where the tool is now, never stored.
HEAD = (
    "wire_name",
    "description",
    "title",
    "module",
    "pinned",
    "parse_name",
    "sha256",
    "examples",
    "wants",
    "class_slots",
)


def head(tool: Tool) -> dict[str, Any]:
    """What a record keeps of `tool` to give it back as a `StoredTool`."""
    return {name: getattr(tool, name) for name in HEAD}


def is_head(value: Any) -> bool:
    """The shape of `head`'s value."""
    if not (isinstance(value, dict) and tuple(value) == HEAD):
        return False
    others = ("title", "pinned", "examples", "wants", "class_slots")
    texts = [value[name] for name in HEAD if name not in others]
    wants, slots = value["wants"], value["class_slots"]
    return (
        all(isinstance(text, str) for text in texts)
        and isinstance(value["title"], str | None)
        and isinstance(value["pinned"], str | None)
        and isinstance(value["examples"], tuple)
        and isinstance(wants, tuple)
        and all(isinstance(want, Want) for want in wants)
        and isinstance(slots, tuple)
        and all(type(slot) is int and 0 <= slot < len(wants) for slot in slots)
    )


class StoredTool(Tool):
    """A tool of the last build's record, where it is now: its head (`HEAD`) and place are at
    hand, and the rest of its IR is unpickled from the record the first time a stage reads any of
    it. A rebuild of a catalog reads the head of every tool and the whole of the tools it makes
    again: most of the time a rebuild of 2,000 tools spent unpickling their IR went to kinds no
    stage read. Pickled, it is its whole IR."""

    def __init__(
        self,
        stored: dict[str, Any],
        place: tuple[int, str, dict[JsonPath, int]],
        whole: Callable[[], Tool],
    ) -> None:
        # Set in the instance's own dictionary: the dataclass is frozen, and `class_slots` is a
        # property of the class.
        line, path, lines = place
        self.__dict__.update(stored, line=line, path=path, lines=lines, _stored=whole)

    @property
    def class_slots(self) -> tuple[int, ...]:
        slots: tuple[int, ...] = self.__dict__["class_slots"]
        return slots

    def whole(self) -> Tool:
        """The tool's whole IR, where the tool is now (unpickled once)."""
        found = self.__dict__.get("_whole")
        if found is None:
            kept = self.__dict__["_stored"]()
            found = dataclasses.replace(kept, line=self.line, path=self.path, lines=self.lines)
            self.__dict__["_whole"] = found
        assert isinstance(found, Tool)
        return found

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (for a worker process) as its whole IR, which unpickling hands back as it is.
        return _as_is, (self.whole(),)


def _as_is(tool: Tool) -> Tool:
    return tool


def _from_whole(name: str) -> property:
    return property(lambda tool: getattr(tool.whole(), name), doc=f"The tool's `{name}`.")


# The fields outside the head, each read from the whole IR: properties on the class come before
# the instance's attributes, and before the dataclass's defaults (`result` is None on `Tool`).
for _field in dataclasses.fields(Tool):
    if _field.name not in (*HEAD, "line", "path", "lines"):
        setattr(StoredTool, _field.name, _from_whole(_field.name))


def layout(lines: dict[JsonPath, int], line: int) -> str:
    """Where a tool's nodes are, relative to its first line."""
    return repr([(path, at - line) for path, at in lines.items()])

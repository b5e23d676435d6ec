"""The build's memo: what each pure stage made of the same inputs in the last build, so that a
rebuild makes only what changed.

The front end's stages know nothing of it. Each applies its pure functions to its items (a tool
at a time) through a `workers.Mapper` it is given: `map_in_workers` by default, a `Memo` when the
build has a cache. A memo knows an item by its `repr` (which says all the function reads of it),
under the function's own name and the generator's digest (`cache.key`): a value kept under that
key is what the function made of the same inputs with the same code, so it is handed back as it
is, and only the items never seen are passed on to `map_in_workers`.

A catalog file's memo is one entry of the build cache (`cache.BuildCache`, which seals it and
writes it whole), named by the file's place alone: each build writes it again, with the values
that build used, so it holds one build's worth and the values of another codegen (which no key of
this one can name) leave it at the next build. Values are kept pickled, one by one, after an
index of their keys and lengths (`memo_body`): read as views of the file's bytes, each unpickled
only when asked for, and written again without being copied one by one. A process that builds again (`codegen build --watch`) keeps its memos in its
`BuildMemory`, read back from disk only when the file is no longer the one it wrote.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import struct
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from codegen import cache as cache_module
from codegen.cache import BuildCache
from codegen.memory import BuildMemory, Record
from codegen.workers import map_in_workers

Item = TypeVar("Item")
Result = TypeVar("Result")

# What `Memo.get` gives for a key it has no value under (a value may be None).
ABSENT: Any = object()


class Memo:
    """The values of one catalog file's last build by key, and those this build used."""

    def __init__(
        self, cache: BuildCache | None, source: str, memory: BuildMemory | None = None
    ) -> None:
        # A cache that keeps nothing (`--no-cache`) is neither read nor written.
        self.cache = cache if cache is not None and cache.directory is not None else None
        self.entry = memo_entry(source)
        self.memory = memory
        self.stored: dict[str, Pickled] = {}  # the last build's values, pickled, by key
        self.objects: dict[str, Any] = {}  # values unpickled or made, by key
        self.used: dict[str, Pickled] = {}  # the values this build asked for or made
        if self.cache is None:
            return
        kept = memory.records.get(self.entry) if memory is not None else None
        if kept is not None and kept.stamp == self.cache.stamp(self.entry):
            self.stored, self.objects = kept.values, dict(kept.objects)
            return
        body = self.cache.get_bytes(self.entry)
        if body is not None:
            # Sealed under this user's key: written by this user's codegen, so unpickled as it is.
            self.stored = memo_values(body)

    @staticmethod
    def key(function: Callable[..., Any], item: object) -> str:
        """The key of what `function` makes of `item`: `cache.key("memo", name, repr(item))`, from
        the digest of its first parts made once (12,000 keys a rebuild at 2,000 tools)."""
        name = f"{function.__module__}.{function.__qualname__}"
        digest = _named(cache_module.generator_digest(), name).copy()
        digest.update(b"\0" + repr(item).encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def __call__(
        self,
        function: Callable[[Item], Result],
        items: Sequence[Item],
        *,
        least: int,
        pickled: bool = False,
    ) -> list[Result]:
        """`function` of each item, in order (a `workers.Mapper`): kept values as they are, the
        others made by `map_in_workers`."""
        if self.cache is None:  # nothing to look up, nor to keep
            return map_in_workers(function, items, least=least, pickled=pickled)
        keys = [self.key(function, item) for item in items]
        found = [self.get(entry) for entry in keys]
        missing = [index for index, value in enumerate(found) if value is ABSENT]
        made = map_in_workers(function, [items[i] for i in missing], least=least, pickled=pickled)
        for index, value in zip(missing, made, strict=True):
            found[index] = value
            self.put(keys[index], value)
        return found

    def one(self, function: Callable[[Item], Result], item: Item) -> Result:
        """`function` of one item, kept."""
        return self(function, [item], least=2)[0]

    def get(self, entry: str) -> Any:
        """The value kept under `entry` (`ABSENT` when there is none), now used by this build."""
        pickled = self.stored.get(entry)
        if pickled is None:
            return ABSENT
        value = self.objects.get(entry, ABSENT)
        if value is ABSENT:
            value = self.objects[entry] = pickle.loads(pickled)
        self.used[entry] = pickled
        return value

    def put(self, entry: str, value: Any) -> None:
        """Keep `value` under `entry`."""
        if self.cache is not None:
            self.objects[entry] = value
            self.used[entry] = pickle.dumps(value, 5)

    def save(self, *, finished: bool = True) -> None:
        """Write the values this build used; a build that stopped before it `finished` (an error)
        keeps the last build's others too, which the build after its fix will ask for."""
        if self.cache is None:
            return
        values = self.used if finished else {**self.stored, **self.used}
        if values.keys() != self.stored.keys():
            self.cache.put_bytes(self.entry, *memo_body(values))
        if self.memory is None:
            return
        on_disk = self.cache.stamp(self.entry)
        if on_disk is None:
            self.memory.records.pop(self.entry, None)  # the next build reads what is there
            return
        objects = {k: v for k, v in self.objects.items() if k in values}
        self.memory.records[self.entry] = Record(on_disk, values, objects)


# A value as kept: its pickle, made by this build or a view of the memo's bytes as read.
Pickled = bytes | memoryview

# The length of a memo body's index, before it.
_INDEX_LENGTH = struct.Struct(">Q")


def memo_body(values: dict[str, Pickled]) -> list[Pickled]:
    """The parts of a memo's body: the length of its index, the index (each key and the length
    of its value, pickled), then each value's pickle."""
    index = pickle.dumps([(key, len(value)) for key, value in values.items()], 5)
    return [_INDEX_LENGTH.pack(len(index)), index, *values.values()]


def memo_values(body: memoryview) -> dict[str, Pickled]:
    """The values of a memo's body (`memo_body`), as views of it; none when it is not one (a
    memo another codegen wrote in another form, sealed with the same key)."""
    try:
        (length,) = _INDEX_LENGTH.unpack_from(body)
        start = _INDEX_LENGTH.size + length
        index = pickle.loads(body[_INDEX_LENGTH.size : start])
        values: dict[str, Pickled] = {}
        for key, size in index:
            values[key] = body[start : start + size]
            start += size
    except Exception:  # noqa: BLE001 - any body not of this form is no memo of this codegen's
        return {}
    return values if start == len(body) and all(isinstance(k, str) for k in values) else {}


@functools.cache
def _named(generator: str, name: str) -> Any:
    """The digest of a memo key's first parts, to be copied: the generator's, "memo", `name`."""
    digest = hashlib.sha256(generator.encode())
    for part in ("memo", name):
        digest.update(b"\0" + part.encode("utf-8", "surrogatepass"))
    return digest


def memo_entry(source: str) -> str:
    """The cache entry of the memo of the catalog file at `source` (as shown in messages): its
    place alone, so that each build of it replaces the last one's."""
    return hashlib.sha256(f"memo\0{source}".encode("utf-8", "surrogatepass")).hexdigest()

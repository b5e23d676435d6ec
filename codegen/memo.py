"""The build's memo: what each pure stage made of the same inputs in the last build, so that a
rebuild makes only what changed.

The front end's stages know nothing of it. Each applies its pure functions to its items (a tool
at a time) through a `workers.Mapper` it is given: `map_in_workers` by default, a `Memo` when the
build has a cache. A memo knows an item by its `repr` (which says all the function reads of it),
under the function's own name and the generator's digest (`cache.key`): a value kept under that
key is what the function made of the same inputs with the same code, so it is handed back as it
is, and only the items never seen are passed on to `map_in_workers`.

A catalog file's memo is kept in the build cache (`cache.BuildCache`, which seals each entry and
writes it whole): values are kept pickled, one by one, in packs, and an index names where each
one is (`write_memo`). Each build writes an index of the values it used, named by the file's
place alone, so the memo holds one build's worth and the values of another codegen (which no key
of this one can name) leave it at the next build; the values it made go in a new pack beside the
packs that still hold the others, so a one-tool rebuild writes that tool's values, not the
catalog's 58 MB again (at 2,000 tools). Packs are gathered into one again when more than half of
what they hold is no longer used, or when there are too many. Read, a pack's values are views of
its bytes, each unpickled only when asked for. A process that builds again (`codegen build
--watch`) keeps its memos in its `BuildMemory`, read back from disk only when the index is no
longer the one it wrote.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from codegen import cache as cache_module
from codegen.cache import BuildCache
from codegen.memory import BuildMemory, Pickled, Place, Record
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
        self.places: dict[str, Place] = {}  # where each of them is kept
        self.objects: dict[str, Any] = {}  # values unpickled or made, by key
        self.used: dict[str, Pickled] = {}  # the values this build asked for or made
        if self.cache is None:
            return
        kept = memory.records.get(self.entry) if memory is not None else None
        if kept is not None and kept.stamp == self.cache.stamp(self.entry):
            self.stored, self.places, self.objects = kept.values, kept.places, dict(kept.objects)
            return
        self.stored, self.places = read_memo(self.cache, self.entry)

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
        return self._mapped(function, items, keys, least=least, pickled=pickled)

    def _mapped(
        self,
        function: Callable[[Item], Result],
        items: Sequence[Item],
        keys: list[str],
        *,
        least: int,
        pickled: bool = False,
    ) -> list[Result]:
        found = [self.get(entry) for entry in keys]
        missing = [index for index, value in enumerate(found) if value is ABSENT]
        made = map_in_workers(function, [items[i] for i in missing], least=least, pickled=pickled)
        for index, value in zip(missing, made, strict=True):
            found[index] = value
            self.put(keys[index], value)
        return found

    def one(self, function: Callable[[Item], Result], item: Item) -> tuple[str, Result]:
        """`function` of one item, kept, and the key it is kept under."""
        entry = self.key(function, item)
        return entry, self._mapped(function, [item], [entry], least=2)[0]

    def get(self, entry: str) -> Any:
        """The value kept under `entry` (`ABSENT` when there is none), now used by this build:
        one the last build kept, or one this build made."""
        value = self.objects.get(entry, ABSENT)
        if value is ABSENT:
            pickled = self.stored.get(entry)
            if pickled is None:
                return ABSENT
            value = self.objects[entry] = pickle.loads(pickled)
        if entry not in self.used:  # a value this build made is in it already
            self.used[entry] = self.stored[entry]
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
        places: dict[str, Place] | None = self.places
        if values.keys() != self.stored.keys():
            places = write_memo(self.cache, self.entry, values, self.places)
        if self.memory is None:
            return
        on_disk = self.cache.stamp(self.entry)
        if on_disk is None or places is None:
            self.memory.records.pop(self.entry, None)  # the next build reads what is there
            return
        objects = {k: v for k, v in self.objects.items() if k in values}
        self.memory.records[self.entry] = Record(on_disk, values, places, objects)


# Packs beyond this many are gathered into one (each is read and checked on every build).
MOST_PACKS = 8


def pack_entries(entry: str) -> list[str]:
    """The cache entries the packs of the memo whose index is `entry` may take: one more than it
    may keep, so a new pack always has one free; a build whose index was lost or damaged still
    finds its old packs, and removes them."""
    # Named by the index alone, as the index is: the first build of another codegen finds the last
    # one's packs in the same slots, and removes what it does not use.
    return [
        hashlib.sha256(f"memo pack\0{entry}\0{slot}".encode()).hexdigest()
        for slot in range(MOST_PACKS + 1)
    ]


def read_memo(cache: BuildCache, entry: str) -> tuple[dict[str, Pickled], dict[str, Place]]:
    """The values of the memo whose index is `entry`, as views of their packs, and where each
    is; none of a pack that is missing or not the one the index names (a build beside this one
    wrote another in its place), and none at all when the index is not one (written in another
    form by another codegen, sealed with the same key)."""
    index = cache.get_bytes(entry)
    if index is None:
        return {}, {}
    values: dict[str, Pickled] = {}
    places: dict[str, Place] = {}
    try:
        # Sealed under this user's key: written by this user's codegen, so unpickled as it is.
        packs = pickle.loads(index)
        assert isinstance(packs, list)
        for pack, sealed, kept in packs:
            found = cache.get_sealed(pack)
            if found is None or found[0] != sealed:
                continue  # its values are made again
            body = found[1]
            for key, offset, length in kept:
                if not (isinstance(key, str) and 0 <= offset <= offset + length <= len(body)):
                    return {}, {}
                values[key] = body[offset : offset + length]
                places[key] = (pack, sealed, len(body), offset, length)
    except Exception:  # noqa: BLE001 - an index not of this form holds nothing of this codegen's
        return {}, {}
    return values, places


def write_memo(
    cache: BuildCache, entry: str, values: dict[str, Pickled], places: dict[str, Place]
) -> dict[str, Place] | None:
    """Write the memo whose index is `entry`, of `values`: those at a place in a pack (`places`)
    are left there, and the others go in a new pack; or, when the packs would hold more than
    twice what is used or be more than `MOST_PACKS`, all go in one new pack. The index names
    each pack with its seal; packs it no longer names are removed. Where each value is now
    (None: not written)."""
    kept = {key: places[key] for key in values if key in places}
    live: dict[str, int] = {}  # what each pack still used holds of the values used
    held: dict[str, int] = {}  # and all it holds
    for pack, _, size, _, length in kept.values():
        live[pack] = live.get(pack, 0) + length
        held[pack] = size
    if len(live) >= MOST_PACKS or sum(held.values()) > 2 * sum(live.values()):
        kept = {}
    placed = dict(kept)
    slots = pack_entries(entry)
    new = [key for key in values if key not in kept]
    if new:
        # A slot the last index did not name: it keeps eight packs at most, of nine slots.
        named_last = {pack for pack, *_ in places.values()}
        pack = next(slot for slot in slots if slot not in named_last)
        sealed = cache.put_bytes(pack, *(values[key] for key in new))
        if sealed is None:
            return None
        offset, size = 0, sum(len(values[key]) for key in new)
        for key in new:
            placed[key] = (pack, sealed, size, offset, len(values[key]))
            offset += len(values[key])
    by_pack: dict[tuple[str, bytes], list[tuple[str, int, int]]] = {}
    for key, (pack, sealed, _, offset, length) in placed.items():
        by_pack.setdefault((pack, sealed), []).append((key, offset, length))
    index = [(pack, sealed, there) for (pack, sealed), there in by_pack.items()]
    if cache.put_bytes(entry, pickle.dumps(index, 5)) is None:
        return None
    named = {pack for pack, _ in by_pack}
    for slot in slots:
        if slot not in named:
            cache.remove(slot)
    return placed


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

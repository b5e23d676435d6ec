"""The build cache is trusted only where its bytes are what was stored (issue 17, items 3 and 12)."""

from __future__ import annotations

import hashlib
import mmap
import os
import pathlib
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import codegen.cache
from codegen.build import check_catalog
from codegen.cache import DIRECTORY, BuildCache, seal
from codegen.catalog.ir import Tool
from codegen.catalog.reuse import ToolResults, pack_values, unpack_values, unpickled
from codegen.payloads.schema import Finding
from codegen.python.module_names import class_names
from codegen.tool_outputs import ToolOutput
from tests.test_cli import BUNDLED, _edit_memory_search, output, run, tree


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "memory_tools.yaml").write_bytes(
        (BUNDLED / "memory_tools.yaml").read_bytes()
    )
    return tmp_path


@pytest.fixture
def built(project: Path) -> Path:
    result = run(project, "build")
    assert result.returncode == 0, output(result)
    return project


def entries(project: Path) -> list[Path]:
    return [p for p in (project / DIRECTORY).rglob("*") if p.is_file() and p.name != ".gitignore"]


def fresh_tree(project: Path, tmp_path: Path) -> dict[str, bytes]:
    result = run(project, "build", "--no-cache", "--out", str(tmp_path / "reference"))
    assert result.returncode == 0, output(result)
    return tree(tmp_path / "reference")


def import_every_module(project: Path) -> None:
    script = (
        "import importlib, pathlib\n"
        "for p in sorted(pathlib.Path('generated').rglob('*.py')):\n"
        "    importlib.import_module('.'.join(p.with_suffix('').parts).removesuffix('.__init__'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("damage", ["truncated", "code appended"])
def test_a_damaged_cache_entry_is_never_used(built: Path, tmp_path: Path, damage: str) -> None:
    reference = fresh_tree(built, tmp_path)
    sentinel = tmp_path / "appended_code_ran"
    damaged = entries(built)
    # The catalog's record, its package's (a head and the files beside the tools'), the examples'
    # check, and the three slots that name the current record and package entries.
    assert len(damaged) == 7
    for entry in damaged:
        stored = entry.read_bytes()  # text, or a catalog's pickled record
        if damage == "truncated":
            entry.write_bytes(stored[: len(stored) // 2])
        else:
            code = f"\nimport pathlib\npathlib.Path({str(sentinel)!r}).write_text('ran')\n"
            entry.write_bytes(stored + code.encode())
    (built / "generated").rename(tmp_path / "first_output")
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert tree(built / "generated") == reference
    check = run(built, "build", "--check")
    assert check.returncode == 0, output(check)
    import_every_module(built)
    assert not sentinel.exists()


def test_a_damaged_entry_is_replaced_by_a_sound_one(built: Path) -> None:
    for entry in entries(built):
        entry.write_bytes(b"damaged")
    assert run(built, "build").returncode == 0
    assert all(e.read_bytes() != b"damaged" for e in entries(built))


def test_check_writes_nothing_not_even_the_cache(project: Path) -> None:
    result = run(project, "build", "--check")
    assert result.returncode == 1
    assert sorted(p.name for p in project.iterdir()) == ["schemas"]
    assert run(project, "build", "--no-cache").returncode == 0
    result = run(project, "build", "--check")
    assert result.returncode == 0, output(result)
    assert sorted(p.name for p in project.iterdir()) == ["generated", "schemas"]


class _Planted:
    """What a planted pickle would do: write a file when it is read back."""

    def __init__(self, sentinel: str) -> None:
        self.sentinel = sentinel

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (pathlib.Path.write_text, (pathlib.Path(self.sentinel), "ran"))


@pytest.mark.parametrize("where", ["the record", "each value"])
def test_a_planted_record_with_a_matching_digest_runs_no_code(
    built: Path, tmp_path: Path, where: str
) -> None:
    # A pull request can commit files into .codegen_cache/ with digests that match: the per-tool
    # records are read back with the IR's classes only, never by calling what they name. One
    # tool is edited, so the build reads the record for the others.
    _edit_memory_search(built)
    reference = fresh_tree(built, tmp_path)
    sentinel = tmp_path / "planted_code_ran"
    payload = _Planted(str(sentinel))
    records = 0
    for entry in entries(built):
        head, _, body = entry.read_bytes().partition(b"\n")
        # A catalog's record is frames (seal, length, body) of pickled values by key.
        _, _, length = head.partition(b" ")
        values = unpack_values(memoryview(body[: int(length)])) if length else None
        if values is not None:
            if where == "the record":
                planted = pickle.dumps({k: payload for k in values})
            else:  # under the keys the build looks up: each value is unpickled on its own
                planted = pack_values({k: pickle.dumps(payload) for k in values})
            # One frame (seal, length, body), sealed as the record's own are: as if the planter
            # had the user's key, which leaves only the unpickler to refuse it.
            entry.write_bytes(b"%s %d\n" % (seal(planted), len(planted)) + planted)
            records += 1
    assert records == 1
    (built / "generated").rename(tmp_path / "first_output")
    result = run(built, "build")
    assert result.returncode == 0, output(result)
    assert not sentinel.exists()
    assert tree(built / "generated") == reference


def test_the_record_of_tools_with_typed_results_is_read_back(tmp_path: Path) -> None:
    # Every IR class a record holds must be one the reader allows, or the whole record is
    # dropped and every tool is checked again on every build (slow, and silent).
    cache = BuildCache(tmp_path / DIRECTORY)
    catalog, _ = check_catalog(BUNDLED / "memory_tools.yaml", BUNDLED, cache=cache)
    assert any(tool.result is not None for tool in catalog.tools)
    written = ToolResults(cache, "memory_tools.yaml")
    assert written.old
    tools = [
        unpickled(value) for entry, value in written.old.items() if entry.startswith("tool-ir\0")
    ]
    assert len(tools) == 4 and all(isinstance(tool, Tool) for tool in tools)
    assert [tool.wire_name for tool in tools if tool.result is not None] == ["search_files"]
    # Beside each, its head: what a rebuild reads of a tool it does not make again.
    heads = [
        unpickled(value)[0] for entry, value in written.old.items() if entry.startswith("tool\0")
    ]
    assert {h["wire_name"]: (h["wants"], h["class_slots"]) for h in heads} == {
        tool.wire_name: (tool.wants, tool.class_slots) for tool in tools
    }
    assert ("SearchFilesArgs", "SearchFilesResult") in [class_names(tool) for tool in catalog.tools]


def _output() -> ToolOutput:
    finding = Finding(("properties", "q"), "cannot say minLength", "CG102")
    return ToolOutput(
        b"X = 1\n",
        {"MCP_TOOLS": '  {"a": "é\\n"}'.encode()},
        (("MCP", finding),),
        b"# q\n",
        "## q\n",
        False,
    )


def test_a_tools_record_gives_back_its_output() -> None:
    record = _output().record()
    output = ToolOutput.from_record(record)
    assert output == _output()
    # Its files' bytes are slices of the record, read as they are.
    assert output is not None and isinstance(output.module, memoryview)
    assert output.module.obj is record


def _record(*rest: object, texts: tuple[bytes, ...] = (b"X = 1\n", b"# q\n", b"  {}")) -> bytes:
    pickled = pickle.dumps(rest)
    return b"%d\n" % len(pickled) + pickled + b"".join(texts)


SIZES = [6, 4, 4]


@pytest.mark.parametrize(
    "record",
    [
        b"",
        b"X = 1\n",
        b"9999\n" + pickle.dumps(([], "## q\n", False, ["MCP_TOOLS"], SIZES)),  # cut short
        b"3\nabcX = 1\n",  # no pickle
        _record([], "## q\n", False, ["MCP_TOOLS"]),  # no sizes
        _record([], "## q\n", 1, ["MCP_TOOLS"], SIZES),  # a legend flag that is no bool
        _record([], b"## q\n", False, ["MCP_TOOLS"], SIZES),  # a section that is no text
        _record({}, "## q\n", False, ["MCP_TOOLS"], SIZES),  # findings not a list
        _record([1], "## q\n", False, ["MCP_TOOLS"], SIZES),
        _record([("MCP", ("p",), 1, "CG201")], "## q\n", False, ["MCP_TOOLS"], SIZES),
        _record([("MCP", "p", "m", "CG201")], "## q\n", False, ["MCP_TOOLS"], SIZES),  # path
        _record([("MCP", (None, 1.5), "m", "CG201")], "## q\n", False, ["MCP_TOOLS"], SIZES),
        _record([], "## q\n", False, [1], SIZES),  # a constant's name that is no text
        _record([], "## q\n", False, ["MCP_TOOLS"], [6, 4]),  # a size missing
        _record([], "## q\n", False, ["MCP_TOOLS"], [6, 4, 5]),  # sizes past the end
        _record([], "## q\n", False, ["MCP_TOOLS"], [6, 4, 3]),  # bytes after the files
        _record([], "## q\n", False, ["MCP_TOOLS"], [6, 4, "4"]),
        _record([], "## q\n", False, ["MCP_TOOLS"], [7, -1, 4]),
    ],
)
def test_a_tools_record_codegen_did_not_write_is_not_used(record: bytes) -> None:
    # Its digest matching (tests above), a record of another shape is made again, never read.
    assert ToolOutput.from_record(record) is None


def test_a_record_of_the_right_shape_is_read() -> None:
    # The cases above fail for the reason each names: the same record with each put right reads.
    output = ToolOutput.from_record(_record([], "## q\n", False, ["MCP_TOOLS"], SIZES))
    assert output is not None
    assert (bytes(output.module), output.section, output.shares) == (b"X = 1\n", "## q\n", False)
    assert {k: bytes(v) for k, v in output.entries.items()} == {"MCP_TOOLS": b"  {}"}


def test_a_planted_slot_removes_nothing_outside_the_cache(built: Path, tmp_path: Path) -> None:
    # A slot names the entry a newer codegen removes: one that names a path instead is ignored.
    victim = built / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    slots = list((built / DIRECTORY / "slots").iterdir())
    assert len(slots) == 3
    for slot in slots:  # an absolute path: joined to the cache's directory, it would reach it
        slot.write_text(str(victim), encoding="ascii")
    _edit_memory_search(built)
    assert run(built, "build").returncode == 0
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert all(len(slot.read_text(encoding="ascii")) == 64 for slot in slots)


def test_an_entry_made_elsewhere_is_not_read(built: Path, tmp_path: Path) -> None:
    # What a pull request can commit: entries whose digests are of their own bytes, which anyone
    # can compute. Entries are sealed with the user's key (cache.seal), so none is read: the
    # build makes what it would make without them.
    reference = fresh_tree(built, tmp_path)
    for entry in entries(built):
        if entry.parent.name == "slots":
            continue  # not entries: the names of the current ones
        head, _, body = entry.read_bytes().partition(b"\n")
        sealed, _, length = head.partition(b" ")  # a record's frame also says its length
        assert sealed == seal(body) != hashlib.sha256(body).hexdigest().encode()
        if length:
            assert int(length) == len(body)  # the record is one frame here
        body = body.replace(b"memory_tools", b"memory_toolz")  # the same length: still whole
        digest = hashlib.sha256(body).hexdigest().encode()
        head = b"%s %d" % (digest, len(body)) if length else digest
        entry.write_bytes(head + b"\n" + body)
    result = run(built, "build", "--check")
    assert result.returncode == 0, output(result)
    (built / "generated").rename(tmp_path / "first_output")
    assert run(built, "build").returncode == 0
    assert tree(built / "generated") == reference


def test_the_key_that_seals_entries_is_the_users_own(tmp_path: Path) -> None:
    # Made once, readable by its owner only, and the same for every build of this user; where
    # none can be made (a read-only cache home), a key of the process alone, so that nothing a
    # build reads was sealed by another.
    script = "from codegen.cache import user_key\nimport sys\nsys.stdout.write(user_key().hex())\n"

    def key_with(home: Path) -> str:
        done = subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "XDG_CACHE_HOME": str(home)},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    home = tmp_path / "home"
    first = key_with(home)
    made = home / "codegen" / "cache-key"
    assert made.read_bytes().hex() == first == key_with(home)
    assert made.stat().st_mode & 0o777 == 0o600
    made.chmod(0o644)  # readable by others: not a secret any more, so not used
    assert key_with(home) not in (first, key_with(home))
    made.chmod(0o600)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache home should be", encoding="utf-8")
    assert key_with(blocked) != key_with(blocked)  # no home for a key: one a process


@pytest.fixture
def mapping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BuildCache:
    """A cache whose records are mapped whatever their size, and one record in it ("ab…")."""
    monkeypatch.setattr(codegen.cache, "MAP_FROM", 1)
    cache = BuildCache(tmp_path)
    assert cache.put_frame(RECORD, b"first", alone=True)
    return cache


RECORD = "ab" + "0" * 62


def test_a_record_is_read_as_it_was_when_written_again_meanwhile(mapping: BuildCache) -> None:
    # A large record is read mapped (POSIX): its bytes must not change under the build that reads
    # them. Written again whole, it is a new file; a frame added goes past what was read.
    cache, entry = mapping, RECORD
    (frame,), whole = cache.get_frames(entry)
    assert (bytes(frame), whole) == (b"first", True)
    assert isinstance(frame.obj, mmap.mmap) == (os.name == "posix")
    assert cache.put_frame(entry, b"second", alone=False)
    assert cache.put_frame(entry, b"third", alone=True)
    assert bytes(frame) == b"first"
    assert [bytes(f) for f in cache.get_frames(entry)[0]] == [b"third"]


def test_an_empty_record_is_no_frame(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    entry = "cd" + "0" * 62
    (tmp_path / entry[:2]).mkdir()
    (tmp_path / entry[:2] / entry).write_bytes(b"")
    assert cache.get_frames(entry) == ([], True)


def test_a_record_that_cannot_be_mapped_is_read(
    mapping: BuildCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_room(*args: object, **kwargs: object) -> mmap.mmap:
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(mmap, "mmap", no_room)
    (frame,), whole = mapping.get_frames(RECORD)
    assert (bytes(frame), whole, type(frame.obj)) == (b"first", True, bytes)


def test_records_mapped_at_once_hold_few_file_descriptors(
    mapping: BuildCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A mapping keeps a descriptor open while a slice of it lives (before Python 3.13): a build of
    # hundreds of catalogs holds slices of every record, and must not run out of descriptors.
    monkeypatch.setattr(codegen.cache, "MAPPED_AT_ONCE", 4)
    cache = mapping
    entries = [f"{n:02x}" + "0" * 62 for n in range(40)]
    for entry in entries:
        assert cache.put_frame(entry, entry.encode(), alone=True)
    before = len(os.listdir("/dev/fd"))  # this process's descriptors (Linux, macOS)
    held = [cache.get_frames(entry)[0][0] for entry in entries]
    assert [bytes(frame) for frame in held] == [entry.encode() for entry in entries]
    assert sum(isinstance(frame.obj, mmap.mmap) for frame in held) >= 4
    assert len(os.listdir("/dev/fd")) - before <= 4

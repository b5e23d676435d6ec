"""A build's files keep their bytes: text given is encoded once, bytes are kept as they are."""

from __future__ import annotations

from codegen.package_files import Files


def test_files_read_as_text_and_as_bytes() -> None:
    files = Files([("a.txt", "é\r\n"), ("b.txt", b"caf\xc3\xa9")])
    assert (files["a.txt"], files.data("a.txt")) == ("é\r\n", "é\r\n".encode())
    assert (files["b.txt"], files.data("b.txt")) == ("café", b"caf\xc3\xa9")
    assert dict(files) == {"a.txt": "é\r\n", "b.txt": "café"}
    assert "b.txt" in files and "c.txt" not in files and len(files) == 2


def test_files_copied_and_ordered_keep_the_same_bytes() -> None:
    record = b"xyz"
    files = Files([("z", record), ("a", "text")])
    ordered = files.in_order()
    assert list(ordered) == ["a", "z"] and list(files) == ["z", "a"]
    merged = Files()
    merged.update(files)
    merged.update({"m": b"raw"})
    assert list(merged) == ["z", "a", "m"] and merged.data("m") == b"raw"
    copy = files.copy()
    copy["a"] = "changed"
    assert files["a"] == "text" and copy == {"z": "xyz", "a": "changed"}

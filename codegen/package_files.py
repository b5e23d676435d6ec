"""A build's files: path → the bytes the file holds, read as text on demand.

A rebuild takes most of a large package from its catalog's memo: each unchanged tool's module,
docs page and payload entries are bytes as kept (`tool_outputs.ToolOutput`), and the payload files
are joined from them. Kept as bytes, they are compared with the output directory and written as
they are; at 2,000 tools, decoding them to text and encoding it again was a tenth of a one-tool
rebuild. Who reads a file as text (`files[path]`) has it decoded then.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

# A file's bytes, UTF-8.
Data = bytes


class Files(Mapping[str, str]):
    """Path → text, each file kept as its UTF-8 bytes."""

    def __init__(self, files: Iterable[tuple[str, str | Data]] = ()) -> None:
        self._data: dict[str, Data] = {}
        for path, content in files:
            self[path] = content

    def __setitem__(self, path: str, content: str | Data) -> None:
        self._data[path] = content.encode("utf-8") if isinstance(content, str) else content

    def update(self, files: Files | Mapping[str, str | Data]) -> None:
        for path, content in files._data.items() if isinstance(files, Files) else files.items():
            self[path] = content

    def __getitem__(self, path: str) -> str:
        return str(self._data[path], "utf-8")

    def data(self, path: str) -> bytes:
        """The file's bytes."""
        return self._data[path]

    def __contains__(self, path: object) -> bool:
        return path in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def copy(self) -> Files:
        return Files(self._data.items())

    def in_order(self) -> Files:
        """The same files, by path."""
        return Files((path, self._data[path]) for path in sorted(self._data))

    def __repr__(self) -> str:
        return f"Files({sorted(self._data)!r})"

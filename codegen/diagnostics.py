"""Problems found in a catalog, collected as values so one run reports all of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

JsonPath = tuple[str | int, ...]


def format_path(path: JsonPath) -> str:
    """Render a JSON path the way people write it: `tools[0].parameters.properties.limit`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            # Keys are catalog text: a newline in one must not split the message.
            text = "".join(
                ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                for ch in part
            )
            out += f".{text}" if out else text
    return out or "(root)"


@dataclass(frozen=True, order=True)
class Diagnostic:
    file: str
    line: int
    path: str
    message: str
    level: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        prefix = "" if self.level == "error" else "warning: "
        return f"{self.file}:{self.line}: {prefix}{self.path}: {self.message}"


class CatalogError(Exception):
    """Raised with every error of a run; nothing has been written when it is."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))

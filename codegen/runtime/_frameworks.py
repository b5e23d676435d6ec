"""The agent frameworks a package can plug its tools into, each imported only when its module is
used: the package itself imports none of them, and one that is missing is an ImportError that
says what to install.

A framework's module is `Any` here whether it is installed or not, so the package passes
`mypy --strict` either way: what is asked of a framework is held by the end-to-end tests that
run each one (tests/test_frameworks.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._executor import ToolExecutor


def load(module: str, package: str, purpose: str) -> Any:
    """The framework's module `module`, or an ImportError that names `package` to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{purpose} needs the `{package}` package (pip install {package})"
            f" and could not import it: {exc}"
        ) from exc


def offered(
    payload: Sequence[Mapping[str, Any]], sent_names: Mapping[str, str], executor: ToolExecutor
) -> list[Mapping[str, Any]]:
    """The payload's entries (OpenAI Chat tools) of the tools the executor has a handler for
    (given under the wire name or an alias: the executor decides), in the catalog's order: a
    framework is given only the tools it can run."""
    wire_of = {sent: wire for wire, sent in sent_names.items()}
    return [
        tool
        for tool in payload
        if executor.handles(wire_of.get(tool["function"]["name"], tool["function"]["name"]))
    ]

"""A playground server for a built catalog, served on a thread for the length of a test module:
the plain-HTTP tests and the browser tests ask the same server."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator

from codegen.playground.catalog import Playground
from codegen.playground.server import PlaygroundServer


def serving(catalog: str, handlers: object = None) -> Iterator[PlaygroundServer]:
    """The server of `generated.<catalog>` (with `handlers`, Run is on), shut down after."""
    package = importlib.import_module(f"generated.{catalog}")
    server = PlaygroundServer(Playground(package, handlers))  # type: ignore[arg-type]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()

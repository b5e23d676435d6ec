"""`codegen` as a child process that Ctrl-C (SIGINT) stops as it stops it at a terminal.

A test runner started in the background by a shell has SIGINT ignored; its children inherit
that, and Python then leaves it ignored, so a SIGINT sent to a plain `python -m codegen` child
does nothing and the test hangs. The child here puts Python's own handler back, then runs what
`python -m codegen` runs.
"""

from __future__ import annotations

import sys

_ENTRY = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from codegen.cli import run; run()"
)


def codegen_command(*args: str) -> list[str]:
    """The argv of `codegen ARGS` in a child that SIGINT interrupts; faulthandler on, so that
    SIGABRT prints where the child is stuck should it ever fail to end."""
    return [sys.executable, "-X", "faulthandler", "-c", _ENTRY, *args]

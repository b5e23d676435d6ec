"""The Python back end: the IR in, the generated package's modules out (render → format)."""

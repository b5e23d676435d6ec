"""The front end: catalog files in, the IR out (load → validate → normalize)."""

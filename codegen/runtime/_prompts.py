"""The catalog's prompts for models without native function calling, read from `prompts/*.txt`
the first time each is used: the files stay the one copy, as the payloads' do."""

from __future__ import annotations

from importlib.resources import files

# Declared for type checkers; the values are the files' (`__getattr__`, PEP 562).
JSONL_PROMPT: str
SINGLE_JSON_PROMPT: str

FILES = {"JSONL_PROMPT": "jsonl.txt", "SINGLE_JSON_PROMPT": "single_json.txt"}


def __getattr__(name: str) -> str:
    file = FILES.get(name)
    if file is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # Bytes, decoded as they are: reading text would turn a carriage return into a line break.
    data = files(__package__ or "").joinpath("prompts", file).read_bytes()
    text = data.decode("utf-8")
    globals()[name] = text  # found directly from now on
    return text

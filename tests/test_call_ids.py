"""One minter of call ids (issue 33, call ids): a call that came without an id gets
`call_<position>` (from 0, among the reply's requests) from `_ids.ReplyIds.mint`, once every id
the model gave in the reply is claimed, in every reader: the four adapters, their stream readers,
`parse_reply` (JSON, native formats), `parse_jsonl` and `parse_single_json`. So every id is
unique, every id the model gave is kept, even one that looks made up (`call_0`, `call_1`), and the
results of `to_*` answer the calls of `history_*` one to one."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import stream_events as ev
from tests.conftest import build_package
from tests.test_reply_calls import answers, history_calls, read, search

ROOT = Path(__file__).resolve().parent.parent
PROPERTY = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROVIDERS = ["openai_chat", "openai_responses", "anthropic", "gemini"]
# Ids the model may give, "" for none; those that look made up are the point.
GIVEN = ["", "", "call_0", "call_1", "call_2", "call_1_2", "c1"]
TOOLS = {
    "memory.search": '{"query": "q"}',
    "read_file": '{"filePath": "a", "startLine": 3}',
}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return build_package(ROOT / "schemas" / "memory_tools.yaml", tmp_path_factory.mktemp("pkg"))


@st.composite
def calls(draw: st.DrawFn) -> list[ev.Call]:
    """Calls with and without ids; the ids the model gives are distinct (a repeated id is
    `duplicate_call_id`, held elsewhere)."""
    count = draw(st.integers(1, 5))
    ids = draw(st.lists(st.sampled_from(GIVEN), min_size=count, max_size=count))
    ids = [call_id if call_id not in ids[:i] else "" for i, call_id in enumerate(ids)]
    names = draw(st.lists(st.sampled_from(sorted(TOOLS)), min_size=count, max_size=count))
    return [(call_id, name, TOOLS[name]) for call_id, name in zip(ids, names, strict=True)]


def assert_minted(made: list[ev.Call], requests: Any) -> None:
    """One request per call, in order: the model's id where it gave one, else `call_<position>`
    or, when the model gave that id to another call, `call_<position>_<k>`; all distinct."""
    ids = [request.tool_call_id for request in requests]
    assert len(ids) == len(made)
    assert len(set(ids)) == len(ids), ids
    for position, ((given_id, name, _), request) in enumerate(zip(made, requests, strict=True)):
        assert request.ok, request
        if given_id:
            assert request.tool_call_id == given_id
        else:
            assert request.tool_call_id.split("_")[:2] == ["call", str(position)], ids
        assert request.tool_name == name


def whole_reply(provider: str, made: list[ev.Call]) -> object:
    if provider == "openai_chat":
        return {"choices": [{"index": 0, "message": ev.chat_message(made)}]}
    if provider == "openai_responses":
        return ev.responses_final(made)
    if provider == "anthropic":
        return ev.anthropic_final(made)
    return ev.gemini_final(made)


def events(provider: str, made: list[ev.Call], size: int) -> list[ev.Event]:
    if provider == "openai_chat":
        return ev.chat_events(made, size)
    if provider == "openai_responses":
        return ev.responses_events(made, size)
    if provider == "anthropic":
        return ev.anthropic_events(made, size)
    return ev.gemini_events(made)


@PROPERTY
@given(made=calls(), size=st.integers(1, 9))
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_provider_reply_keeps_every_id_the_model_gave(
    pkg: ModuleType, provider: str, made: list[ev.Call], size: int
) -> None:
    """Issue 33 (call ids): a whole reply and its stream give the same requests, each call the
    model gave an id keeps it, the others get `call_<position>` from 0, and the results of the
    requests answer the calls of the history one to one. Before, a call without an id took
    `call_0` and a later call whose own id was `call_0` was dropped as `duplicate_call_id`."""
    whole = whole_reply(provider, made)
    requests = getattr(pkg, f"from_{provider}")(whole)
    assert_minted(made, requests)
    stream = getattr(pkg, f"from_{provider}_stream")(events(provider, made, size))
    assert list(stream) == requests and stream.problems == []
    executor = pkg.Executor({"memory.search": search, "read_file": read})
    results = [executor.execute(request) for request in requests]
    held = history_calls(provider, getattr(pkg, f"history_{provider}")(whole))
    answered = answers(provider, pkg, results)
    if provider == "gemini":  # paired by position; an id only where the call had one
        assert [call_id for call_id, _ in held] == [i or None for i, _, _ in made]
        assert [i for i, _ in answered] == [r.tool_call_id for r in requests]
    else:
        assert Counter(i for i, _ in held) == Counter(i for i, _ in answered)
        assert len(held) == len(made)


def call_object(call: ev.Call) -> dict[str, object]:
    call_id, name, arguments = call
    found: dict[str, object] = {"name": name, "parameters": json.loads(arguments)}
    if call_id:
        found["call_id"] = call_id
    return found


def mistral(call: ev.Call) -> str:
    call_id, name, arguments = call
    return f"[TOOL_CALLS]{name}" + (f"[CALL_ID]{call_id}" if call_id else "") + f"[ARGS]{arguments}"


# The forms of model text, each writing the calls its way.
TEXTS = {
    "jsonl": lambda made: "\n".join(json.dumps(call_object(c)) for c in made),
    "json array": lambda made: json.dumps([call_object(c) for c in made]),
    "hermes": lambda made: "".join(
        f"<tool_call>\n{json.dumps(call_object(c))}\n</tool_call>\n" for c in made
    ),
    "mistral": lambda made: "".join(mistral(c) for c in made),
    "openai objects": lambda made: "\n".join(
        json.dumps(
            {
                "id": c[0] or None,
                "type": "function",
                "function": {"name": c[1], "arguments": c[2]},
            }
        )
        for c in made
    ),
}


@PROPERTY
@given(made=calls())
@pytest.mark.parametrize("form", sorted(TEXTS))
def test_model_text_keeps_every_id_the_model_gave(
    pkg: ModuleType, form: str, made: list[ev.Call]
) -> None:
    """Issue 33 (call ids): `parse_reply` of model text in each form (and `parse_jsonl`, and
    `parse_single_json`, where the form is theirs) keeps each id the model wrote and gives the
    others `call_<position>` from 0. Before, text counted from 1 (JSONL by line), and a model's
    own `call_1` after a call without an id was refused."""
    text = TEXTS[form](made)
    found = pkg.parse_reply(text)
    assert found.problems == ()
    assert_minted(made, found)
    if form in ("jsonl", "openai objects"):
        assert pkg.parse_jsonl(text) == found
    if form == "json array":
        assert pkg.parse_single_json(text) == found


def test_a_jsonl_stream_mints_as_each_line_ends(pkg: ModuleType) -> None:
    """Issue 33 (call ids), the one reader that mints at once: a line stream yields each call as
    its line ends, so a later line whose own id is the one minted before is `duplicate_call_id`
    (the whole reply, `parse_jsonl`, keeps it)."""
    text = "\n".join(json.dumps(call_object(c)) for c in [("", "read_file", TOOLS["read_file"])])
    text += '\n{"name": "memory.search", "parameters": {"query": "q"}, "call_id": "call_0"}'
    streamed = list(pkg.iter_jsonl([text]))
    assert [getattr(item, "tool_call_id", None) for item in streamed] == ["call_0", None]
    assert streamed[1].reason == "duplicate_call_id"
    assert [c.tool_call_id for c in pkg.parse_jsonl(text)] == ["call_0_2", "call_0"]

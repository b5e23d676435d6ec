"""Issue 36, the playground's server over plain HTTP: who may ask (Host, Origin, token), how
much, for which paths, and what the answers hold; and `codegen playground` as a command."""

from __future__ import annotations

import http.client
import importlib
import json
import os
import re
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from interruptible import codegen_command
from playground_serving import serving

from codegen.playground import server as server_module
from codegen.playground.catalog import MISSING, _at
from codegen.playground.server import ASSETS, MAX_BODY, TOKEN_HEADER, PlaygroundServer, admitted
from codegen.runtime._codes import CODES
from codegen.runtime._mcp import http_endpoint
from tests.mcp_handlers import HANDLERS

ROOT = Path(__file__).resolve().parent.parent
ASSET_DIR = ROOT / "codegen" / "playground" / "assets"


@pytest.fixture(scope="module")
def calendar() -> Iterator[PlaygroundServer]:
    yield from serving("calendar_tools")


@pytest.fixture(scope="module")
def memory() -> Iterator[PlaygroundServer]:
    yield from serving("memory_tools", HANDLERS)


def ask(
    server: PlaygroundServer,
    method: str,
    path: str,
    body: object = None,
    *,
    headers: dict[str, str] | None = None,
    token: str | None = "right",
) -> tuple[int, dict[str, str], bytes]:
    """One request with exactly the headers given: Host is the server's own unless `headers`
    says otherwise (None there: no such header), the token header the right one by default."""
    sent = {"Host": f"127.0.0.1:{server.server_port}"}
    if token is not None:
        sent[TOKEN_HEADER] = server.token if token == "right" else token
    data = b""
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent |= {"Content-Type": "application/json", "Content-Length": str(len(data))}
    sent |= headers or {}
    connection = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in sent.items():
            if value is not None:
                connection.putheader(name, value)
        connection.endheaders(data or None)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def parse_answer(server: PlaygroundServer, text: str, reading: str, tool: str = "") -> dict:
    status, _, body = ask(
        server, "POST", "/api/parse", {"text": text, "reading": reading, "tool": tool}
    )
    assert status == 200, body
    return json.loads(body)


# ---- the token ------------------------------------------------------------------------------

QUESTIONS = [
    ("GET", "/api/catalog", None),
    ("POST", "/api/parse", {"text": "{}", "reading": "arguments", "tool": "list_calendars"}),
    ("POST", "/api/run", {"tool": "list_calendars", "arguments": "{}"}),
]


@pytest.mark.parametrize(("method", "path", "body"), QUESTIONS)
@pytest.mark.parametrize("token", [None, "", "wrong", "right-but-longer", "RIGHT"])
def test_every_question_needs_the_token(
    calendar: PlaygroundServer, method: str, path: str, body: object, token: str | None
) -> None:
    """Item 5: the token on every request that reads the catalog, parses or runs."""
    given = (
        None if token is None else calendar.token + "x" if token == "right-but-longer" else token
    )
    if token == "RIGHT":
        given = calendar.token.swapcase()
    status, _, answer = ask(calendar, method, path, body, token=given)
    assert (status, json.loads(answer)) == (
        403,
        {"error": "the token is missing or wrong: open the printed URL"},
    )


def test_the_token_in_the_query_is_not_the_header(calendar: PlaygroundServer) -> None:
    """Item 5: a question takes the token from its header only (a link cannot carry it there)."""
    status, _, _ = ask(calendar, "GET", f"/api/catalog?token={calendar.token}", token=None)
    assert status == 403


def test_the_page_needs_the_token_in_its_address(calendar: PlaygroundServer) -> None:
    """Item 5: the page itself is served only at the printed address."""
    assert ask(calendar, "GET", "/", token=None)[0] == 403
    assert ask(calendar, "GET", "/?token=wrong", token=None)[0] == 403
    status, headers, body = ask(calendar, "GET", f"/?token={calendar.token}", token=None)
    assert status == 200
    assert body == (ASSET_DIR / "page.html").read_bytes()
    assert headers["Content-Type"] == "text/html; charset=utf-8"


def test_the_right_token_gets_answers(calendar: PlaygroundServer) -> None:
    status, _, body = ask(calendar, "GET", "/api/catalog")
    assert status == 200
    catalog = json.loads(body)
    assert [t["name"] for t in catalog["tools"]] == list(
        importlib.import_module("generated.calendar_tools").TOOLS
    )
    assert catalog["runnable"] is False
    assert catalog["codes"]["missing_required"] == {
        "section": "parameter",
        "level": "error",
        "when": CODES["missing_required"].meaning,
    }


# ---- Host and Origin --------------------------------------------------------------------------

FOREIGN_HOSTS = [
    "evil.example",
    "evil.example:{port}",
    "127.0.0.1.evil.example:{port}",
    "localhost.evil.example:{port}",
    "127.0.0.1:{port}@evil.example",
    "127.0.0.1:{port}.evil",
    "127.0.0.2:{port}",
    "0.0.0.0:{port}",
    "",
]


@pytest.mark.parametrize("host", [*FOREIGN_HOSTS, None])
def test_a_foreign_host_is_refused(calendar: PlaygroundServer, host: str | None) -> None:
    """Item 5, DNS rebinding: a page of another name that resolves to 127.0.0.1 sends its own
    name as Host; it is refused (421, as the MCP server answers), token or not."""
    value = None if host is None else host.format(port=calendar.server_port)
    for method, path, body in [("GET", f"/?token={calendar.token}", None), *QUESTIONS]:
        status, _, answer = ask(calendar, method, path, body, headers={"Host": value})
        assert (status, json.loads(answer)) == (421, {"error": "this Host is not served here"})


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}"])
def test_the_loopback_names_are_served(calendar: PlaygroundServer, host: str) -> None:
    headers = {"Host": host.format(port=calendar.server_port)}
    assert ask(calendar, "GET", "/api/catalog", headers=headers)[0] == 200


FOREIGN_ORIGINS = [
    "http://evil.example",
    "https://evil.example",
    "null",
    "http://127.0.0.1.evil.example:{port}",
    "http://localhost:{port}.evil.example",
    "https://127.0.0.1:{port}",
    "http://127.0.0.1:{port}/",
    "file://",
    # Another local app's page (review: any port of a loopback name was admitted).
    "http://127.0.0.1",
    "http://localhost",
    "http://localhost:1{port}",
    "http://127.0.0.1:8080",
]


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_foreign_origin_is_refused(calendar: PlaygroundServer, origin: str) -> None:
    """Item 5: a script of another origin that learnt the token still cannot read or parse."""
    headers = {"Origin": origin.format(port=calendar.server_port)}
    for method, path, body in QUESTIONS:
        status, _, answer = ask(calendar, method, path, body, headers=headers)
        assert (status, json.loads(answer)) == (
            403,
            {"error": "requests from this Origin are refused"},
        )


def test_the_pages_own_origin_is_served(calendar: PlaygroundServer) -> None:
    headers = {"Origin": f"http://127.0.0.1:{calendar.server_port}"}
    assert ask(calendar, "GET", "/api/catalog", headers=headers)[0] == 200


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40))
def test_only_http_endpoints_names_are_admitted(value: str) -> None:
    """Item 5: the one rule (`http_endpoint` for a loopback bind) decides; `admitted` lets
    through a loopback name with no port or a port of digits, and nothing else."""
    endpoint = http_endpoint("127.0.0.1", 8123)
    names = ("127.0.0.1", "localhost", "[::1]")
    expected_host = re.fullmatch(r"(?:127\.0\.0\.1|localhost|\[::1\])(?::[0-9]+)?", value)
    assert admitted(value, endpoint.allowed_hosts) == bool(expected_host)
    origin = f"http://{value}"
    assert admitted(origin, endpoint.allowed_origins) == bool(expected_host)
    assert all(admitted(f"http://{n}:8123", endpoint.allowed_origins) for n in names)


# ---- sizes, bodies and paths -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "answer"),
    [
        ("Host: evil.example\r\n", "400 Bad Request"),
        ("Origin: http://127.0.0.1:{port}\r\nOrigin: http://evil.example\r\n", "400 Bad Request"),
        ("Transfer-Encoding: chunked\r\n", "501 Not Implemented"),
    ],
)
def test_a_request_that_two_readers_could_read_two_ways_is_refused(
    calendar: PlaygroundServer, extra: str, answer: str
) -> None:
    """Review of item 5: a second Host (only the first was checked), a second Origin, or a
    Transfer-Encoding (its body would be read as the next request) is refused."""
    port = calendar.server_port
    request = (
        f"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"{TOKEN_HEADER}: {calendar.token}\r\n{extra.format(port=port)}\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(request.encode())
        reply = connection.makefile("rb").readline().decode()
    assert reply.startswith(f"HTTP/1.1 {answer}"), reply


def test_a_body_over_the_bound_is_refused_unread(calendar: PlaygroundServer) -> None:
    """Item 5: bounded request sizes; the Content-Length alone decides, nothing is read."""
    headers = {"Content-Type": "application/json", "Content-Length": str(MAX_BODY + 1)}
    status, response_headers, answer = ask(calendar, "POST", "/api/parse", headers=headers)
    assert (status, json.loads(answer)) == (413, {"error": f"at most {MAX_BODY} bytes"})
    assert response_headers["Connection"] == "close"


def test_a_silent_client_is_disconnected(
    calendar: PlaygroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 5: a client that stops sending halfway through its request does not hold its
    thread: the connection is closed when it has been silent for the read timeout."""
    monkeypatch.setattr(server_module._Handler, "timeout", 0.5)
    with socket.create_connection(("127.0.0.1", calendar.server_port), timeout=30) as client:
        client.sendall(b"POST /api/parse HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert client.recv(1024) == b""  # closed by the server, with nothing said


def test_a_body_at_the_bound_is_read(calendar: PlaygroundServer) -> None:
    text = "x" * (MAX_BODY - 60)
    body = json.dumps({"text": text, "reading": "reply", "tool": ""}).encode()
    assert len(body) <= MAX_BODY
    assert ask(calendar, "POST", "/api/parse", body)[0] == 200


@pytest.mark.parametrize(
    ("headers", "body", "status", "error"),
    [
        ({"Content-Type": "text/plain"}, b"{}", 415, "send application/json"),
        ({"Content-Type": None}, b"{}", 415, "send application/json"),
        ({"Content-Length": None}, b"", 411, "send a Content-Length"),
        ({}, b"[1]", 400, "the body must be a JSON object"),
        ({}, b"{", 400, "the body must be a JSON object"),
        ({}, b"\xff", 400, "the body must be a JSON object"),
        (
            {},
            b'{"reading": "xml", "text": ""}',
            400,
            "reading must be one of arguments, reply, jsonl",
        ),
        ({}, b'{"reading": "reply", "text": 1}', 400, "text must be a string"),
        # Nested past what json reads (review: the RecursionError dropped the connection).
        ({}, b"[" * 100_000, 400, "the body must be a JSON object"),
    ],
)
def test_a_malformed_question_is_refused(
    calendar: PlaygroundServer, headers: dict, body: bytes, status: int, error: str
) -> None:
    """Item 5: a question is a JSON object of strings; anything else is refused in words."""
    got, _, answer = ask(calendar, "POST", "/api/parse", body, headers=headers)
    assert (got, json.loads(answer)) == (status, {"error": error})


@pytest.mark.parametrize(
    "path",
    [
        "/../pyproject.toml",
        "/%2e%2e/pyproject.toml",
        "/page.js/../../pyproject.toml",
        "//etc/passwd",
        "/assets/page.js",
        "/codegen/playground/assets/page.js",
        "/pyproject.toml",
        "/generated/calendar_tools/__init__.py",
        "/api",
        "/api/catalog/",
        "/page.js%00",
    ],
)
def test_no_path_reaches_a_file(calendar: PlaygroundServer, path: str) -> None:
    """Item 5: no file access beyond the catalog: only the page's fixed names are served."""
    status, _, answer = ask(calendar, "GET", path)
    assert (status, json.loads(answer)) == (404, {"error": "no such page"})


def test_the_assets_are_the_packages_own_files(calendar: PlaygroundServer) -> None:
    """Item 6: the page's files come from codegen itself and name nothing beyond this server."""
    for path, (name, kind) in ASSETS.items():
        query = f"?token={calendar.token}" if path == "/" else ""
        status, headers, body = ask(calendar, "GET", path + query, token=None)
        assert (status, headers["Content-Type"], body) == (
            200,
            kind,
            (ASSET_DIR / name).read_bytes(),
        )
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert not re.search(rb"(?:https?:)?//[a-z0-9]", body.replace(b"://127.0.0.1", b"")), name


def test_other_methods_are_not_served(calendar: PlaygroundServer) -> None:
    """Item 5: a preflight (OPTIONS) gets no CORS answer, so a foreign page's script cannot ask."""
    for method in ("OPTIONS", "PUT", "DELETE"):
        status, headers, _ = ask(calendar, method, "/api/parse")
        assert status == 501
        assert not any(name.lower().startswith("access-control") for name in headers)


# ---- what the answers hold ---------------------------------------------------------------------


def test_a_slipped_number_is_on_its_field(calendar: PlaygroundServer) -> None:
    """Item 2: raw beside corrected, each code on its path; codes about the whole call keep
    what follows their colon as a detail, not a path."""
    reply = (
        '<tool_call>{"name": "create_event", "arguments": {"title": "T", "priority": "9",'
        ' "tags": ["a", 3]}}</tool_call>'
    )
    (call,) = parse_answer(calendar, reply, "reply")["calls"]
    rows = {field["path"]: field for field in call["fields"]}
    assert rows["priority"] == {
        "path": "priority",
        "raw": "9",
        "value": 9,
        "warnings": ["string_literal_converted_to_integer"],
        "errors": [],
    }
    assert rows["tags[1]"]["warnings"] == ["non_string_literal_retained"]
    assert (rows["tags[1]"]["raw"], rows["tags[1]"]["value"]) == (3, "3")
    # A default the parser filled in has no raw side.
    assert rows["calendarId"] == {
        "path": "calendarId",
        "value": "primary",
        "warnings": [],
        "errors": [],
    }
    assert rows["start"] == {"path": "start", "warnings": [], "errors": ["missing_required"]}
    assert call["warnings"] == [
        {"code": "native_format", "detail": "hermes"},
        {"code": "arguments_envelope", "detail": "arguments"},
    ]
    assert call["errors"] == []
    assert call["ok"] is False


def test_jsonl_problems_are_listed(calendar: PlaygroundServer) -> None:
    answer = parse_answer(calendar, '{"name": "list_calendars", "parameters": {}}\nhi\n', "jsonl")
    assert [c["tool_name"] for c in answer["calls"]] == ["list_calendars"]
    assert answer["problems"] == [
        {"line": 2, "reason": "prose", "detail": "not a JSON object", "text": "hi"}
    ]


KEYS = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=6)
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=5))
TREES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(KEYS, inner, min_size=1, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(arguments=st.dictionaries(KEYS, TREES, max_size=4))
def test_every_leaf_sent_is_a_row_with_its_raw_value(
    calendar: PlaygroundServer, arguments: dict
) -> None:
    """Item 2, for any arguments: each leaf the model sent has its row, holding what was sent,
    and every code with a path sits on the row of that path."""
    text = json.dumps(arguments)
    (call,) = parse_answer(calendar, text, "arguments", "update_event")["calls"]
    rows = {field["path"]: field for field in call["fields"]}

    def leaves(tree: object, path: str) -> Iterator[tuple[str, object]]:
        if isinstance(tree, dict) and tree:
            for key, item in tree.items():
                yield from leaves(item, f"{path}.{key}" if path else key)
        elif isinstance(tree, list) and tree:
            for index, item in enumerate(tree):
                yield from leaves(item, f"{path}[{index}]")
        else:
            yield path, tree

    for path, value in leaves(arguments, ""):
        if path:
            assert rows[path]["raw"] == value, path
    request = importlib.import_module("generated.calendar_tools").parse("update_event", text)
    for entry in (*request.warnings, *request.errors):
        code, _, path = entry.partition(":")
        if CODES[code].section == "parameter":
            assert code in rows[path]["warnings"] + rows[path]["errors"], entry


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=200), reading=st.sampled_from(["arguments", "reply", "jsonl"]))
def test_any_text_gets_an_answer(calendar: PlaygroundServer, text: str, reading: str) -> None:
    """Item 2: the parsers never raise, and neither does the page's question about them."""
    status, _, body = ask(
        calendar, "POST", "/api/parse", {"text": text, "reading": reading, "tool": "create_event"}
    )
    assert status == 200
    assert set(json.loads(body)) == {"calls", "problems"}


@pytest.mark.parametrize(
    "text", ["[" * 100_000, '{"a":' * 50_000, '{"title": NaN, "x": "\\ud800"}']
)
def test_odd_texts_get_an_answer(calendar: PlaygroundServer, text: str) -> None:
    for reading in ("arguments", "reply", "jsonl"):
        status, _, body = ask(
            calendar,
            "POST",
            "/api/parse",
            {"text": text, "reading": reading, "tool": "create_event"},
        )
        assert status == 200, body
        json.loads(body)


def test_a_call_runs_with_the_handlers(memory: PlaygroundServer) -> None:
    """Item 4: the call is parsed again on the server and run; the answer is what the model
    reads, and the tool message `to_openai_chat` makes of it."""
    status, _, body = ask(
        memory,
        "POST",
        "/api/run",
        {"tool": "memory.search", "arguments": '{"query": "q", "limit": "2"}', "id": "call_7"},
    )
    assert status == 200
    answer = json.loads(body)
    assert answer["status"] == "success"
    assert answer["text"].startswith('["q 0", "q 1"]')
    assert answer["warnings"] == ["string_literal_converted_to_integer:limit"]
    assert answer["openai_chat"] == {
        "role": "tool",
        "tool_call_id": "call_7",
        "content": answer["text"],
    }


def test_without_handlers_nothing_runs(calendar: PlaygroundServer) -> None:
    """Item 4: only with --handlers."""
    status, _, body = ask(
        calendar, "POST", "/api/run", {"tool": "list_calendars", "arguments": "{}"}
    )
    assert (status, json.loads(body)) == (
        400,
        {"error": "this playground was started without --handlers"},
    )


# ---- the command -------------------------------------------------------------------------------


def test_the_command_serves_until_ctrl_c() -> None:
    """`codegen playground CATALOG --handlers`: a URL with the token on 127.0.0.1, served until
    SIGINT, then exit 0. (Issue 38 item 2: the child takes SIGINT even when the test runner was
    started in the background with SIGINT ignored; it hung there for 30 s and failed.)"""
    process = subprocess.Popen(
        codegen_command("playground", "memory_tools", "--handlers", "tests.mcp_handlers:HANDLERS"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.fullmatch(
            r"codegen: the playground of memory_tools is at "
            r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{32})\n",
            line,
        )
        assert match, line
        assert process.stdout.readline() == "codegen: Ctrl-C stops it\n"
        connection = http.client.HTTPConnection("127.0.0.1", int(match[1]), timeout=30)
        connection.request("GET", "/api/catalog", headers={TOKEN_HEADER: match[2]})
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["runnable"] is True
        connection.close()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)  # faulthandler prints where it is stuck
            pytest.fail(f"the playground did not end on Ctrl-C: {process.communicate()[1]}")
    assert (process.returncode, out, err) == (0, "", "")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            [],
            "codegen: name the catalog to show; generated holds: calendar_tools, http_tools, memory_tools\n",
        ),
        (
            ["nosuch"],
            (
                "codegen: nosuch is not a package codegen built (run `codegen build` first);"
                " the catalogs in generated: calendar_tools, http_tools, memory_tools\n"
            ),
        ),
        (["schemas"], None),
        (
            ["memory_tools", "--handlers", "tests.mcp_handlers"],
            (
                "codegen: --handlers tests.mcp_handlers: handlers must be given as"
                " module:attribute, not 'tests.mcp_handlers'\n"
            ),
        ),
        (
            ["memory_tools", "--handlers", "tests.mcp_handlers:NOT_A_MAP"],
            None,
        ),
        (
            ["calendar_tools", "--handlers", "tests.mcp_handlers:HANDLERS"],
            (
                "codegen: --handlers tests.mcp_handlers:HANDLERS: 'memory.search' is not a tool"
                " of this catalog\n"
            ),
        ),
    ],
)
def test_the_command_refuses_what_it_cannot_serve(args: list[str], error: str | None) -> None:
    done = run_cli("playground", *args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    if error is not None:
        assert done.stderr == error
    else:
        assert done.stderr.startswith("codegen: ") and done.stderr.count("\n") == 1


class _NoScan(dict):  # type: ignore[type-arg]
    """An object whose keys must never be walked through: only looked up."""

    def __iter__(self) -> Iterator[Any]:
        raise AssertionError("scanned")

    def keys(self) -> Any:
        raise AssertionError("scanned")


def test_a_field_is_looked_up_never_searched_for() -> None:
    """Review of item 2: each field's value was found by scanning every key of its object, so a
    wide object (8,000 keys: a minute) held a server thread for the square of its size; a field is
    now looked up by the prefixes of its path, the longest key that fits winning."""
    tree = _NoScan({"a.b": _NoScan({"c": [1, 2]}), "a": _NoScan({"b": 5}), "x[0]": 7})
    assert _at(tree, "a.b.c[1]") == 2
    assert _at(tree, "a.b") == tree["a.b"]
    assert _at(tree, "x[0]") == 7
    assert _at(tree, "nope") is MISSING
    assert _at(tree, "a.b.c[2]") is MISSING

"""Issue 36, the playground page driven as a person drives it: Debian's headless Chromium through
playwright, against a server started in this process for the bundled catalogs.

Where /usr/bin/chromium is missing the module is skipped, saying so, except in CI (CI=true),
where `.ci/run` installs it: there a missing browser fails the run rather than hiding the tests.
`CODEGEN_SCREENSHOTS=1` rewrites the screenshots in docs/ (docs/playground-*.png); without it
they are left as they are, so a test run never dirties the checkout.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playground_serving import serving

from codegen.playground.server import PlaygroundServer
from tests.mcp_handlers import HANDLERS

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    if os.environ.get("CI"):
        pytest.fail(f"CI installs Debian's chromium (.ci/run), yet {CHROMIUM} is missing")
    pytest.skip(
        f"no browser: {CHROMIUM} is missing (apt-get install chromium installs it)",
        allow_module_level=True,
    )

from playwright.sync_api import Browser, Page, Request, Route, expect, sync_playwright

DOCS = Path(__file__).resolve().parent.parent / "docs"
# Waits, never timings: a machine busy with the rest of the suite answers slowly, not wrongly.
WAIT_MS = 30_000
expect.set_options(timeout=WAIT_MS)
# This machine's closed network refuses Chromium's own background connections: without these
# flags it waits on them.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def calendar() -> Iterator[PlaygroundServer]:
    yield from serving("calendar_tools")


@pytest.fixture(scope="module")
def memory() -> Iterator[PlaygroundServer]:
    yield from serving("memory_tools", HANDLERS)


@pytest.fixture(scope="module")
def tab(browser: Browser) -> Iterator[Page]:
    """One tab for the module: a context (and its renderer process) for each test was most of
    the CPU this module took (issue 38 item 2); `page` gives each test the tab reset."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    # Each test's page still asks for every file afresh: the playground serves them `no-store`.
    yield context.new_page()
    context.close()


@pytest.fixture
def page(tab: Page) -> Iterator[Page]:
    requests: list[str] = []

    def record(request: Request) -> None:
        requests.append(request.url)

    tab.on("request", record)
    yield tab
    tab.remove_listener("request", record)
    # What a test left goes: the pages it opened, and its document (the page holds no storage).
    for other in tab.context.pages:
        if other is not tab:
            other.close()
    tab.goto("about:blank")
    # Everything the page loaded came from the playground itself: no CDN, no font, nothing else.
    assert requests and all(url.startswith("http://127.0.0.1:") for url in requests), requests


def _open(page: Page, server: PlaygroundServer, tool: str) -> None:
    page.goto(server.url)
    page.get_by_role("button", name=tool, exact=True).click()
    expect(page.locator("#tool-name")).to_have_text(tool)


def _screenshot(page: Page, name: str) -> None:
    """The page as a person sees it at the top, for docs/ (only when asked: see the docstring)."""
    if os.environ.get("CODEGEN_SCREENSHOTS"):
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=DOCS / f"playground-{name}.png", caret="hide", animations="disabled")


def test_filling_the_form_updates_the_call_json(page: Page, calendar: PlaygroundServer) -> None:
    """Item 1: a form from the schema (required marks, enums as choices, defaults and examples
    filled, nested objects and arrays), and the call's JSON follows each change."""
    _open(page, calendar, "create_event")
    form = page.locator("#tool-form")
    # A required field's label carries the mark; the example of a required field is filled in.
    expect(form.locator("label", has_text="title")).to_contain_text("*")
    expect(page.get_by_role("textbox", name="title", exact=True)).to_have_value(
        "Quarterly planning"
    )
    page.get_by_role("textbox", name="title", exact=True).fill("Design review")
    # An enum is a choice of its values; the default is chosen at first.
    priority = page.get_by_role("combobox", name="priority", exact=True)
    expect(priority).to_have_value("5")
    priority.select_option("9")
    # A nested object's field, by its label inside the object's group.
    start = page.locator('fieldset[data-path="start"]')
    start.get_by_role("textbox", name="dateTime", exact=True).fill("2026-03-14T09:30:00+01:00")
    # An array: add an item and fill it.
    page.get_by_label("send tags").check()
    page.get_by_role("button", name="Add tags item").click()
    page.get_by_role("textbox", name="tags item", exact=True).fill("planning")
    # anyOf is a choice of shapes: location is a string or null (its default).
    expect(page.get_by_role("combobox", name="location: shape")).to_have_value("1")
    page.get_by_role("combobox", name="location: shape").select_option(label="string")
    page.get_by_role("textbox", name="location (string)").fill("Room 4")

    call = page.locator("#call-json")
    expect(call).to_have_value(
        '{\n  "calendarId": "primary",\n  "title": "Design review",\n  "start": {\n'
        '    "dateTime": "2026-03-14T09:30:00+01:00",\n    "timeZone": "UTC"\n  },\n'
        '  "end": {\n    "dateTime": "2025-03-14T09:30:00+01:00",\n    "timeZone": "UTC"\n  },\n'
        '  "allDay": false,\n  "location": "Room 4",\n  "priority": 9,\n'
        '  "tags": [\n    "planning"\n  ]\n}'
    )
    # The call as the form made it parses cleanly.
    page.get_by_role("button", name="Parse these arguments").click()
    expect(page.locator("#parse-output .call h3")).to_contain_text("create_event ready")
    expect(page.locator("#parse-output .code")).to_have_count(0)
    page.get_by_role("textbox", name="title", exact=True).focus()
    _screenshot(page, "tools")


CATALOGS = ("calendar_tools", "http_tools", "memory_tools")
EVERY_TOOL = [
    (catalog, tool)
    for catalog in CATALOGS
    for tool in importlib.import_module(f"generated.{catalog}").TOOLS
]


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, PlaygroundServer]]:
    running = {catalog: serving(catalog) for catalog in CATALOGS}
    yield {catalog: next(server) for catalog, server in running.items()}
    for server in running.values():
        next(server, None)


@pytest.mark.parametrize(("catalog", "tool"), EVERY_TOOL)
def test_every_tools_form_sends_what_its_schema_declares(
    page: Page, servers: dict[str, PlaygroundServer], catalog: str, tool: str
) -> None:
    """Item 1, for every tool of every bundled catalog: the form builds, each control has a
    label, and the call it makes at first is a JSON object of declared parameters, each of the
    type the schema asks for (the parser finds no unknown parameter and no value of a wrong
    kind in it)."""
    _open(page, servers[catalog], tool)
    assert _unlabelled(page) == []
    call = json.loads(page.locator("#call-json").input_value())
    schema = importlib.import_module(f"generated.{catalog}").TOOLS[tool].schema
    assert isinstance(call, dict)
    assert set(call) <= set(schema.get("properties", {}))
    page.get_by_role("button", name="Parse these arguments").click()
    expect(page.locator("#parse-output .call")).to_have_count(1)
    codes = page.locator("#parse-output .code").all_inner_texts()
    wrong = [c for c in codes if c.startswith("unsupported_") or c in WRONG_SHAPE]
    assert wrong == [], (call, codes)


# What a form that sends the declared types in the declared places never causes.
WRONG_SHAPE = {
    "unknown_parameter",
    "json_parse_error",
    "arguments_not_object",
    "string_literal_converted_to_integer",
    "string_literal_converted_to_number",
    "string_literal_converted_to_boolean",
    "non_string_literal_retained",
    "string_parsed_as_json",
    "scalar_coerced_to_list",
}


def _unlabelled(page: Page) -> list[str]:
    return page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea')]
            .filter((c) => c.labels.length === 0).map((c) => c.outerHTML)"""
    )


def test_a_slipped_number_shows_its_warning_on_the_field(
    page: Page, calendar: PlaygroundServer
) -> None:
    """Item 2: a reply (Hermes format) whose priority came as text: the warning sits on the
    priority row, raw beside corrected, the code linked to its row of the codes table, and the
    form's priority field carries it too."""
    _open(page, calendar, "create_event")
    reply = (
        'Sure.\n<tool_call>\n{"name": "create_event", "arguments": {"title": "Standup",'
        ' "priority": "9", "start": {"dateTime": "2026-03-14T09:30:00Z"},'
        ' "end": {"dateTime": "2026-03-14T09:45:00Z"}}}\n</tool_call>'
    )
    page.get_by_label("Model text").fill(reply)
    page.get_by_label("Read it as").select_option("reply")
    page.get_by_role("button", name="Parse", exact=True).click()
    row = page.locator('#parse-output tr[data-path="priority"]')
    expect(row.locator("td.raw")).to_have_text('"9"')
    expect(row.locator("td.value")).to_have_text("9")
    link = row.locator("a.code.warning")
    expect(link).to_have_text("string_literal_converted_to_integer")
    expect(link).to_have_attribute("href", "#code-string_literal_converted_to_integer")
    # The whole call's own notes: the reply's format.
    expect(page.locator("#parse-output .whole-call li")).to_have_text(
        ["native_format: hermes", "arguments_envelope: arguments"]
    )
    field = page.locator('#tool-form .field[data-path="priority"] > .marks')
    expect(field).to_have_text("string_literal_converted_to_integer")
    _screenshot(page, "parse")
    link.click()
    expect(page.locator("#code-string_literal_converted_to_integer")).to_contain_text(
        'an integer sent as text (`"42"`)'
    )


def test_an_invalid_value_shows_its_error(page: Page, calendar: PlaygroundServer) -> None:
    """Item 2: a value the parser refuses (priority 7 is no choice, start is missing): each
    error on its own field, and the call refused."""
    _open(page, calendar, "create_event")
    page.get_by_label("Model text").fill('{"title": "Standup", "priority": 7}')
    page.get_by_role("button", name="Parse", exact=True).click()
    expect(page.locator("#parse-output .call h3")).to_contain_text("create_event refused")
    priority = page.locator('#parse-output tr[data-path="priority"]')
    expect(priority.locator("a.code.error")).to_have_text("enum_out_of_range")
    expect(priority.locator("td.raw")).to_have_text("7")
    start = page.locator('#parse-output tr[data-path="start"]')
    expect(start.locator("a.code.error")).to_have_text("missing_required")
    expect(page.locator('#tool-form fieldset[data-path="start"] > .marks')).to_have_text(
        "missing_required"
    )


def test_jsonl_lines_that_are_no_call_are_shown(page: Page, calendar: PlaygroundServer) -> None:
    """Item 2: JSONL, one call a line; a line of prose is a problem with its line number."""
    _open(page, calendar, "list_calendars")
    page.get_by_label("Model text").fill('{"name": "list_calendars", "parameters": {}}\nhello')
    page.get_by_label("Read it as").select_option("jsonl")
    page.get_by_role("button", name="Parse", exact=True).click()
    expect(page.locator("#parse-output .call h3")).to_contain_text("list_calendars ready")
    expect(page.locator("#parse-output .line-problem")).to_have_text(
        "Line 2: prose not a JSON object: hello"
    )


def test_the_provider_view_shows_each_payload(page: Page, calendar: PlaygroundServer) -> None:
    """Item 3: each provider's payload for the selected tool, and the prompt-mode texts."""
    _open(page, calendar, "list_calendars")
    payloads = page.locator("#payloads details summary")
    expect(payloads).to_have_text(
        [
            "OpenAI Chat",
            "OpenAI Chat strict",
            "OpenAI Responses",
            "Anthropic",
            "Anthropic strict",
            "Gemini",
            "Gemini legacy",
            "MCP",
        ]
    )
    page.locator("#payloads summary", has_text="Anthropic").first.click()
    area = page.get_by_label("Anthropic for this tool", exact=True)
    expect(area).to_have_value(__import__("re").compile(r'^\{\n  "name": "list_calendars"'))
    expect(page.locator("#prompts summary")).to_have_text(
        ["Prompt mode: JSONL", "Prompt mode: single JSON"]
    )
    _screenshot(page, "providers")


def test_a_call_runs_with_the_handlers(page: Page, memory: PlaygroundServer) -> None:
    """Item 4: with handlers the form's call runs through the executor, and the page shows the
    result as the model reads it."""
    _open(page, memory, "memory.search")
    page.get_by_role("textbox", name="query", exact=True).fill("notes")
    page.get_by_role("spinbutton", name="limit", exact=True).fill("2")
    page.get_by_role("button", name="Run this call").click()
    expect(page.locator("#run-status")).to_have_text("success")
    expect(page.locator("#run-text")).to_have_text('["notes 0", "notes 1"]')
    # A parsed call runs too, and a handler's failure reaches the model as words.
    page.get_by_role("button", name="read_file", exact=True).click()
    page.get_by_label("Model text").fill('{"filePath": "/missing"}')
    page.get_by_role("button", name="Parse", exact=True).click()
    page.get_by_role("button", name="Run read_file").click()
    expect(page.locator("#run-status")).to_have_text("failed")
    expect(page.locator("#run-text")).to_have_text(
        "Error: the tool failed: FileNotFoundError: /missing"
    )


def test_without_handlers_there_is_no_run(page: Page, calendar: PlaygroundServer) -> None:
    """Item 4: only with --handlers can the page run anything."""
    _open(page, calendar, "create_event")
    expect(page.get_by_role("button", name="Run this call")).to_be_hidden()
    expect(page.locator("#run")).to_be_hidden()


def test_the_search_box_filters_the_tools(page: Page, calendar: PlaygroundServer) -> None:
    """Item 1: the search box keeps the tools whose name or description holds the words."""
    page.goto(calendar.url)
    page.get_by_label("Search tools").fill("webhook")
    expect(page.locator("#tool-list li:visible")).to_have_text(["send_webhook"])


def test_words_typed_before_the_catalog_arrives_filter_the_tools(
    page: Page, calendar: PlaygroundServer
) -> None:
    """Item 1: the search box is there before the catalog is: words typed while it is on its
    way filter the list it makes (they were ignored, and a test typing at once saw every tool)."""
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/api/catalog*", hold)
    try:
        page.goto(calendar.url)
        page.get_by_label("Search tools").fill("webhook")
        page.wait_for_function("() => document.querySelector('#search').value === 'webhook'")
        assert len(held) == 1
        held[0].continue_()
        expect(page.locator("#tool-list li")).to_have_count(7)
        expect(page.locator("#tool-list li:visible")).to_have_text(["send_webhook"])
    finally:
        page.unroute("**/api/catalog*")


def test_the_page_is_usable_by_keyboard(page: Page, calendar: PlaygroundServer) -> None:
    """Item 6: tab to a tool, choose it with Enter; every form control has a label."""
    page.goto(calendar.url)
    page.get_by_label("Search tools").focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#tool-name")).to_have_text("list_calendars")
    assert _unlabelled(page) == []


def test_a_page_without_the_token_gets_nothing(page: Page, calendar: PlaygroundServer) -> None:
    """Item 5: the page's address without the token is refused."""
    response = page.goto(calendar.url.split("?")[0])
    assert response is not None and response.status == 403
    expect(page.locator("body")).to_contain_text("the token is missing or wrong")


def test_a_foreign_origin_cannot_ask(page: Page, calendar: PlaygroundServer) -> None:
    """Item 5: a script of another origin that knows the token is still refused: its fetch
    carries its Origin (and its JSON body must be asked for first)."""
    page.goto(calendar.url)
    expect(page.locator("#tool-name")).to_have_text("create_event")
    status = page.evaluate(
        """async ([token]) => {
            const r = await fetch('/api/parse', {method: 'POST', headers: {
                'Content-Type': 'application/json', 'X-Playground-Token': token}, body: '{}'});
            return r.status; }""",
        [calendar.token],
    )
    assert status == 400  # the page's own origin is let through: the body is what is wrong
    foreign = page.context.new_page()
    foreign.route("http://attacker.test/", lambda route: route.fulfill(body="<p>hi</p>"))
    foreign.goto("http://attacker.test/")
    answer = foreign.evaluate(
        """async ([url, token]) => {
            try {
                const r = await fetch(url + 'api/catalog', {headers: {'X-Playground-Token': token}});
                return r.status;
            } catch (e) { return 'blocked'; } }""",
        [calendar.url.split("?")[0], calendar.token],
    )
    assert answer == "blocked"

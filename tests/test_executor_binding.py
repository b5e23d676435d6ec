"""How the executor binds a handler, decided once from its signature (`_executor._bind`), by the
names the catalog declares (issue 33 item 2: `ToolSpec.keywords`, the wire name where Python can
spell it; read_file's parameters are `filePath`, `startLine` and `encoding`):

- the arguments object, when the first positional parameter is annotated with the tool's
  `<Tool>Args` or is named as none of the tool's parameters (or the handler has only `*args`);
- the parameters as keywords otherwise: the first positional parameter is named as one of the
  tool's, or there is none. Optional parameters may be left out; a call that gives one of them a
  value other than its default is rejected, since the handler cannot take it.
A handler that fits neither form, or could be read as either (a parameter named by a Python
attribute in place of the wire name, an object handler with a parameter named as the tool's), is
refused by `Executor(...)`, naming the tool and the parameter.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Callable
from typing import Any

import pytest

from generated.memory_tools import Executor, ReadFileArgs, parse

# read_file: file_path (filePath) required; start_line (startLine) and encoding optional.
PLAIN = '{"filePath": "a.txt"}'
WITH_LINE = '{"filePath": "a.txt", "startLine": 7}'


def run(handler: object, raw: str = PLAIN) -> tuple[str, object, str | None]:
    executor = Executor({"read_file": handler})  # type: ignore[typeddict-item]
    request = parse("read_file", raw, "call_1")
    result = executor.execute(request)
    async_result = asyncio.run(executor.aexecute(request))
    assert (async_result.status, async_result.content, async_result.error) == (
        result.status,
        result.content,
        result.error,
    )
    return result.status, result.content, result.error


def test_a_handler_leaving_out_optional_parameters_takes_keywords() -> None:
    # The reported case: `repo` received the whole arguments object, and the result was success.
    def get_file(filePath: str, startLine: int | None = None) -> str:
        return f"{filePath}@{startLine}"

    assert run(get_file) == ("success", "a.txt@None", None)
    assert run(get_file, WITH_LINE) == ("success", "a.txt@7", None)


def test_a_call_setting_a_parameter_its_handler_leaves_out_is_rejected() -> None:
    def get_file(filePath: str, startLine: int | None = None) -> str:
        return filePath

    # The default ("utf-8") sent explicitly is no loss; another value would be dropped.
    assert run(get_file, '{"filePath": "a", "encoding": "utf-8"}')[0] == "success"
    assert run(get_file, '{"filePath": "a", "encoding": "ascii"}') == (
        "rejected",
        None,
        "the tool `read_file` cannot take `encoding` here; send the call without it",
    )


class Reader:
    def __call__(self, args: ReadFileArgs) -> str:
        return f"object {args.file_path}"

    def method(self, filePath: str, startLine: int | None, encoding: str) -> str:
        return f"method {filePath}/{startLine}/{encoding}"

    async def amethod(self, *, filePath: str, startLine: int | None, encoding: str = "x") -> str:
        return f"amethod {filePath}/{startLine}/{encoding}"


def prefixed(prefix: str, filePath: str, startLine: int | None = None) -> str:
    return f"{prefix}{filePath}/{startLine}"


def with_flag(args: ReadFileArgs, loud: bool = False) -> str:
    return args.file_path.upper() if loud else args.file_path


def annotated(filePath: ReadFileArgs) -> str:
    return f"annotated {filePath.file_path}"


def annotated_by_attribute(file_path: ReadFileArgs) -> str:
    return f"annotated {file_path.file_path}"


def positional_only(args: ReadFileArgs, /) -> str:
    return f"positional-only {args.file_path}"


def keyword_only(*, filePath: str, startLine: int | None = None, encoding: str = "") -> str:
    return f"keyword-only {filePath}/{startLine}/{encoding}"


def star_args(*args: Any) -> str:
    return f"*args {type(args[0]).__name__}"


def star_kwargs(**values: Any) -> str:
    return f"**kwargs {sorted(values)}"


def both_stars(*args: Any, **values: Any) -> str:
    return f"both {args} {sorted(values)}"


def named_then_kwargs(filePath: str, **rest: Any) -> str:
    return f"{filePath} {sorted(rest)}"


async def async_keywords(filePath: str, startLine: int | None = None) -> str:
    await asyncio.sleep(0)
    return f"async {filePath}/{startLine}"


async def async_object(args: ReadFileArgs) -> str:
    return f"async object {args.file_path}"


@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        (Reader(), "object a.txt"),
        (Reader().method, "method a.txt/7/utf-8"),
        (Reader().amethod, "amethod a.txt/7/utf-8"),
        (functools.partial(prefixed, "p:"), "p:a.txt/7"),
        (functools.partial(with_flag, loud=True), "A.TXT"),
        (annotated, "annotated a.txt"),
        (annotated_by_attribute, "annotated a.txt"),
        (positional_only, "positional-only a.txt"),
        (keyword_only, "keyword-only a.txt/7/utf-8"),
        (star_args, "*args ReadFileArgs"),
        (star_kwargs, "**kwargs ['encoding', 'filePath', 'startLine']"),
        (both_stars, "both () ['encoding', 'filePath', 'startLine']"),
        (named_then_kwargs, "a.txt ['encoding', 'startLine']"),
        (async_keywords, "async a.txt/7"),
        (async_object, "async object a.txt"),
        (lambda args: f"lambda {args.file_path}", "lambda a.txt"),
        (lambda filePath, **_: f"lambda {filePath}", "lambda a.txt"),
    ],
    ids=[
        "callable-object",
        "bound-method",
        "async-bound-method-keyword-only",
        "partial-keywords",
        "partial-object",
        "annotated-with-args-class",
        "annotated-with-args-class-named-as-an-attribute",
        "positional-only-object",
        "keyword-only",
        "star-args",
        "star-kwargs",
        "star-args-and-kwargs",
        "named-then-kwargs",
        "async-keywords",
        "async-object",
        "lambda-object",
        "lambda-keywords",
    ],
)
def test_every_shape_of_handler_binds_to_its_form(
    handler: Callable[..., object], expected: str
) -> None:
    assert run(handler, WITH_LINE) == ("success", expected, None)


def nameless(path: str, extra: int) -> str:
    return path


def unknown_required(filePath: str, verbose: bool) -> str:
    return filePath


def without_required(startLine: int | None = None) -> str:
    return ""


def keyword_only_without_required(*, encoding: str = "") -> str:
    return ""


def required_positional_only(filePath: str, /) -> str:
    return filePath


def object_and_keyword_only(args: ReadFileArgs, *, mode: str) -> str:
    return mode


def by_attribute(file_path: str, start_line: int | None = None) -> str:
    return file_path


def by_attribute_alone(file_path: str) -> str:
    return file_path


def object_and_attribute(args: ReadFileArgs, start_line: int | None = None) -> str:
    return ""


def object_and_keyword(args: ReadFileArgs, startLine: int | None = None) -> str:
    return ""


LISTED = "a handler takes the tool's parameters as keywords (filePath, startLine, encoding)"


@pytest.mark.parametrize(
    ("handler", "message"),
    [
        (
            nameless,
            (
                "the handler for 'read_file' takes its ReadFileArgs as `path`, but its parameter"
                " `extra` has no default; a handler takes one ReadFileArgs, or the tool's parameters"
                " as keywords (filePath, startLine, encoding)"
            ),
        ),
        (
            object_and_keyword_only,
            (
                "the handler for 'read_file' takes its ReadFileArgs as `args`, but its parameter"
                " `mode` has no default; a handler takes one ReadFileArgs, or the tool's parameters"
                " as keywords (filePath, startLine, encoding)"
            ),
        ),
        (
            unknown_required,
            (
                "the handler for 'read_file' takes `verbose`, which is not a parameter of the tool; "
                f"{LISTED}, or one ReadFileArgs: (filePath: 'str', verbose: 'bool') -> 'str'"
            ),
        ),
        (
            without_required,
            (
                "the handler for 'read_file' does not take the tool's required parameter `filePath`;"
                f" {LISTED}, or one ReadFileArgs: (startLine: 'int | None' = None) -> 'str'"
            ),
        ),
        (
            keyword_only_without_required,
            (
                "the handler for 'read_file' does not take the tool's required parameter `filePath`;"
                f" {LISTED}, or one ReadFileArgs: (*, encoding: 'str' = '') -> 'str'"
            ),
        ),
        (
            required_positional_only,
            (
                "the handler for 'read_file' takes `filePath` as positional-only; "
                f"{LISTED}, or one ReadFileArgs: (filePath: 'str', /) -> 'str'"
            ),
        ),
        (
            by_attribute,
            (
                "the handler for 'read_file' takes `file_path`, the Python attribute of the tool's"
                " parameter `filePath`, which a handler takes as `filePath`; "
                f"{LISTED}, or one ReadFileArgs:"
                " (file_path: 'str', start_line: 'int | None' = None) -> 'str'"
            ),
        ),
        (
            by_attribute_alone,
            (
                "the handler for 'read_file' takes `file_path`, the Python attribute of the tool's"
                " parameter `filePath`, which a handler takes as `filePath`; "
                f"{LISTED}, or one ReadFileArgs: (file_path: 'str') -> 'str'"
            ),
        ),
        (
            object_and_attribute,
            (
                "the handler for 'read_file' takes `start_line`, the Python attribute of the tool's"
                " parameter `startLine`, which a handler takes as `startLine`; "
                f"{LISTED}, or one ReadFileArgs:"
                " (args: 'ReadFileArgs', start_line: 'int | None' = None) -> 'str'"
            ),
        ),
        (
            object_and_keyword,
            (
                "the handler for 'read_file' takes its ReadFileArgs as `args`, and `startLine`,"
                " which is named as a parameter of the tool: it could mean either form; "
                f"{LISTED}, or one ReadFileArgs:"
                " (args: 'ReadFileArgs', startLine: 'int | None' = None) -> 'str'"
            ),
        ),
    ],
    ids=[
        "object-with-an-extra-required",
        "object-with-a-required-keyword-only",
        "keywords-with-an-unknown-required",
        "keywords-without-a-required-parameter",
        "keyword-only-without-a-required-parameter",
        "keywords-positional-only",
        "keywords-by-python-attribute",
        "single-parameter-by-python-attribute",
        "object-and-a-python-attribute",
        "object-and-a-keyword-name",
    ],
)
def test_a_handler_fitting_neither_form_is_refused_naming_the_parameter(
    handler: Callable[..., object], message: str
) -> None:
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        Executor({"read_file": handler})  # type: ignore[typeddict-item]


def test_a_handler_without_a_signature_takes_the_arguments_object() -> None:
    # Some built-ins have no signature to read: they are given the one object.
    assert run(repr, PLAIN)[1] == repr(parse("read_file", PLAIN).arguments)

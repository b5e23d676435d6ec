"""How the executor binds a handler, decided once from its signature (`_executor._bind`):

- the arguments object, when the first positional parameter is annotated with the tool's
  `<Tool>Args` or is named as none of the tool's parameters (or the handler has only `*args`);
- the parameters as keywords otherwise: the first positional parameter is named as one of the
  tool's, or there is none. Optional parameters may be left out; a call that gives one of them a
  value other than its default is rejected, since the handler cannot take it.
A handler that fits neither form is refused by `Executor(...)`, naming the tool and the parameter.
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
    def get_file(file_path: str, start_line: int | None = None) -> str:
        return f"{file_path}@{start_line}"

    assert run(get_file) == ("success", "a.txt@None", None)
    assert run(get_file, WITH_LINE) == ("success", "a.txt@7", None)


def test_a_call_setting_a_parameter_its_handler_leaves_out_is_rejected() -> None:
    def get_file(file_path: str, start_line: int | None = None) -> str:
        return file_path

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

    def method(self, file_path: str, start_line: int | None, encoding: str) -> str:
        return f"method {file_path}/{start_line}/{encoding}"

    async def amethod(self, *, file_path: str, start_line: int | None, encoding: str = "x") -> str:
        return f"amethod {file_path}/{start_line}/{encoding}"


def prefixed(prefix: str, file_path: str, start_line: int | None = None) -> str:
    return f"{prefix}{file_path}/{start_line}"


def with_flag(args: ReadFileArgs, loud: bool = False) -> str:
    return args.file_path.upper() if loud else args.file_path


def annotated(file_path: ReadFileArgs) -> str:
    return f"annotated {file_path.file_path}"


def positional_only(args: ReadFileArgs, /) -> str:
    return f"positional-only {args.file_path}"


def keyword_only(*, file_path: str, start_line: int | None = None, encoding: str = "") -> str:
    return f"keyword-only {file_path}/{start_line}/{encoding}"


def star_args(*args: Any) -> str:
    return f"*args {type(args[0]).__name__}"


def star_kwargs(**values: Any) -> str:
    return f"**kwargs {sorted(values)}"


def both_stars(*args: Any, **values: Any) -> str:
    return f"both {args} {sorted(values)}"


def named_then_kwargs(file_path: str, **rest: Any) -> str:
    return f"{file_path} {sorted(rest)}"


async def async_keywords(file_path: str, start_line: int | None = None) -> str:
    await asyncio.sleep(0)
    return f"async {file_path}/{start_line}"


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
        (positional_only, "positional-only a.txt"),
        (keyword_only, "keyword-only a.txt/7/utf-8"),
        (star_args, "*args ReadFileArgs"),
        (star_kwargs, "**kwargs ['encoding', 'file_path', 'start_line']"),
        (both_stars, "both () ['encoding', 'file_path', 'start_line']"),
        (named_then_kwargs, "a.txt ['encoding', 'start_line']"),
        (async_keywords, "async a.txt/7"),
        (async_object, "async object a.txt"),
        (lambda args: f"lambda {args.file_path}", "lambda a.txt"),
        (lambda file_path, **_: f"lambda {file_path}", "lambda a.txt"),
    ],
    ids=[
        "callable-object",
        "bound-method",
        "async-bound-method-keyword-only",
        "partial-keywords",
        "partial-object",
        "annotated-with-args-class",
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


def unknown_required(file_path: str, verbose: bool) -> str:
    return file_path


def without_required(start_line: int | None = None) -> str:
    return ""


def keyword_only_without_required(*, encoding: str = "") -> str:
    return ""


def required_positional_only(file_path: str, /) -> str:
    return file_path


def object_and_keyword_only(args: ReadFileArgs, *, mode: str) -> str:
    return mode


LISTED = "a handler takes the tool's parameters as keywords (file_path, start_line, encoding)"


@pytest.mark.parametrize(
    ("handler", "message"),
    [
        (
            nameless,
            (
                "the handler for 'read_file' takes its ReadFileArgs as `path`, but its parameter"
                " `extra` has no default; a handler takes one ReadFileArgs, or the tool's parameters"
                " as keywords (file_path, start_line, encoding)"
            ),
        ),
        (
            object_and_keyword_only,
            (
                "the handler for 'read_file' takes its ReadFileArgs as `args`, but its parameter"
                " `mode` has no default; a handler takes one ReadFileArgs, or the tool's parameters"
                " as keywords (file_path, start_line, encoding)"
            ),
        ),
        (
            unknown_required,
            (
                "the handler for 'read_file' takes `verbose`, which is not a parameter of the tool; "
                f"{LISTED}, or one ReadFileArgs: (file_path: 'str', verbose: 'bool') -> 'str'"
            ),
        ),
        (
            without_required,
            (
                "the handler for 'read_file' does not take the tool's required parameter `file_path`;"
                f" {LISTED}, or one ReadFileArgs: (start_line: 'int | None' = None) -> 'str'"
            ),
        ),
        (
            keyword_only_without_required,
            (
                "the handler for 'read_file' does not take the tool's required parameter `file_path`;"
                f" {LISTED}, or one ReadFileArgs: (*, encoding: 'str' = '') -> 'str'"
            ),
        ),
        (
            required_positional_only,
            (
                "the handler for 'read_file' takes `file_path` as positional-only; "
                f"{LISTED}, or one ReadFileArgs: (file_path: 'str', /) -> 'str'"
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

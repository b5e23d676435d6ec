"""The executor: runs the handlers bound to a catalog's tools, one result per call.

Standard library only. A call with errors, or one no handler takes, is refused without running
anything; a handler that raises is reported by its exception's type and text, never a traceback,
since what the model reads must be something it can act on (the result keeps the exception, and
the failure is logged with its traceback under the package's logger). The executor itself never
raises on a call; only a wrong set of handlers, given to it, does.

What a handler raises is that call's outcome, `BaseException`s included: a tool must not stop
the service, nor lose the other calls of a batch, because of one call. Two things are no
handler's failure and propagate: the cancellation of the task that awaits `aexecute` or
`aexecute_all` (which cancels the calls under way first), and a `KeyboardInterrupt` in `execute`,
which runs in the caller's thread, where Ctrl-C lands. How a handler runs, its timeout and the
threads it may hold are `_runs`'s to decide, for every entry point.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Coroutine,
    Iterable,
    Iterator,
    Mapping,
)
from typing import Any, Final, NamedTuple, NoReturn, cast

from ._explain import explain_errors
from ._results import ToolCallResult, check_result, unsendable
from ._runs import HandlerRuns, Outcome
from ._runtime import LazyTools, ToolCallRequest, ToolSpec

logger: Final = logging.getLogger(__package__ or __name__)
# A library logs, the application decides where it goes: nothing is printed unless configured.
logger.addHandler(logging.NullHandler())

# Sync handlers of an executor on threads at once, by default, each counted until it ends; also
# how many abandoned handlers may still run before calls are refused (`_runs`).
MAX_THREADS: Final = 32


@dataclasses.dataclass(frozen=True, slots=True)
class _Bound:
    """A handler ready to call with a tool's arguments object, and whether it is a coroutine."""

    call: Callable[[Any], object]
    is_async: bool
    # The optional parameters a keywords handler leaves out.
    omitted: tuple[_Parameter, ...] = ()


class ToolExecutor:
    """Runs handlers by wire name (a provider's alias names the same tool). Each package
    subclasses it as `Executor`, bound to its catalog and typed by its `Handlers`.

    A handler takes the tool's `<Tool>Args`, or its parameters as keywords by the names the
    catalog declares (`def search(query: str, limit: int = 3)`, `def f(date)` for `date`: below);
    it may be sync or async. `timeout` (seconds)
    limits each call's own running time in `aexecute` and what goes through it; `max_threads`
    sync handlers run at once there, each on a thread of its own until it truly ends, and further
    calls wait for one (a wait the timeout does not count), or are refused while `max_threads`
    handlers that timed out or were cancelled still run (`_runs`).
    """

    __slots__ = ("_bound", "_runs", "_tools")

    def __init__(
        self,
        handlers: Mapping[str, object],
        tools: LazyTools,
        *,
        timeout: float | None = None,
        max_threads: int = MAX_THREADS,
    ) -> None:
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if type(max_threads) is not int or max_threads < 1:
            raise ValueError(f"max_threads must be a positive integer, not {max_threads!r}")
        self._tools = tools
        self._runs = HandlerRuns(timeout, max_threads)
        self._bound: dict[str, _Bound] = {}
        given: dict[str, str] = {}  # wire name → the name its handler was given under
        for name, handler in handlers.items():
            wire = tools.wire_name(name)
            if wire is None:
                raise ValueError(f"{name!r} is not a tool of this catalog")
            if wire in given:
                raise ValueError(
                    f"two handlers for the tool {wire!r}: under {given[wire]!r} and {name!r}"
                )
            given[wire] = name
            self._bound[wire] = _bind(wire, handler, tools[wire])

    def handles(self, name: str) -> bool:
        """Whether the tool `name` means (its wire name or a provider's alias) has a handler."""
        wire = self._tools.wire_name(name)
        return wire is not None and wire in self._bound

    def execute(self, request: ToolCallRequest[object]) -> ToolCallResult:
        """Run the call's handler in this thread (an async one to completion) and report it."""
        bound = self._check(request)
        if isinstance(bound, ToolCallResult):
            return bound
        return self._reported(request, self._runs.here(bound.call, request.arguments))

    async def aexecute(self, request: ToolCallRequest[object]) -> ToolCallResult:
        """Run the call's handler without blocking the event loop: an async one in a task of its
        own, a sync one in a thread."""
        bound = self._check(request)
        if isinstance(bound, ToolCallResult):
            return bound
        outcome = await self._runs.run(
            bound.call, bound.is_async, request.arguments, request.tool_name
        )
        return self._reported(request, outcome)

    async def aexecute_all(
        self, requests: Iterable[ToolCallRequest[object]]
    ) -> list[ToolCallResult]:
        """Run a batch concurrently (a model often asks for several calls at once); the results
        come in the order of the requests, one for each, whatever the handlers raise.
        Cancelling the task that awaits this cancels every call under way, and propagates."""
        batch = list(requests)
        outcomes = await asyncio.gather(
            *(self.aexecute(request) for request in batch), return_exceptions=True
        )
        # A call's task is cancelled only by someone other than this batch (a handler that
        # cancels tasks not its own): that call's failure, as the others still hold their results.
        return [
            outcome if isinstance(outcome, ToolCallResult) else _failed(request, outcome)
            for request, outcome in zip(batch, outcomes, strict=True)
        ]

    def _reported(self, request: ToolCallRequest[object], outcome: Outcome) -> ToolCallResult:
        if outcome.refusal is not None:
            return _rejected(request, outcome.refusal)
        if outcome.exception is not None:
            return _failed(request, outcome.exception)
        return self._finished(request, outcome.content)

    def _finished(self, request: ToolCallRequest[object], content: object) -> ToolCallResult:
        """A handler's value as the call's result: failed when JSON cannot carry it (the one
        rule of `_outbound`), and checked against the tool's `returns`, when it declares one."""
        wire = self._tools.wire_name(request.tool_name)
        returns = None if wire is None else self._tools[wire].returns
        problems = unsendable(content)
        if problems:
            error = "the result cannot be sent as JSON: " + "; ".join(p.words for p in problems)
            return _mismatched(request, content, error, tuple(p.error for p in problems))
        if returns is None:
            return _success(request, content)
        structured, mismatch = check_result(returns, content)
        if structured is None:
            error = f"the result does not match the tool's `returns` schema: {'; '.join(mismatch)}"
            return _mismatched(request, content, error, mismatch)
        return ToolCallResult(
            request.tool_name,
            request.tool_call_id,
            "success",
            content,
            None,
            request.warnings,
            structured=structured,
        )

    async def aexecute_stream(
        self,
        requests: AsyncIterable[ToolCallRequest[object]] | Iterable[ToolCallRequest[object]],
        *,
        ordered: bool = True,
    ) -> AsyncIterator[ToolCallResult]:
        """Run each call of a stream (`from_anthropic_stream(...)`, ...) as soon as it arrives,
        while the rest of the stream is still read, and yield the results: in the order of the
        calls when `ordered`, else as each finishes. A sync stream is read in a worker thread,
        so the event loop runs the calls meanwhile. Calls already started when the stream fails
        still report; then its exception is raised. Leaving early, or being cancelled, cancels the
        calls running and waits for them to stop."""
        pull = _puller(requests)
        running: list[asyncio.Task[ToolCallResult]] = []
        finished: list[asyncio.Task[ToolCallResult]] = []  # unordered: as they finished
        incoming: asyncio.Task[object] | None = asyncio.ensure_future(pull())
        try:
            while incoming is not None or running:
                waiting: set[asyncio.Future[Any]] = set(running[:1] if ordered else running)
                if incoming is not None:
                    waiting.add(incoming)
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if incoming is not None and incoming in done:
                    arrived, incoming = incoming, None
                    if arrived.exception() is not None:
                        # The calls that started still report; the stream's failure comes after.
                        while running:
                            yield await running.pop(0)
                        arrived.result()
                    item = arrived.result()
                    if item is not _END:
                        request = cast(ToolCallRequest[object], item)
                        task = asyncio.ensure_future(self.aexecute(request))
                        if not ordered:
                            task.add_done_callback(finished.append)
                        running.append(task)
                        incoming = asyncio.ensure_future(pull())
                for task in _yieldable(running, finished, ordered):
                    running.remove(task)
                    yield task.result()
        finally:
            for task in running:
                task.cancel()
            if incoming is not None:
                incoming.cancel()
            if running:
                # As `aexecute_all` does: the calls stop first (each within its run's grace; a
                # handler that does not is abandoned there, and counted), then this does.
                await asyncio.wait(running)

    def _check(self, request: ToolCallRequest[object]) -> _Bound | ToolCallResult:
        """The handler to run, or the refusal: an unknown tool, no handler, or errors."""
        name = self._tools.wire_name(request.tool_name)  # a provider's alias is the tool too
        if name is None:
            return _rejected(request, f"there is no tool `{request.tool_name}`")
        bound = self._bound.get(name)
        if bound is None:
            return _rejected(request, f"the tool `{name}` is not available")
        if request.errors or request.arguments is None:
            return _rejected(request, explain_errors(request.errors))
        for parameter in bound.omitted:
            if getattr(request.arguments, parameter.attribute) != parameter.default:
                return _rejected(
                    request,
                    f"the tool `{name}` cannot take {parameter.told} here; send the call"
                    " without it",
                )
        return bound


_END: Final = object()


def _yieldable(
    running: list[asyncio.Task[ToolCallResult]],
    finished: list[asyncio.Task[ToolCallResult]],
    ordered: bool,
) -> list[asyncio.Task[ToolCallResult]]:
    """The calls whose results can be yielded now: the finished ones in the order they finished,
    or, in call order, the finished ones before the first still running."""
    if not ordered:
        ready = [task for task in finished if task in running]
        finished.clear()
        return ready
    leading: list[asyncio.Task[ToolCallResult]] = []
    for task in running:
        if not task.done():
            break
        leading.append(task)
    return leading


def _puller(
    requests: AsyncIterable[ToolCallRequest[object]] | Iterable[ToolCallRequest[object]],
) -> Callable[[], Coroutine[Any, Any, object]]:
    """A coroutine function that gives the stream's next request, or _END after the last."""
    if isinstance(requests, AsyncIterable):
        source = aiter(requests)

        async def next_async() -> object:
            return await anext(source, _END)

        return next_async
    iterator: Iterator[ToolCallRequest[object]] = iter(requests)

    async def next_sync() -> object:
        # A sync stream blocks while it waits for the network: not in the event loop's thread.
        return await asyncio.to_thread(next, iterator, _END)

    return next_sync


def _success(request: ToolCallRequest[object], content: object) -> ToolCallResult:
    return ToolCallResult(
        request.tool_name, request.tool_call_id, "success", content, None, request.warnings
    )


def _failed(request: ToolCallRequest[object], exc: BaseException) -> ToolCallResult:
    text = _exception_text(exc)
    error = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    logger.error(
        "the handler of %s failed on call %s: %s",
        request.tool_name,
        request.tool_call_id or "(no id)",
        error,
        exc_info=exc,
    )
    return ToolCallResult(
        request.tool_name,
        request.tool_call_id,
        "failed",
        None,
        error,
        request.warnings,
        exception=exc,
    )


def _mismatched(
    request: ToolCallRequest[object], content: object, error: str, codes: tuple[str, ...]
) -> ToolCallResult:
    logger.error(
        "the handler of %s returned a wrong result on call %s: %s",
        request.tool_name,
        request.tool_call_id or "(no id)",
        error,
    )
    return ToolCallResult(
        request.tool_name, request.tool_call_id, "failed", content, error, request.warnings, codes
    )


def _exception_text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still has a type
        return ""


def _rejected(request: ToolCallRequest[object], error: str) -> ToolCallResult:
    return ToolCallResult(
        request.tool_name,
        request.tool_call_id,
        "rejected",
        None,
        error,
        request.warnings,
        request.errors,
    )


# ---------------------------------------------------------------------------------------------
# Binding a handler, decided once from its signature, by the names the catalog declares: a
# keywords handler takes each parameter by its keyword name (`ToolSpec.keywords`: the wire name
# where Python can spell it, `def f(date)` for `date`, `def f(filePath)` for `filePath`). It
# takes the arguments object when that is unambiguous: its first positional parameter is
# annotated with the tool's `<Tool>Args`, or is named as no parameter of the tool (`def run(args)`,
# `lambda a: ...`, `def run(args, /)`), or it has only `*args`. It takes the parameters as
# keywords when its first positional parameter is named as one of them
# (`def get_file(filePath, startLine=None)`), or it has none (`def f(*, query)`,
# `def f(**values)`). A parameter named by a tool parameter's Python attribute in place of its
# keyword name (`date_` for `date`, `file_path` for `filePath`), or an object handler with a
# further parameter named as a tool parameter, could be read either way: refused, never guessed.
# Each form is then checked whole, and a handler that fits neither is refused with the parameter
# at fault. A keywords handler may leave out optional parameters: a call that gives one of them
# a value other than its default is refused, since the handler cannot take it.

_NO_VALUE: Final = object()
_POSITIONAL: Final = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_NAMED: Final = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _bind(name: str, handler: object, spec: ToolSpec[object]) -> _Bound:
    if not callable(handler):
        raise TypeError(f"the handler for {name!r} is not callable: {handler!r}")
    # A function, a method or a partial of one; or an object whose __call__ is a coroutine.
    is_async = inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        type(handler).__call__
    )
    try:
        signature = inspect.signature(handler)
    except (TypeError, ValueError):
        return _Bound(handler, is_async)  # no signature to read (some built-ins): one argument
    defaults = {
        field.name: _default(field)
        for field in dataclasses.fields(spec.args_type)  # type: ignore[arg-type]
    }
    parameters = tuple(
        _Parameter(keyword.wire, keyword.name, keyword.attribute, defaults[keyword.attribute])
        for keyword in spec.keywords()
    )
    form = _Form(name, signature, parameters, spec.args_type)
    if form.takes_object():
        form.check_object()
        return _Bound(handler, is_async)
    taken = form.check_keywords()
    omitted = tuple(parameter for parameter in parameters if parameter not in taken)
    pairs = tuple((parameter.name, parameter.attribute) for parameter in taken)

    def by_keywords(args: Any) -> object:
        return handler(**{keyword: getattr(args, attribute) for keyword, attribute in pairs})

    return _Bound(by_keywords, is_async, omitted)


def _default(field: dataclasses.Field[object]) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return _NO_VALUE  # required: a keywords handler always takes it


class _Parameter(NamedTuple):
    """A tool parameter as a handler takes it: its wire name ("" for an open object's other
    keys), its keyword name, its attribute on the `<Tool>Args` and its default (_NO_VALUE when
    it is required)."""

    wire: str
    name: str
    attribute: str
    default: object

    @property
    def told(self) -> str:
        """The parameter as a refusal names it to the model: by its wire name."""
        return f"`{self.wire}`" if self.wire else "keys other than the tool's parameters"


@dataclasses.dataclass(frozen=True, slots=True)
class _Form:
    """A handler's signature read against its tool's parameters."""

    tool: str
    signature: inspect.Signature
    parameters: tuple[_Parameter, ...]
    args_type: type[object]

    def takes_object(self) -> bool:
        params = list(self.signature.parameters.values())
        first = next((p for p in params if p.kind in _POSITIONAL), None)
        if first is not None and _names_class(first.annotation, self.args_type):
            return True  # whatever its name: the annotation says it
        for param in params:
            self._check_not_attribute(param)
        if first is None:
            # Only *args takes one positional value; with **kwargs too, keywords are the form.
            kinds = {p.kind for p in params}
            return (
                inspect.Parameter.VAR_POSITIONAL in kinds
                and inspect.Parameter.VAR_KEYWORD not in kinds
            )
        return first.name not in self._names()

    def check_object(self) -> None:
        params = list(self.signature.parameters.values())
        first = next((p for p in params if p.kind in _POSITIONAL), None)
        for param in params:
            if param is not first:
                self._check_not_attribute(param)
        named = next(
            (p for p in params if p is not first and p.kind in _NAMED and p.name in self._names()),
            None,
        )
        if first is not None and named is not None:
            self._refuse(
                f"takes its {self.args_type.__name__} as `{first.name}`, and `{named.name}`, which"
                f" is named as a parameter of the tool: it could mean either form"
            )
        try:
            self.signature.bind(_NO_VALUE)
        except TypeError:
            assert first is not None  # `*args` alone binds one value
            unfilled = next(
                p
                for p in params
                if p is not first
                and p.default is inspect.Parameter.empty
                and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            )
            raise TypeError(
                f"the handler for {self.tool!r} takes its {self.args_type.__name__} as"
                f" `{first.name}`, but its parameter `{unfilled.name}` has no default; a handler"
                f" takes one {self.args_type.__name__}, or the tool's parameters as keywords"
                f" ({self._listed()})"
            ) from None

    def check_keywords(self) -> tuple[_Parameter, ...]:
        """The tool's parameters the handler takes, in the tool's order."""
        names = self._names()
        params = list(self.signature.parameters.values())
        by_name = {p.name for p in params if p.kind in _NAMED}
        any_name = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        for param in params:
            if param.default is not inspect.Parameter.empty or param.kind not in (
                *_POSITIONAL,
                inspect.Parameter.KEYWORD_ONLY,
            ):
                continue
            if param.kind is inspect.Parameter.POSITIONAL_ONLY:
                self._refuse(f"takes `{param.name}` as positional-only")
            if param.name not in names:
                self._refuse(f"takes `{param.name}`, which is not a parameter of the tool")
        for parameter in self.parameters:
            required = parameter.default is _NO_VALUE
            if required and parameter.name not in by_name and not any_name:
                self._refuse(f"does not take the tool's required parameter `{parameter.name}`")
        return tuple(p for p in self.parameters if any_name or p.name in by_name)

    def _check_not_attribute(self, param: inspect.Parameter) -> None:
        """Refuse a parameter named by a tool parameter's Python attribute, not its keyword name:
        `def f(date_)` for `date` would otherwise take the whole arguments object."""
        if param.kind not in (*_POSITIONAL, inspect.Parameter.KEYWORD_ONLY):
            return
        if param.name in self._names():
            return
        for parameter in self.parameters:
            if parameter.attribute == param.name:
                self._refuse(
                    f"takes `{param.name}`, the Python attribute of the tool's parameter"
                    f" {parameter.told}, which a handler takes as `{parameter.name}`"
                )

    def _names(self) -> set[str]:
        return {parameter.name for parameter in self.parameters}

    def _refuse(self, problem: str) -> NoReturn:
        raise TypeError(
            f"the handler for {self.tool!r} {problem}; a handler takes the tool's parameters as"
            f" keywords ({self._listed()}), or one {self.args_type.__name__}: {self.signature}"
        )

    def _listed(self) -> str:
        return ", ".join(parameter.name for parameter in self.parameters) or "no parameters"


def _names_class(annotation: object, cls: type[object]) -> bool:
    if annotation is cls:
        return True
    # Postponed annotations are text: `MemorySearchArgs`, or a dotted path to it.
    return isinstance(annotation, str) and annotation.rpartition(".")[2] == cls.__name__

"""The executor: runs the handlers bound to a catalog's tools, one result per call.

Standard library only. A call with errors, or one no handler takes, is refused without running
anything; a handler that raises is reported by its exception's type and text, never a traceback,
since what the model reads must be something it can act on. The executor itself never raises
on a call; only a wrong set of handlers, given to it, does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from ._explain import decoded_arguments, explain_errors
from ._results import ToolCallResult
from ._runtime import ToolCallRequest, ToolSpec


@dataclasses.dataclass(frozen=True, slots=True)
class _Bound:
    """A handler ready to call with a tool's arguments object, and whether it is a coroutine."""

    call: Callable[[Any], object]
    is_async: bool


class ToolExecutor:
    """Runs handlers by wire name. Each package subclasses it as `Executor`, bound to its catalog
    and typed by its `Handlers`.

    A handler takes the tool's `<Tool>Args`, or its parameters as keywords by Python name
    (`def search(query: str, limit: int = 3)`); it may be sync or async. `timeout` (seconds)
    limits each call of `aexecute` and `aexecute_all`.
    """

    __slots__ = ("_bound", "_timeout", "_tools")

    def __init__(
        self,
        handlers: Mapping[str, object],
        tools: Mapping[str, ToolSpec[object]],
        *,
        timeout: float | None = None,
    ) -> None:
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self._tools = tools
        self._timeout = timeout
        self._bound: dict[str, _Bound] = {}
        for name, handler in handlers.items():
            if name not in tools:
                raise ValueError(f"{name!r} is not a tool of this catalog")
            self._bound[name] = _bind(name, handler, tools[name].args_type)

    def execute(self, request: ToolCallRequest[object]) -> ToolCallResult:
        """Run the call's handler in this thread (an async one to completion) and report it."""
        bound = self._check(request)
        if isinstance(bound, ToolCallResult):
            return bound
        try:
            content = bound.call(request.arguments)
            if inspect.isawaitable(content):
                content = _run_to_completion(content)
        except Exception as exc:  # noqa: BLE001 - the handler's failure is the result
            return _failed(request, exc)
        return _success(request, content)

    async def aexecute(self, request: ToolCallRequest[object]) -> ToolCallResult:
        """Run the call's handler without blocking the event loop: a sync one in a worker thread."""
        bound = self._check(request)
        if isinstance(bound, ToolCallResult):
            return bound
        try:
            async with asyncio.timeout(self._timeout):
                return await _run(bound, request)
        except TimeoutError:
            # Only the deadline's own: _run turns whatever the handler raises into a result.
            # A sync handler's thread cannot be stopped; it runs on, and its result is dropped.
            error = f"TimeoutError: the tool did not finish within {self._timeout:g} s"
            return ToolCallResult(
                request.tool_name, request.tool_call_id, "failed", None, error, request.warnings
            )

    async def aexecute_all(
        self, requests: Iterable[ToolCallRequest[object]]
    ) -> list[ToolCallResult]:
        """Run a batch concurrently (a model often asks for several calls at once); the results
        come in the order of the requests."""
        return list(await asyncio.gather(*(self.aexecute(request) for request in requests)))

    def _check(self, request: ToolCallRequest[object]) -> _Bound | ToolCallResult:
        """The handler to run, or the refusal: an unknown tool, no handler, or errors."""
        name = request.tool_name
        if name not in self._tools:
            return _rejected(request, f"there is no tool `{name}`")
        bound = self._bound.get(name)
        if bound is None:
            return _rejected(request, f"the tool `{name}` is not available")
        if request.errors or request.arguments is None:
            schema = self._tools[name].schema
            sent = decoded_arguments(request.raw_arguments)
            return _rejected(request, explain_errors(request.errors, schema, sent))
        return bound


async def _run(bound: _Bound, request: ToolCallRequest[object]) -> ToolCallResult:
    try:
        if bound.is_async:
            content = bound.call(request.arguments)
        else:
            # to_thread keeps the caller's context variables, as a direct call would.
            content = await asyncio.to_thread(bound.call, request.arguments)
        if inspect.isawaitable(content):
            content = await content
    except Exception as exc:  # noqa: BLE001 - the handler's failure is the result
        return _failed(request, exc)
    return _success(request, content)


def _run_to_completion(awaitable: Any) -> object:
    """An async handler's result, for the sync `execute`: in a new event loop in this thread, or,
    when this thread already runs one (which cannot be re-entered), in a thread of its own."""

    async def wait() -> object:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    outcome: list[object] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(wait()))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=run, name="codegen-execute")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]


def _success(request: ToolCallRequest[object], content: object) -> ToolCallResult:
    return ToolCallResult(
        request.tool_name, request.tool_call_id, "success", content, None, request.warnings
    )


def _failed(request: ToolCallRequest[object], exc: Exception) -> ToolCallResult:
    text = _exception_text(exc)
    error = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return ToolCallResult(
        request.tool_name, request.tool_call_id, "failed", None, error, request.warnings
    )


def _exception_text(exc: Exception) -> str:
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
# Binding a handler: with the arguments object, or with its fields as keywords.

_NO_VALUE: Final = object()


def _bind(name: str, handler: object, args_type: type[object]) -> _Bound:
    if not callable(handler):
        raise TypeError(f"the handler for {name!r} is not callable: {handler!r}")
    fields = tuple(field.name for field in dataclasses.fields(args_type))  # type: ignore[arg-type]
    # A function, a method or a partial of one; or an object whose __call__ is a coroutine.
    is_async = inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        type(handler).__call__
    )
    if not _takes_keywords(name, handler, fields, args_type):
        return _Bound(handler, is_async)

    def by_keywords(args: Any) -> object:
        return handler(**{field: getattr(args, field) for field in fields})

    return _Bound(by_keywords, is_async)


def _takes_keywords(
    name: str, handler: Callable[..., object], fields: tuple[str, ...], args_type: type[object]
) -> bool:
    """Whether the handler is a function of the tool's parameters by name, rather than of the
    arguments object: decided once, from its signature."""
    try:
        signature = inspect.signature(handler)
    except (TypeError, ValueError):
        return False  # no signature to read (some built-ins): it takes the arguments object
    keywords = _binds(signature, (), dict.fromkeys(fields, _NO_VALUE))
    positional = _binds(signature, (_NO_VALUE,), {})
    if keywords and positional:
        # One parameter named as the tool's only field, or *args and **kwargs: the annotation
        # decides, and keywords win when it does not name the arguments class.
        first = next(iter(signature.parameters.values()))
        return not _names_class(first.annotation, args_type)
    if not keywords and not positional:
        listed = ", ".join(fields) or "no parameters"
        raise TypeError(
            f"the handler for {name!r} takes neither a {args_type.__name__} nor the keywords"
            f" of the tool's parameters ({listed}): {signature}"
        )
    return keywords


def _binds(
    signature: inspect.Signature, args: tuple[object, ...], kwargs: dict[str, object]
) -> bool:
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _names_class(annotation: object, cls: type[object]) -> bool:
    if annotation is cls:
        return True
    # Postponed annotations are text: `MemorySearchArgs`, or a dotted path to it.
    return isinstance(annotation, str) and annotation.rpartition(".")[2] == cls.__name__

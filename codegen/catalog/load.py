"""Read a catalog file into plain data, remembering the line of every node for messages."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from codegen.diagnostics import CatalogError, Diagnostic, JsonPath, format_path, warning

CATALOG_SUFFIXES = (".yaml", ".yml", ".json")


class _Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core scalars.

    YAML 1.1 reads `yes`, `no`, `on`, `off` as booleans, `2024-01-01` as a date and `010` as 8,
    which silently corrupts enums, defaults and examples in a tool catalog.
    """


_REPLACED = {"bool", "int", "float", "timestamp"}
_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag.rsplit(":", 1)[-1] not in _REPLACED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# The YAML 1.2 core schema: no octal `010`, no sexagesimal `1:30`, no `1_000`; `1e3` is a number.
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    base = {"0o": 8, "0x": 16}.get(text[:2], 10)
    return int(text[2:] if base != 10 else text, base)


_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def _fast_loader() -> type | None:
    """libyaml's parser, ten times faster, with the same resolvers and constructors.

    Text it refuses goes to the Python parser, which reports the syntax error with a more
    detailed message (the tests pin those messages).
    """
    if not getattr(yaml, "__with_libyaml__", False):
        return None
    from yaml.cyaml import CParser

    class FastYaml12Loader(CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):  # type: ignore[misc]
        yaml_implicit_resolvers = _Yaml12Loader.yaml_implicit_resolvers
        yaml_constructors = _Yaml12Loader.yaml_constructors

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    return FastYaml12Loader


_FastYaml12Loader = _fast_loader()


@dataclass(frozen=True)
class LoadedCatalog:
    """A catalog file's data, its digest, the line where each JSON path starts, and what was wrong
    with the data itself (duplicate keys, non-JSON values): reported with the later checks' errors."""

    file: str
    data: Any
    sha256: str
    lines: dict[JsonPath, int] = field(default_factory=dict)
    problems: tuple[Diagnostic, ...] = ()

    def line_of(self, path: JsonPath) -> int:
        """The line of the nearest node on `path` that we know (1 when nothing is known)."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return 1

    def diagnostic(self, path: JsonPath, message: str, code: str = "CG000") -> Diagnostic:
        """A finding at `path`, at the level its code has."""
        return warning(self.file, self.line_of(path), format_path(path), message, code)


def display_name(path: Path, root: Path) -> str:
    """A path for messages, headers and the manifest: relative to the project root, never absolute."""
    return Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()


def load_catalog(path: Path, root: Path) -> LoadedCatalog:
    name = display_name(path, root)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CatalogError(
            [Diagnostic(name, 1, "(file)", f"cannot read: {exc.strerror}")]
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CatalogError(
            [Diagnostic(name, 1, "(file)", f"not UTF-8 text: {exc.reason}")]
        ) from None
    digest = hashlib.sha256(raw).hexdigest()
    problems: list[Diagnostic] = []
    if path.suffix == ".json":
        data = _load_json(name, text)
        # YAML forbids tabs where JSON allows them; outside strings (the only place valid JSON has
        # them raw) a tab and a space mean the same, so the lines survive the swap.
        node = _compose_quietly(text.replace("\t", " "))
    else:
        node = _compose_yaml(name, text)
        data = _construct_yaml(name, node)
    lines = _lines(name, node, problems) if node is not None else {}
    unchecked = LoadedCatalog(name, data, digest, lines)
    if not _is_json_data(data):
        _check_json_data(unchecked, data, (), problems)
    return LoadedCatalog(name, data, digest, lines, tuple(problems))


def _load_json(name: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(
            [Diagnostic(name, exc.lineno, "(file)", f"JSON syntax error: {exc.msg}")]
        ) from None


def _compose_quietly(text: str) -> yaml.Node | None:
    # JSON is YAML, so YAML's node tree gives the lines of a JSON file too (and its duplicate keys).
    try:
        return _compose(text)
    except yaml.YAMLError:
        return None


def _compose(text: str) -> yaml.Node | None:
    if _FastYaml12Loader is not None:
        try:
            return yaml.compose(text, Loader=_FastYaml12Loader)
        except yaml.YAMLError:
            pass  # the Python parser says why
    return yaml.compose(text, Loader=_Yaml12Loader)


def _compose_yaml(name: str, text: str) -> yaml.Node | None:
    try:
        return _compose(text)
    except yaml.MarkedYAMLError as exc:
        raise CatalogError([_syntax_error(name, exc)]) from None
    except yaml.YAMLError as exc:
        raise CatalogError([Diagnostic(name, 1, "(file)", f"YAML syntax error: {exc}")]) from None


def _construct_yaml(name: str, node: yaml.Node | None) -> Any:
    """The data of a composed document: the node tree already read is built, not the text again."""
    if node is None:
        return None
    try:
        return _Yaml12Loader("").construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise CatalogError([_syntax_error(name, exc)]) from None


def _syntax_error(name: str, exc: yaml.MarkedYAMLError) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else 1
    message = f"YAML syntax error: {exc.problem or exc.context}"
    if exc.context and exc.problem and exc.context_mark is not None:
        where = re.sub(r"^while (?:parsing|scanning) (?:an? )?", "", exc.context)
        message += f" (in the {where} that starts on line {exc.context_mark.line + 1})"
    return Diagnostic(name, line, "(file)", message)


def _lines(name: str, node: yaml.Node, problems: list[Diagnostic]) -> dict[JsonPath, int]:
    """Map each JSON path to its line, and report keys given twice (the last one would silently win)."""
    lines: dict[JsonPath, int] = {}

    def walk(n: yaml.Node, path: JsonPath, line: int) -> None:
        lines[path] = line
        if isinstance(n, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in n.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
                if key in seen:
                    problems.append(
                        Diagnostic(
                            name,
                            key_node.start_mark.line + 1,
                            format_path(path),
                            f"duplicate key {key!r}",
                        )
                    )
                seen.add(key)
                # A property is where its key is written, even when its value starts a line below.
                walk(value_node, (*path, key), key_node.start_mark.line + 1)
        elif isinstance(n, yaml.SequenceNode):
            for index, item in enumerate(n.value):
                walk(item, (*path, index), item.start_mark.line + 1)

    walk(node, (), node.start_mark.line + 1)
    return lines


def _is_json_data(value: Any) -> bool:
    """Whether `value` is JSON data throughout: the quick check, with no paths to build."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json_data(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_json_data(item) for item in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (str, int, bool, type(None)))


def _check_json_data(
    loaded: LoadedCatalog, value: Any, path: JsonPath, problems: list[Diagnostic]
) -> None:
    # YAML can say more than JSON: .inf, .nan and non-string keys have no JSON form, so no provider
    # payload could carry them.
    if isinstance(value, float) and not math.isfinite(value):
        written = {"inf": ".inf", "-inf": "-.inf", "nan": ".nan"}[repr(value)]
        problems.append(loaded.diagnostic(path, f"{written} is not a JSON number"))
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(loaded.diagnostic(path, f"key {key!r} is not a string"))
                continue
            _check_json_data(loaded, item, (*path, key), problems)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_json_data(loaded, item, (*path, index), problems)
    elif not isinstance(value, (str, int, float, bool, type(None))):
        problems.append(loaded.diagnostic(path, f"{type(value).__name__} values are not JSON"))

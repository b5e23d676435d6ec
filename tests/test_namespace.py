"""One owner of every name a package defines (issue 33, item 1): a tool or parameter named like
one of the package's own names, a keyword, a builtin or another tool gets a distinct Python name
with a finding, every export keeps its meaning, and every tool stays reachable from the package."""

from __future__ import annotations

import ast
import json
from importlib import import_module
from pathlib import Path
from typing import Any

import every_name
import pytest
from conftest import Built, build_package
from every_name import catalog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.build import check_catalogs
from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.kinds import EnumKind, JsonChoiceKind, Kind
from codegen.catalog.load import load_catalog
from codegen.catalog.names import words
from codegen.python.attributes import attributes
from codegen.python.imports import TAKEN
from codegen.python.namespace import PackageNames, package_names, tool_names
from codegen.python.render import OWN_EXPORTS, package_bound

PROJECT = Path(__file__).resolve().parent.parent
WIRE_NAMES = [tool["name"] for tool in catalog()["tools"]]


def _tool(built: Built, wire: str) -> Tool:
    (tool,) = [t for t in built.catalog.tools if t.wire_name == wire]
    return tool


def _names(catalog: Catalog) -> PackageNames:
    """The Python names of the catalog's tools at the package's top, as the build gives them."""
    return package_names(catalog, package_bound())


def _module(built: Built, wire: str) -> Any:
    """The imported module of the tool `wire`."""
    module = _names(built.catalog).module(_tool(built, wire))
    return import_module(f"{built.package.__name__}.tools.{module}")


def _arguments(tool: Tool) -> dict[str, Any]:
    """A value for every parameter of `tool`: an integer, an object of one, the first choice, or
    a string (ending in `!`, which the catalog's patterns ask for)."""
    kinds = {"IntegerKind": 7, "ObjectKind": {"level": 7}}
    return {f.wire_name: _value(f.wire_name, f.kind, kinds) for f in tool.args.fields}


def _value(wire: str, kind: Kind, kinds: dict[str, Any]) -> Any:
    if isinstance(kind, EnumKind | JsonChoiceKind):
        return kind.choices[0]
    return kinds.get(type(kind).__name__, f"{wire}!")


@pytest.mark.parametrize("wire", WIRE_NAMES)
def test_every_tool_is_reached_through_parse_its_parser_args_and_result(
    names_everywhere: Built, wire: str
) -> None:
    """Issue 33 item 1: every tool of a catalog named after every name the package binds, every
    keyword and builtin the generated code uses, and after each other, is reached through
    `parse`, its own parser, its `Args` and its `Result`, with each parameter's value."""
    pkg, tool = names_everywhere.package, _tool(names_everywhere, wire)
    names = _names(names_everywhere.catalog)
    module = _module(names_everywhere, wire)
    values = _arguments(tool)
    request = pkg.parse(wire, values)
    assert (request.ok, request.errors, request.warnings) == (True, (), ())
    assert request.tool_name == wire
    args_class, result_class = names.classes(tool)
    assert getattr(pkg, args_class) is getattr(module, args_class)
    assert type(request.arguments) is getattr(pkg, args_class)
    fields = attributes(tool.args).fields
    given = {wire: getattr(request.arguments, name) for wire, name in fields.items()}
    nested = {w: {"level": v.level} for w, v in given.items() if hasattr(v, "level")}
    assert {**given, **nested} == values == request.values
    parser = getattr(pkg, names.parser(tool))
    assert parser is getattr(module, names.parser(tool))
    assert parser(values).arguments == request.arguments
    assert result_class is not None
    assert getattr(pkg, result_class) is getattr(module, result_class)
    assert pkg.TOOLS[wire].returns.result_type is getattr(pkg, result_class)


@pytest.mark.parametrize("wire", WIRE_NAMES)
def test_every_tool_runs_with_a_keyword_handler_bound_by_wire_names(
    names_everywhere: Built, wire: str
) -> None:
    """Issue 33 items 1 and 2: every tool of the every-name catalog runs with a handler that
    takes its parameters as keywords, each named as the catalog declares it (`keywords()`), and
    each keyword is handed the value sent under that wire name."""
    pkg, tool = names_everywhere.package, _tool(names_everywhere, wire)
    keywords = pkg.TOOLS[wire].keywords()
    names = [k.name for k in keywords]
    received: list[dict[str, object]] = []
    scope: dict[str, object] = {"received": received}
    source = (
        f"def handler(*, {', '.join(f'{n}=None' for n in names)}):\n"
        f"    received.append({{{', '.join(f'{n!r}: {n}' for n in names)}}})\n"
    )
    exec(source, scope)  # noqa: S102 - a handler with exactly these keyword names
    values = _arguments(tool)
    result = pkg.Executor({wire: scope["handler"]}).execute(pkg.parse(wire, values))
    assert result.status != "rejected", result.error
    assert len(received) == 1
    by_wire = {k.wire: received[0][k.name] for k in keywords if k.wire}
    nested = {w: {"level": v.level} for w, v in by_wire.items() if hasattr(v, "level")}
    assert {**by_wire, **nested} == values


@pytest.mark.parametrize(
    "name",
    [
        "schemas/calendar_tools.yaml",
        "schemas/http_tools.json",
        "schemas/memory_tools.yaml",
        "tests/fixtures/hostile.yaml",
        "names_everywhere",
    ],
)
def test_the_names_a_package_is_written_with_are_the_ones_its_check_gave(
    name: str, tmp_path: Path
) -> None:
    """Issue 33 item 1: a tool's module and stem are not in the IR; the build names them from the
    catalog as read (`tool_names`, with their findings) and, to write it, from the checked catalog
    (`package_names`): by the one rule over the same claims, so the two agree on every tool."""
    source = every_name.write(tmp_path) if name == "names_everywhere" else PROJECT / name
    (catalog,), _ = check_catalogs([source], PROJECT)
    loaded = load_catalog(source, PROJECT)
    given, _ = tool_names(loaded, frozenset(), package_bound())
    names = _names(catalog)
    assert len(given) == len(catalog.tools) > 1
    assert {i: names[tool] for i, tool in enumerate(catalog.tools)} == given
    assert len({names.module(tool) for tool in catalog.tools}) == len(catalog.tools)


def test_all_is_unique_and_each_name_in_it_is_there(names_everywhere: Built) -> None:
    """Issue 33 item 1: `__all__` held 72 entries of which 70 were unique."""
    pkg = names_everywhere.package
    assert len(pkg.__all__) == len(set(pkg.__all__))
    missing = [name for name in pkg.__all__ if not hasattr(pkg, name)]
    assert missing == []


def test_the_package_s_own_names_keep_their_meaning(names_everywhere: Built) -> None:
    """Issue 33 item 1: `pkg.parse_reply` was the tool `reply`'s parser hidden by the reply
    reader, `pkg.ToolCallResult` the tool's class hiding the executor's. None of the package's
    own names comes from a tool's module."""
    pkg = names_everywhere.package
    tools_prefix = f"{pkg.__name__}.tools."
    for name in (*OWN_EXPORTS, *(n for n in package_bound() if n in pkg.__all__)):
        value = getattr(pkg, name)
        assert not getattr(value, "__module__", "").startswith(tools_prefix), name
    assert pkg.parse_reply.__module__ == pkg.__name__
    assert pkg.ToolCallResult.__module__ == f"{pkg.__name__}._results"
    assert pkg.parse_reply_2 is import_module(f"{tools_prefix}reply_2").parse_reply_2


def test_every_nested_class_is_exported_and_a_clash_is_suffixed(names_everywhere: Built) -> None:
    """Issue 33 item 1: nested classes a user needs (`UpdateConfigSettings`) are importable from
    the package; two tools' classes of one name are both, the later one suffixed."""
    pkg = names_everywhere.package
    tools = f"{pkg.__name__}.tools"
    assert pkg.UpdateConfigSettings is import_module(f"{tools}.update").UpdateConfigSettings
    assert pkg.UpdateConfigSettings2 is import_module(f"{tools}.update_config").UpdateConfigSettings
    assert pkg.CallBatch2 is import_module(f"{tools}.call").CallBatch
    assert pkg.CallBatch.__module__ == f"{pkg.__name__}._jsonl"
    assert pkg.LazyTools2 is import_module(f"{tools}.lazy").LazyTools
    exported = {id(getattr(pkg, name)) for name in pkg.__all__}
    names = _names(names_everywhere.catalog)
    for tool in names_everywhere.catalog.tools:
        module = import_module(f"{tools}.{names.module(tool)}")
        for name in names.nested(tool):
            assert id(getattr(module, name)) in exported, name


def _said(built: Built, *paths: str) -> list[str]:
    return [f"{d.level} {d.code}: {d.path}: {d.message}" for d in built.warnings if d.path in paths]


def test_each_name_given_instead_is_said(names_everywhere: Built) -> None:
    """Issue 33 item 1: a clash gets a finding naming both and the name given; `date` no longer
    becomes `date_` silently. Nothing is an error."""
    built = names_everywhere
    index = {name: i for i, name in enumerate(WIRE_NAMES)}
    reply, call = index["reply"], index["ToolCall"]
    every = index["every_parameter"]
    assert _said(built, f"tools[{reply}].name") == [
        (
            f"warning CG106: tools[{reply}].name: tool 'reply' becomes Python name 'reply_2', since"
            " the package's own 'parse_reply' would be its parser (set x-python-name to choose)"
        )
    ]
    assert _said(built, f"tools[{call}].name") == [
        (
            f"warning CG106: tools[{call}].name: tool 'ToolCall' becomes Python name 'tool_call_2',"
            " since the package's own 'ToolCallResult' would be its result's class (set"
            " x-python-name to choose)"
        )
    ]
    date = f"tools[{every}].parameters.properties.date"
    assert _said(built, date) == [
        (
            f"warning CG106: {date}: parameter 'date' becomes Python name 'date_', since 'date' is a"
            " name the generated class uses (set x-python-name to choose)"
        )
    ]
    klass = f"tools[{every}].parameters.properties.class"
    assert _said(built, klass) == [
        (
            f"warning CG106: {klass}: parameter 'class' becomes Python name 'class_', since 'class'"
            " is a Python keyword (set x-python-name to choose)"
        )
    ]
    update = index["update_config"]
    assert _said(built, f"tools[{update}].name") == [
        (
            f"warning CG106: tools[{update}].name: class 'UpdateConfigSettings' of tool"
            " 'update_config' is exported by the package as 'UpdateConfigSettings2', since a class"
            " of tool 'update' is 'UpdateConfigSettings' (set x-python-name on the tool to choose)"
        )
    ]
    spec = f"tools[{index['spec_maker']}].parameters.properties.spec"
    assert _said(built, spec) == [
        (
            f"warning CG106: {spec}: class 'ToolSpec' becomes 'ToolSpec2', since the tool's module"
            " has 'ToolSpec' already (set x-python-name on the tool to choose its stem)"
        )
    ]
    assert {d.level for d in built.warnings} <= {"warning", "note"}
    assert {d.code for d in built.warnings if d.level == "warning"} == {"CG106", "CG109"}


def _module_level(built: Built, wire: str) -> set[str]:
    """The names the module of the tool `wire` binds at its top, read from its code."""
    module = _module(built, wire)
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    return {
        target.id if isinstance(target, ast.Name) else target.name
        for node in tree.body
        for target in (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else [node]
            if isinstance(node, ast.FunctionDef | ast.ClassDef)
            else []
        )
        if isinstance(target, ast.Name | ast.FunctionDef | ast.ClassDef)
    }


def test_module_level_names_that_meet_take_suffixes(names_everywhere: Built) -> None:
    """Issue 33 item 1 (the IR keeps wire names only): the names of a tool's module are the back
    end's (`python.module_names`), one rule for classes, aliases, helpers, tables and patterns:
    of two that meet the first met keeps the name, the other takes a suffix, and a class that is
    one of the tool's own is said (every_name.MODULE_CLASH says which meets which)."""
    bound = _module_level(names_everywhere, "module_clash")
    pairs = [
        ("ModuleClashArgs", "ModuleClashArgs2"),
        ("ModuleClashKeywords", "ModuleClashKeywords2"),
        ("ModuleClashResult", "ModuleClashResult2"),
        ("ModuleClashMode", "ModuleClashMode2"),
        ("_arguments", "_arguments_2"),
        ("_result", "_result_2"),
        ("_X_KEYS", "_X_KEYS_2"),
        ("_X_DRAFT", "_X_DRAFT_2"),
        ("_A_B_FOLDED", "_A_B_FOLDED_2"),
        ("_a_b", "_a_b_2"),
        ("_M_VALUES", "_M_VALUES_2"),
        ("_P_PATTERN", "_P_PATTERN_2"),
        ("_C_CHOICES", "_C_CHOICES_2"),
    ]
    assert [pair for pair in pairs if not set(pair) <= bound] == []
    index = WIRE_NAMES.index("module_clash")
    paths = [f"tools[{index}].parameters.properties.{p}" for p in ("args", "keywords", "result")]
    assert _said(names_everywhere, *paths) == [
        (
            f"warning CG106: {path}: class 'ModuleClash{role}' becomes 'ModuleClash{role}2', since"
            f" the tool's module has 'ModuleClash{role}' already (set x-python-name on the tool to"
            " choose its stem)"
        )
        for path, role in zip(paths, ("Args", "Keywords", "Result"), strict=True)
    ]


def test_every_class_a_tool_module_imports_is_said_when_a_class_would_be_it(
    names_everywhere: Built,
) -> None:
    """Issue 33 item 1: a nested class or alias named like a class every tool module imports
    (`imports.TAKEN`: `ToolSpec`, `ToolCallRequest`, ...) takes a suffix, said, and the module
    keeps the import's meaning (the every-name catalog has one of each)."""
    imported = {n for n in TAKEN if n[:1].isupper() and not n.isupper() and len(words(n)) > 1}
    assert imported  # the list read has such names
    said = {
        d.message.split("'")[1]
        for d in names_everywhere.warnings
        if d.code == "CG106" and "since the tool's module has" in d.message
    }
    assert imported <= said
    for wire in ("spec_maker", "raw_maker", "result_maker"):
        module = _module(names_everywhere, wire)
        for name in imported & set(vars(module)):
            assert getattr(module, name) is getattr(names_everywhere.package._runtime, name)


def test_the_issue_s_three_line_catalog(catalog_from_yaml: Any) -> None:
    """Issue 33 item 1, as reported: tools `reply` and `tool_call` (with `returns`)."""
    pkg = catalog_from_yaml(
        """\
        name: three
        tools:
          - {name: reply, description: d, parameters: {type: object, properties: {q: {type: string}}}}
          - name: tool_call
            description: d
            parameters: {type: object}
            returns: {type: object, properties: {ok: {type: boolean}}}
        """
    )
    assert len(pkg.__all__) == len(set(pkg.__all__))
    (call,) = pkg.parse_reply('{"name": "reply", "arguments": {"q": "x"}}')
    assert call.arguments == pkg.Reply2Args(q="x")
    assert pkg.parse_reply_2('{"q": "x"}').arguments == pkg.Reply2Args(q="x")
    assert pkg.ToolCallResult.__module__.endswith("._results")
    assert pkg.TOOLS["tool_call"].returns.result_type is pkg.ToolCall2Result


# Names that are one of the package's own, a Python keyword or builtin, or another's spelling.
_FRAGMENTS = st.sampled_from(
    ["reply", "tool_call", "jsonl", "single_json", "call", "batch", "tool", "spec", "class"]
    + ["date", "list", "Any", "parse", "foo", "Foo", "a.b", "a_b", "lazy", "tools", "result"]
)
_TOOL_NAMES = st.lists(
    st.lists(_FRAGMENTS, min_size=1, max_size=2).map("_".join), min_size=1, max_size=5, unique=True
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=_TOOL_NAMES, typed=st.lists(st.booleans(), min_size=5, max_size=5))
def test_any_catalog_of_such_names_keeps_every_name_apart(
    tmp_path_factory: pytest.TempPathFactory, names: list[str], typed: list[bool]
) -> None:
    """Issue 33 item 1, over generated catalogs: tools named from pieces of the package's own
    names, keywords, builtins and each other's spellings, some with `returns` and nested objects,
    always give a package whose `__all__` is unique, whose own names keep their meaning, and
    whose every tool is reached through its parser, `Args` and `Result`."""
    tools = []
    for name, with_result in zip(names, typed, strict=False):
        nested = {"type": "object", "properties": {"n": {"type": "integer"}}}
        tool: dict[str, Any] = {
            "name": name,
            "description": "d",
            "parameters": {"type": "object", "properties": {"spec": nested, "date": nested}},
        }
        if with_result:
            tool["returns"] = {"type": "object", "properties": {"batch": nested}}
        tools.append(tool)
    out = tmp_path_factory.mktemp("generated")
    source = out / "catalog.json"
    source.write_text(json.dumps({"name": "generated_names", "tools": tools}), encoding="utf-8")
    (ir,), _ = check_catalogs([source], out)
    pkg = build_package(source, out / "out")
    assert len(pkg.__all__) == len(set(pkg.__all__))
    for name in OWN_EXPORTS:
        assert not getattr(getattr(pkg, name), "__module__", "").startswith(f"{pkg.__name__}.tools")
    names = _names(ir)
    for tool in ir.tools:
        module = import_module(f"{pkg.__name__}.tools.{names.module(tool)}")
        parser = names.parser(tool)
        request = getattr(pkg, parser)({"spec": {"n": 1}, "date": {"n": 2}})
        assert request.ok and request == pkg.parse(tool.wire_name, request.raw_arguments)
        args_class, result_class = names.classes(tool)
        assert type(request.arguments) is getattr(pkg, args_class)
        assert getattr(pkg, parser) is getattr(module, parser)
        if result_class is not None:
            assert getattr(pkg, result_class) is getattr(module, result_class)
        exported = {id(getattr(pkg, name)) for name in pkg.__all__}
        assert all(id(getattr(module, name)) in exported for name in names.nested(tool))

"""One front end, several back ends: the kinds are neutral, each back end has an entry for every
kind, and nothing in the front end reaches into a back end."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import codegen
from codegen.build import check_catalogs
from codegen.catalog import ir, kinds
from codegen.python.model import MODELS, PyKind, model
from codegen.python.module_names import ModuleNames
from codegen.python.namespace import package_names
from codegen.python.render import package_bound
from codegen.text.describe import TEXTS, constraints, prompt_type, type_text

CATALOG = Path(codegen.__file__).parent / "catalog"


def _kind_classes() -> list[type[kinds.Kind]]:
    """Every kind a node of the IR can be: the classes of `kinds` that are not private bases."""
    return [
        cls
        for name, cls in vars(kinds).items()
        if inspect.isclass(cls)
        and issubclass(cls, kinds.Kind)
        and cls is not kinds.Kind
        and not name.startswith("_")
    ]


def _imports(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of every import in the source of a module of `package`, inside functions
    too, relative ones resolved."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = parts[: len(parts) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            found.append((node.lineno, base))
            # `from codegen import python` imports the back end as surely as `import codegen.python`.
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


# Every part of codegen (a folder, or a module at its top), in layers from the bottom: a part
# imports only parts of lower layers, so there is no circle and no arrow up, and the parts of one
# layer import none of each other (the back ends read the front end's IR, never each other; the
# docs read the Python names the code back end gives).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("runtime",),  # copied into every generated package: the standard library only
    (
        "__init__",
        "vocabulary",
        "diagnostics",
        "resources",
        "outputs",
        "guarded_fs",
        "workers",
        "package_files",
        "memory",
        "unicode_text",
    ),
    ("cache", "config"),
    ("memo",),  # the build's memo around the stages, over the cache
    ("catalog",),  # the front end
    ("python", "payloads", "importers"),  # back ends, and `codegen import`
    # The package's docs and prompts name its Python classes, and the examples' check finds each
    # tool's parser, as the code back end names them.
    ("text", "examples"),
    ("tool_outputs",),
    ("build",),
    ("emit", "lint", "sandbox", "watch", "playground"),
    ("cli",),
    ("docs_tables", "__main__"),
)
# Imports against the layers: none (the last, `cli` reading the docs tables' codes, went with
# issue 34 item 3). None may be added.
ARROWS_UP: set[tuple[str, str]] = set()
ROOT = CATALOG.parent
PROJECT = ROOT.parent


def _part(module: str) -> str | None:
    """The part of codegen `module` (dotted) is in, or None for a module outside codegen."""
    parts = module.split(".")
    if parts[0] != "codegen":
        return None
    if len(parts) == 1:
        return "__init__"
    if (ROOT / parts[1]).is_dir() or (ROOT / f"{parts[1]}.py").is_file():
        return parts[1]
    return "__init__"  # a name the package itself binds (`from codegen import __version__`)


def _layer_of() -> dict[str, int]:
    return {part: layer for layer, parts in enumerate(LAYERS) for part in parts}


def test_every_part_of_codegen_has_a_layer() -> None:
    """Issue 34 item 4: a new folder or module is placed in the table before it is imported."""
    found = {
        path.stem if path.parent == ROOT else path.relative_to(ROOT).parts[0]
        for path in ROOT.rglob("*.py")
    }
    assert found == set(_layer_of())


def test_the_development_page_names_the_layers_of_the_table() -> None:
    """The layers as `docs/development.md` says them are `LAYERS`, in order: the page had lost a
    layer (`memo`) and kept an import the table no longer allowed."""
    page = (PROJECT / "docs" / "development.md").read_text(encoding="utf-8")
    section = r"## The layers.*?From\s+the bottom:(.*?)`tests/test_kinds\.py`"
    said = re.search(section, page, re.DOTALL)
    assert said is not None
    layers = [re.findall(r"`(\w+)`", layer) for layer in said.group(1).split(";")]
    assert [tuple(layer) for layer in layers] == list(LAYERS)


def test_every_import_goes_down_a_layer() -> None:
    """Issue 34 item 4: no circle, and no import from a lower part into a higher one (the wild
    reader of `catalog/` imported `importers.formats` while the importers import the catalog);
    inside functions too."""
    layer_of = _layer_of()
    modules = sorted(ROOT.rglob("*.py"))
    assert len(modules) > 50  # the walk found codegen
    arrows = set()
    for path in modules:
        own = _part(".".join(("codegen", *path.relative_to(ROOT).with_suffix("").parts)))
        assert own is not None
        for line, module in _imports(path.read_text(encoding="utf-8"), _package(path)):
            target = _part(module)
            if target is None or target == own:
                continue
            if layer_of[target] >= layer_of[own]:
                arrows.add((own, target))
                where = f"{path.relative_to(ROOT.parent)}:{line} imports {module}"
                assert (own, target) in ARROWS_UP, where
    assert arrows == ARROWS_UP  # an arrow gone leaves the list


# What a field that holds a Python name is called (a wire name is `wire_name`).
PYTHON_NAME_FIELDS = {"py_name", "module", "alias", "helper", "call_self", "extra_field"}


def _holds_a_python_name(field: str) -> bool:
    return field in PYTHON_NAME_FIELDS or (
        field != "wire_name" and field.endswith(("_name", "table", "_set"))
    )


def test_the_ir_holds_no_python_names() -> None:
    """Issue 33 item 1: the IR holds wire names and paths; the Python names are the back end's
    (`python/namespace` names each tool's module and parser, `python/attributes` a class's fields
    and their locals). No field of a dataclass of `ir` or `kinds` is named like a Python name
    (`Tool.module` and `Tool.parse_name` were the last)."""
    classes = {
        cls
        for module in (ir, kinds)
        for cls in vars(module).values()
        if inspect.isclass(cls)
        and dataclasses.is_dataclass(cls)
        and cls.__module__ == module.__name__
    }
    found = {
        f"{owner.__name__}.{field.name}"
        for cls in classes
        for field in dataclasses.fields(cls)
        if _holds_a_python_name(field.name)
        # Named on the class that declares it, not on each subclass.
        for owner in [
            next(
                c for c in reversed(cls.__mro__) if field.name in vars(c).get("__annotations__", {})
            )
        ]
    }
    assert found == set()


def _strings(value: object) -> Iterator[tuple[str, str]]:
    """(field, text) of every text the IR holds under `value`, through its dataclasses and
    tuples (not the schemas, line maps and annotations, which are the catalog's as written)."""
    if isinstance(value, str):
        yield "", value
    elif isinstance(value, tuple):
        for item in value:
            yield from _strings(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            for owner, text in _strings(getattr(value, field.name)):
                yield owner or f"{type(value).__name__}.{field.name}", text


def _module_level(source: str) -> set[str]:
    """The names a module binds at its top."""
    found: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.add(node.name)
        for target in getattr(node, "targets", [getattr(node, "target", None)]):
            if isinstance(target, ast.Name):
                found.add(target.id)
    return found


@pytest.mark.parametrize("source", sorted((PROJECT / "schemas").glob("*_tools.*")), ids=str)
def test_no_name_a_tool_module_binds_is_in_the_ir(source: Path) -> None:
    """Issue 33 item 1: the IR holds wire names and paths, never a name of a tool's module (its
    classes, helpers, tables, patterns: `python.module_names` gives them). Read from the bundled
    catalogs' generated modules: no text anywhere in a tool's IR is one of its module's names,
    its parser among them."""
    (catalog,), _ = check_catalogs([source], PROJECT)
    names = package_names(catalog, package_bound())
    for tool in catalog.tools:
        module = PROJECT / "generated" / catalog.name / "tools" / f"{names.module(tool)}.py"
        bound = _module_level(module.read_text(encoding="utf-8"))
        assert len(bound) > 5  # the reader found the module's names
        held = {(field, text) for field, text in _strings(tool) if text in bound}
        assert names.parser(tool) in bound
        assert held == set(), tool.wire_name


def _package(path: Path) -> str:
    """The package a module's relative imports start from."""
    return ".".join(path.relative_to(CATALOG.parent.parent).parent.parts)


def test_the_import_reader_sees_every_form() -> None:
    """The check above would pass on a reader that saw nothing: it sees lazy and relative imports."""
    source = (
        "import codegen.text.docs\n"
        "from .. import python\n"
        "def late():\n"
        "    from codegen.payloads import files\n"
    )
    found = _imports(source, "codegen.catalog")
    assert (1, "codegen.text.docs") in found
    assert (2, "codegen.python") in found
    assert (4, "codegen.payloads.files") in found


def test_every_kind_has_a_python_model() -> None:
    classes = _kind_classes()
    assert {kinds.AnyKind, kinds.TextFormatKind, kinds.DateKind, kinds.UnionKind} <= set(classes)
    assert set(classes) == set(MODELS)
    # Each model's own class: a subclass of a kind is not written as its base.
    assert len(set(MODELS.values())) == len(MODELS)


def test_every_kind_has_its_text() -> None:
    assert set(_kind_classes()) == set(TEXTS)
    assert len({type(text) for text in TEXTS.values()}) == len(TEXTS)


@pytest.mark.parametrize(
    ("kind", "docs", "prompt", "limits"),
    [
        (
            kinds.TextFormatKind(nullable=True, checked_format="uri"),
            "string (uri) | null",
            "uri|null",
            [],
        ),
        (kinds.DateKind(), "string (date)", "date", []),
        (
            kinds.StringKind(min_length=1, pattern="^a"),
            "string",
            "string",
            ["length >= 1", "pattern ^a"],
        ),
        (
            kinds.ArrayKind(items=kinds.UnionKind(members=(kinds.IntegerKind(), kinds.NullKind()))),
            "array of integer | null",
            "(integer|null)[]",
            [],
        ),
        (kinds.MapKind(required=("id",)), "object", "object", ["keys id"]),
        (kinds.NullKind(), "null", "null", []),
    ],
)
def test_the_text_of_a_kind(kind: kinds.Kind, docs: str, prompt: str, limits: list[str]) -> None:
    assert type_text(kind) == docs
    assert prompt_type(kind) == prompt
    assert constraints(kind) == limits


@pytest.mark.parametrize(
    ("kind", "annotation", "fast"),
    [
        (kinds.IntegerKind(minimum=1), "int", "type(v) is int and 1 <= v"),
        (
            kinds.TextFormatKind(nullable=True, checked_format="uri"),
            "str | None",
            "type(v) is str and is_absolute_uri(v)",
        ),
        (kinds.DateKind(), "date", None),
        (kinds.ArrayKind(items=kinds.BooleanKind()), "list[bool]", None),
        (kinds.ArrayKind(max_items=2), "list[object]", "type(v) is list and len(v) <= 2"),
        (kinds.AnyKind(), "object", "v is not ABSENT"),
    ],
)
def test_a_model_writes_its_kind(kind: kinds.Kind, annotation: str, fast: str | None) -> None:
    # None of these kinds has a module-level name: a module that names nothing will do.
    written: PyKind[kinds.Kind] = model(kind, ModuleNames((), ()))
    assert type(written) is MODELS[type(kind)]
    assert written.annotation == annotation
    assert written.fast_check("v") == fast

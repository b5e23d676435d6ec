"""The build's check of each tool's whole-call `examples`: each must parse with the tool's own
generated parser with no warning and no error, since providers show them to models as calls to
copy. The real parser is the honest judge, so the package just rendered is imported from a
temporary directory; only tools with examples, and only those not checked before, are loaded."""

from __future__ import annotations

import importlib
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from codegen.cache import BuildCache, key
from codegen.catalog.ir import Catalog, Tool
from codegen.diagnostics import CatalogError, Diagnostic, format_path
from codegen.python.namespace import PackageNames


def check_examples(
    catalog: Catalog, names: PackageNames, files: Mapping[str, str], cache: BuildCache
) -> None:
    """Raise CatalogError with an error for each example that does not parse cleanly; `names`
    are the catalog's, which find each tool's module and parser in `files`."""
    unchecked = [
        tool for tool in catalog.tools if tool.examples and _entry(catalog, tool) not in cache
    ]
    if not unchecked:
        return
    # What importing the package itself loads, and the tools to check.
    shared = (
        "__init__.py",
        "_runtime.py",
        "_outbound.py",
        "_repair.py",
        "_values.py",
        "_payloads.py",
        "_calls.py",
        "_ids.py",
        "_jsonl.py",
        "tools/__init__.py",
    )
    needed = {f"{catalog.name}/{name}" for name in shared}
    needed |= {f"{catalog.name}/tools/{names.module(tool)}.py" for tool in unchecked}
    errors: list[Diagnostic] = []
    with imported(catalog.name, {p: files[p] for p in needed if p in files}) as package:
        for tool in unchecked:
            parse = getattr(
                importlib.import_module(f"{package.__name__}.tools.{names.module(tool)}"),
                names.parser(tool),
            )
            found = list(_problems(catalog, tool, parse))
            errors += found
            if not found:
                cache.put(_entry(catalog, tool), "ok")
    if errors:
        raise CatalogError(errors)


def _problems(catalog: Catalog, tool: Tool, parse: object) -> Iterator[Diagnostic]:
    for j, example in enumerate(tool.examples):
        request = parse(example)  # type: ignore[operator]
        if not request.warnings and not request.errors:
            continue
        codes = ", ".join([*request.errors, *request.warnings])
        where = ("examples", j)
        yield Diagnostic(
            catalog.source,
            tool.line_of(where),
            f"{tool.path}.{format_path(where)}",
            f"example does not parse cleanly with the tool's parser: {codes}",
        )


def _entry(catalog: Catalog, tool: Tool) -> str:
    return key("examples", catalog.source, tool.sha256)


@contextmanager
def imported(name: str, files: Mapping[str, str]) -> Iterator[ModuleType]:
    """The package `name` made of `files` ({"name/...": text}), imported from a temporary
    directory under a name of its own (a catalog may be called like a module already imported)."""
    package = f"_codegen_check_{name}"
    with tempfile.TemporaryDirectory(prefix="codegen-") as tmp:
        for path, text in files.items():
            target = Path(tmp) / package / Path(path).relative_to(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        sys.path.insert(0, tmp)
        try:
            yield importlib.import_module(package)
        finally:
            sys.path.remove(tmp)
            for module in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
                del sys.modules[module]

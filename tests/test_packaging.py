"""`pip install .` ships what codegen needs at run time: its templates, the catalog meta-schema and
the playground's page."""

from __future__ import annotations

import contextlib
import importlib
import tomllib
import zipfile
from pathlib import Path

from codegen import runtime

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_carries_the_templates_and_the_meta_schema(tmp_path: Path) -> None:
    # What pip does to build the wheel, without pip: it calls the backend pyproject names (its
    # `requires` are in the test extra) with the
    # project as the working directory (PEP 517), and the backend alone decides what the wheel
    # holds. (`pip wheel` took 5 CPU-s, mostly making an isolated environment for hatchling.)
    system = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    backend = importlib.import_module(system["build-backend"])
    with contextlib.chdir(ROOT):
        name = backend.build_wheel(str(tmp_path))
    wheel = tmp_path / name
    assert name.startswith("toolcall_codegen-")
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {
        p.relative_to(ROOT / "templates").as_posix()
        for p in (ROOT / "templates").rglob("*")
        if p.is_file()
    }
    assert {f"codegen/templates/{name}" for name in templates} <= names
    assert "codegen/catalog.schema.json" in names
    assert "codegen/cli.py" in names
    # The playground's page is package data: `codegen playground` serves it from the package.
    assert {f"codegen/playground/assets/page.{ext}" for ext in ("html", "js", "css")} <= names
    # The runtime every package carries is copied from these modules at build time.
    assert {f"codegen/runtime/_{name}.py" for name in runtime.MODULES} <= names
    # pyproject says `license = "MIT"`: the licence's text ships with the wheel (issue 32).
    (licence,) = (n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    assert zipfile.ZipFile(wheel).read(licence).startswith(b"MIT License")

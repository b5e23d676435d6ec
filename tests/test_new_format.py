"""Issue 34's done-when: a new string format is one row plus its check and its coercion.

`tests/even_digits_format.py` adds `format: even-digits` the way a contributor would: its check
and coercion into the runtime (with their rows) and its row into the registry. This test writes
that into a copy of codegen and runs the copy's `codegen build` and `codegen import` as a user
would, and sees the format enforced by the generated parser, carried by the payloads, described
in the docs and the prompt, and imported back."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import codegen
from tests.even_digits_format import REGISTRY_ADDITION, RUNTIME_ADDITION

CHECKOUT = Path(codegen.__file__).resolve().parent.parent
CATALOG = """\
name: pins
tools:
  - name: set_pin
    description: Set a card's PIN.
    parameters:
      type: object
      properties:
        pin: {type: string, format: even-digits, description: The new PIN.}
        old:
          type: string
          format: even-digits
          description: The PIN it replaces.
          default: "12 34"
      required: [pin]
"""


def _codegen(tree: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line of the codegen in `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        cwd=cwd,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def added(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A copy of codegen with the format added, its build of the catalog (the output directory)
    and the build's report."""
    root = tmp_path_factory.mktemp("even_digits")
    tree = root / "tree"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(CHECKOUT / "codegen", tree / "codegen", ignore=ignore)
    shutil.copytree(CHECKOUT / "templates", tree / "templates", ignore=ignore)
    (tree / "schemas").mkdir()
    shutil.copy(CHECKOUT / "schemas" / "catalog.schema.json", tree / "schemas")
    with (tree / "codegen" / "runtime" / "_runtime.py").open("a", encoding="utf-8") as runtime:
        runtime.write("\n\n" + RUNTIME_ADDITION)
    with (tree / "codegen" / "vocabulary.py").open("a", encoding="utf-8") as vocabulary:
        vocabulary.write("\n" + REGISTRY_ADDITION)
    (root / "pins.yaml").write_text(CATALOG, encoding="utf-8")
    done = _codegen(tree, root, "build", "pins.yaml", "--out", "out", "--no-cache")
    assert done.returncode == 0, done.stderr
    return tree, root / "out", done.stderr


@pytest.fixture(scope="module")
def pins(added: tuple[Path, Path, str]) -> ModuleType:
    _, out, _ = added
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module("pins")
    finally:
        sys.path.remove(str(out))


def test_the_build_checks_it_and_reads_its_default_by_it(added: tuple[Path, Path, str]) -> None:
    """No "format is not checked" (CG101); the default is read by the format's own coercion."""
    _, _, report = added
    assert "CG101" not in report
    assert (
        "CG105: tools[0].parameters.properties.old.default: default '12 34' is of format even-digits"
        " only as the parser corrects it: read as '1234' (digits_joined)"
    ) in report


@pytest.mark.parametrize(
    ("sent", "value", "warnings", "errors"),
    [
        ("1234", "1234", (), ()),
        ("12-34", "1234", ("digits_joined:pin",), ()),
        (123456, "123456", ("non_string_literal_retained:pin",), ()),
        ("123", None, (), ("not_even_digits:pin",)),
        ("12a4", None, (), ("not_even_digits:pin",)),
        ("١٢٣٤", None, (), ("not_even_digits:pin",)),  # digits, but not ASCII ones
    ],
)
def test_the_parser_enforces_it(
    pins: ModuleType,
    sent: object,
    value: str | None,
    warnings: tuple[str, ...],
    errors: tuple[str, ...],
) -> None:
    request = pins.parse("set_pin", {"pin": sent})
    assert request.warnings == warnings
    assert request.errors == errors
    if not errors:
        assert request.arguments.pin == value
        assert request.arguments.old == "1234"  # the corrected default


def test_the_fast_path_is_its_check(added: tuple[Path, Path, str]) -> None:
    """The generated module calls the format's check and coercion by name, from the runtime."""
    _, out, _ = added
    module = (out / "pins" / "tools" / "set_pin.py").read_text(encoding="utf-8")
    assert "type(v) is str and is_even_digits(v)" in module
    assert 'to_even_digits(v, "pin", warnings, errors)' in module


def test_the_payloads_carry_it(added: tuple[Path, Path, str]) -> None:
    """Sent as written where the provider takes any format; strict mode drops it, said."""
    tree, out, _ = added
    payloads = out / "pins" / "payloads"
    openai = json.loads((payloads / "openai_chat.json").read_text(encoding="utf-8"))
    pin = openai[0]["function"]["parameters"]["properties"]["pin"]
    assert pin["format"] == "even-digits"
    anthropic = json.loads((payloads / "anthropic.json").read_text(encoding="utf-8"))
    assert anthropic[0]["input_schema"]["properties"]["pin"]["format"] == "even-digits"
    strict = json.loads((payloads / "openai_chat_strict.json").read_text(encoding="utf-8"))
    assert "format" not in strict[0]["function"]["parameters"]["properties"]["pin"]
    validated = _codegen(tree, out.parent, "validate", "pins.yaml").stderr
    assert (
        "note CG201: tools[0].parameters.properties.pin.format: OpenAI strict: format"
        " 'even-digits' removed: strict mode does not take it; the parser still enforces it"
    ) in validated


def test_the_docs_and_the_prompt_describe_it(added: tuple[Path, Path, str]) -> None:
    _, out, _ = added
    page = (out / "pins" / "docs" / "tools" / "set_pin.md").read_text(encoding="utf-8")
    assert "string (even-digits)" in page
    assert "digits_joined" in page  # the correction it may make
    prompt = (out / "pins" / "prompts" / "jsonl.txt").read_text(encoding="utf-8")
    assert "pin: even-digits" in prompt
    assert "`date`, `date-time`, `even-digits` and `uri` are strings in that format" in prompt


def test_it_is_imported_back(added: tuple[Path, Path, str]) -> None:
    """`codegen import` of the payload gives the format back, and the catalog builds again."""
    tree, out, _ = added
    root = out.parent
    done = _codegen(
        tree, root, "import", str(out / "pins" / "payloads" / "openai_chat.json"), "-o", "back.yaml"
    )
    assert done.returncode == 0, done.stderr
    text = (root / "back.yaml").read_text(encoding="utf-8")
    assert "format: even-digits" in text
    again = _codegen(tree, root, "build", "back.yaml", "--out", "again", "--no-cache")
    assert again.returncode == 0, again.stderr
    assert "CG101" not in again.stderr

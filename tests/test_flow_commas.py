"""A comma inside a one-line YAML `{...}` ends a plain value, and the finding says so (issue 32:
`{type: string, description: The city, e.g. Paris}` gave a description "The city" and a keyword
`e.g. Paris`, and only "keyword 'e.g. Paris' is not enforced").

The cases are generated: the cut at every level of a catalog that holds text (the catalog, a tool,
a property, a nested property, an item schema), with each YAML parser codegen uses and each way it
reads a file (whole, or a tool's item at a time); and the forms that must not be reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.catalog import load
from codegen.catalog.load import load_catalog
from codegen.diagnostics import warning

PLACES = {
    # (the catalog's text with CUT where a one-line mapping is written, the path of the value cut)
    "a property": (
        "    parameters:\n      type: object\n      properties:\n        city: CUT\n",
        "tools[0].parameters.properties.city.description",
    ),
    "a nested property": (
        (
            "    parameters:\n      type: object\n      properties:\n        place:\n"
            "          type: object\n          properties:\n            city: CUT\n"
        ),
        "tools[0].parameters.properties.place.properties.city.description",
    ),
    "an item schema": (
        (
            "    parameters:\n      type: object\n      properties:\n        cities:\n"
            "          type: array\n          items: CUT\n"
        ),
        "tools[0].parameters.properties.cities.items.description",
    ),
    "the parameters": (
        "    parameters: CUT\n",
        "tools[0].parameters.description",
    ),
}
CUT = "{type: string, description: The city, e.g. Paris}"
HEAD = (
    "name: commas\ntools:\n  - name: get_weather\n    description: Gets the weather for a city.\n"
)


@pytest.fixture(params=["libyaml", "python"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(load, "_FastYaml12Loader", None)
    elif load._FastYaml12Loader is None:
        pytest.fail("libyaml is a dependency of the test extra")
    return str(request.param)


@pytest.mark.parametrize("by_items", [False, True], ids=["whole", "by items"])
@pytest.mark.parametrize("place", PLACES)
def test_a_comma_that_ends_a_plain_value_is_named_as_the_cause(
    tmp_path: Path, parser: str, place: str, by_items: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, path = PLACES[place]
    source = tmp_path / "c.yaml"
    source.write_text(HEAD + text.replace("CUT", CUT), encoding="utf-8")
    line = (HEAD + text).splitlines().index(next(x for x in text.splitlines() if "CUT" in x)) + 1
    if not by_items:
        monkeypatch.setattr(load, "_read_by_items", lambda *_: None)
    loaded = load_catalog(source, tmp_path)
    expected = warning(
        "c.yaml",
        line,
        path,
        "a comma in a one-line `{...}` ends a plain value: 'description' is 'The city', and "
        "'e.g. Paris' became a key of its own with no value; quote the value (\"...\") to keep "
        "its comma",
        "CG112",
    )
    assert list(loaded.problems) == [expected]


@pytest.mark.parametrize(
    "written",
    [
        '{type: string, description: "The city, e.g. Paris"}',  # quoted: the comma is kept
        "{type: string, description: 'The city, e.g. Paris'}",
        "{type: string, description: The city}",  # no comma
        "{description: The city, type: string}",  # a comma between two whole pairs
        '{type: string, "e.g.": Paris}',  # a key of its own, with a value
        "{type: string, description: 3, x}",  # the value before is not text
    ],
)
def test_a_one_line_mapping_without_a_cut_value_is_not_reported(
    tmp_path: Path, parser: str, written: str
) -> None:
    text, _ = PLACES["a property"]
    source = tmp_path / "c.yaml"
    source.write_text(HEAD + text.replace("CUT", written), encoding="utf-8")
    assert [p for p in load_catalog(source, tmp_path).problems if p.code == "CG112"] == []


def test_a_block_mapping_keeps_its_commas(tmp_path: Path) -> None:
    source = tmp_path / "c.yaml"
    source.write_text(
        HEAD + "    parameters:\n      type: object\n      properties:\n        city:\n"
        "          type: string\n          description: The city, e.g. Paris\n",
        encoding="utf-8",
    )
    loaded = load_catalog(source, tmp_path)
    assert loaded.problems == ()
    city = loaded.data["tools"][0]["parameters"]["properties"]["city"]
    assert city["description"] == "The city, e.g. Paris"

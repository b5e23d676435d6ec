"""Reading catalogs: YAML 1.2 scalars and line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.build import check_catalogs
from codegen.catalog.load import load_catalog
from codegen.diagnostics import CatalogError


def test_yaml_is_read_with_yaml_1_2_scalars(tmp_path: Path) -> None:
    source = tmp_path / "c.yaml"
    source.write_text(
        "values: [010, 1:30, 1_000, 1e3, 0x1F, 0o17, yes, no, on, off, 2024-01-01, true, null]\n",
        encoding="utf-8",
    )
    data = load_catalog(source, tmp_path).data
    assert data["values"] == [
        10,
        "1:30",
        "1_000",
        1000.0,
        31,
        15,
        "yes",
        "no",
        "on",
        "off",
        "2024-01-01",
        True,
        None,
    ]


def test_tab_indented_json_keeps_its_line_numbers(tmp_path: Path) -> None:
    source = tmp_path / "c.json"
    source.write_text(
        '{\n\t"name": "tabs",\n\t"tools": [\n\t\t{\n\t\t\t"name": "t",\n\t\t\t"description": "d",\n'
        '\t\t\t"parameters": {"type": "object", "properties": {"n": {"type": "int"}}}\n\t\t}\n\t]\n}\n',
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as caught:
        check_catalogs([source], tmp_path)
    assert [str(d) for d in caught.value.diagnostics] == [
        "c.json:7: tools[0].parameters.properties.n.type: 'int' is not a JSON Schema type"
    ]


def test_a_key_beside_a_merge_overrides_the_merged_one(tmp_path: Path) -> None:
    # YAML's merge key (`<<`): a key written beside it overrides the merged one. Constructing
    # merges the mapping into its parent's node, so duplicates are looked for in the keys as
    # written; a key written twice is still one.
    source = tmp_path / "c.yaml"
    source.write_text(
        "name: c\ntools:\n- name: a\n  p: &base\n    type: object\n    x: 1\n"
        "- name: b\n  p:\n    <<: *base\n    type: string\n",
        encoding="utf-8",
    )
    loaded = load_catalog(source, tmp_path)
    assert loaded.problems == ()
    assert loaded.data["tools"][1]["p"] == {"type": "string", "x": 1}
    assert loaded.lines[("tools", 1, "p", "type")] == 10
    assert loaded.lines[("tools", 1, "p", "x")] == 6  # where the merged key is written
    source.write_text(
        "name: c\ntools:\n- name: a\n  p: &base\n    type: object\n"
        "- name: b\n  p:\n    <<: *base\n    type: string\n    type: object\n",
        encoding="utf-8",
    )
    assert [p.message for p in load_catalog(source, tmp_path).problems] == ["duplicate key 'type'"]

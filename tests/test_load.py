"""Reading catalogs: YAML 1.2 scalars and line numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

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
        '\t\t\t"parameters": {"type": "object", "properties": {"n": {"type": 5}}}\n\t\t}\n\t]\n}\n',
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as caught:
        check_catalogs([source], tmp_path)
    assert [str(d) for d in caught.value.diagnostics] == [
        "c.json:7: tools[0].parameters.properties.n.type: 5 is not a JSON Schema type"
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


CATALOG = {
    "name": "c",
    "tools": [{"name": "a", "description": "A.", "parameters": {"type": "object"}}],
}


@pytest.mark.parametrize(
    ("suffix", "text", "description_line"),
    [
        (".yaml", yaml.safe_dump(CATALOG, sort_keys=False), 4),
        (".json", json.dumps(CATALOG, indent=2), 6),
    ],
)
def test_a_catalog_saved_with_a_byte_order_mark_reads_as_without(
    tmp_path: Path, suffix: str, text: str, description_line: int
) -> None:
    # Windows tools write UTF-8 with a byte order mark first (Notepad, PowerShell 5's
    # `Set-Content -Encoding UTF8`), and with CRLF line ends: json refused the mark as a syntax
    # error. It says only the encoding, so it is read past, and the lines keep their numbers.
    saved = text.replace("\n", "\r\n").encode("utf-8")
    plain, marked = tmp_path / f"plain{suffix}", tmp_path / f"marked{suffix}"
    plain.write_bytes(saved)
    marked.write_bytes(b"\xef\xbb\xbf" + saved)
    first, second = load_catalog(plain, tmp_path), load_catalog(marked, tmp_path)
    assert second.data == first.data == CATALOG
    assert (second.lines, second.tool_lines) == (first.lines, first.tool_lines)
    assert second.line_of(("tools", 0, "description")) == description_line
    assert second.problems == first.problems == ()
    (catalog,), warnings = check_catalogs([marked], tmp_path)
    assert [t.wire_name for t in catalog.tools] == ["a"]
    assert [(d.line, d.path, d.code) for d in warnings] == [
        (d.line, d.path, d.code) for d in check_catalogs([plain], tmp_path)[1]
    ]

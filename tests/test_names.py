from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.build import build
from codegen.catalog.names import Claim, Rename, class_stem, identifier, pascal, resolve, snake
from codegen.python.module_names import Names


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ("memory.search", "memory_search"),
        ("Content-Type", "content_type"),
        ("caseSensitive", "case_sensitive"),
        ("HTTPServerURL", "http_server_url"),
        ("class", "class_"),
        ("match", "match"),
        ("type", "type"),
        ("date", "date_"),
        ("2fa_code", "field_2fa_code"),
        ("X-Request-ID", "x_request_id"),
        ("__private", "private"),
        ("名前", "field"),
        ("größe", "grosse"),
        ("Ärger-Fall", "arger_fall"),
    ],
)
def test_snake(wire: str, expected: str) -> None:
    assert snake(wire) == expected


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ("memory.search", "MemorySearch"),
        ("update_config", "UpdateConfig"),
        ("retryPolicy", "RetryPolicy"),
        ("http.get", "HttpGet"),
        ("2fa", "Item2fa"),
        ("", "Item"),
    ],
)
def test_pascal(wire: str, expected: str) -> None:
    assert pascal(wire) == expected


# One rule for every kind of name (`names.resolve`): pinned names win, then a wire name that
# already is the identifier, then `_2`, `_3` in catalog order; keywords take `_` once.


def _one(owner: str, base: str, *, pinned: bool = False, exact: bool = False) -> Claim[str]:
    return Claim(owner, lambda n: (identifier(base, n),), pinned=pinned, exact=exact)


def test_pinned_names_win_over_earlier_claims() -> None:
    given, renames = resolve([_one("first", "pick"), _one("second", "pick", pinned=True)])
    assert given == {"second": ("pick",), "first": ("pick_2",)}
    assert renames == [Rename("first", "pick", "pick_2", "second", pinned=False)]


def test_a_wire_name_that_is_the_identifier_keeps_it() -> None:
    given, _ = resolve([_one("todo.add", "todo_add"), _one("todo_add", "todo_add", exact=True)])
    assert given == {"todo_add": ("todo_add",), "todo.add": ("todo_add_2",)}


def test_two_pins_of_one_name_are_told_apart_and_reported_as_pins() -> None:
    given, renames = resolve([_one("a", "pick", pinned=True), _one("b", "pick", pinned=True)])
    assert given == {"a": ("pick",), "b": ("pick_2",)}
    assert renames == [Rename("b", "pick", "pick_2", "a", pinned=True)]


def test_a_keyword_takes_an_underscore_once_and_suffixes_go_on_its_base() -> None:
    given, _ = resolve([_one("class", "class"), _one("class_", "class_", exact=True)])
    assert given == {"class_": ("class_",), "class": ("class_2",)}


def test_a_suffix_never_takes_a_name_a_later_claim_wants_as_it_is() -> None:
    # `t.1` collides with `t_1`; its first suffix `t_1_2` is free, but `t_1_2` is wanted as is.
    claims = [_one("t_1", "t_1", exact=True), _one("t.1", "t_1"), _one("t_1_2", "t_1_2")]
    given, _ = resolve(claims)
    assert given == {"t_1": ("t_1",), "t.1": ("t_1_3",), "t_1_2": ("t_1_2",)}


@given(
    st.lists(
        st.sampled_from(["_x", "_x_2", "_x_2_2", "X", "X2", "X22", "x", "x_", "class"]), max_size=12
    ),
    st.sets(st.sampled_from(["_x", "_x_2", "X", "X2", "x", "x_", "x_2", "class_"])),
)
def test_a_name_taken_is_the_one_rule_s_for_one_claim(wanted: list[str], bound: set[str]) -> None:
    """Issue 33 item 1: `Names.take` (module-level names, `python.module_names`) is `resolve` for
    one claim of one name against the names held so far, written out for speed."""
    names = Names(bound)
    held: dict[str, int] = dict.fromkeys(bound, -1)
    for i, name in enumerate(wanted):
        style = class_stem if name[:1].isupper() else identifier
        given, _ = resolve([Claim(i, lambda n, name=name, style=style: (style(name, n),))], held)
        (expected,) = given[i]
        assert names.take(name) == expected
        held[expected] = i


def test_names_taken_one_by_one_follow_the_same_rule() -> None:
    names = Names(["dataclass"])
    assert [names.take(n) for n in ("_x", "_x", "Item", "Item", "dataclass")] == [
        "_x",
        "_x_2",
        "Item",
        "Item2",
        "dataclass_2",
    ]


def test_two_tools_pinning_one_name_say_so(tmp_path: Path) -> None:
    source = tmp_path / "pins.yaml"
    source.write_text(
        "name: pins\ntools:\n"
        "  - {name: a, description: d, x-python-name: pick, parameters: {type: object}}\n"
        "  - {name: b, description: d, x-python-name: pick, parameters: {type: object}}\n",
        encoding="utf-8",
    )
    result = build([source], tmp_path)
    assert [str(w) for w in result.warnings if "Python name" in w.message] == [
        (
            "pins.yaml:4: warning CG106: tools[1].name: tool 'b' and tool 'a' both pin Python name"
            " 'pick': 'b' becomes 'pick_2' (give it another x-python-name)"
        )
    ]
    assert "pins/tools/pick_2.py" in result.files


def test_a_keyword_parameter_beside_its_underscored_spelling(catalog_from_yaml: Any) -> None:
    package = catalog_from_yaml(
        """\
        name: kw
        tools:
          - name: t
            description: d
            parameters:
              type: object
              properties:
                class: {type: string}
                class_: {type: integer}
        """
    )
    request = package.parse("t", {"class": "a", "class_": "2"})
    assert (request.arguments.class_2, request.arguments.class_) == ("a", 2)
    assert request.warnings == ("string_literal_converted_to_integer:class_",)

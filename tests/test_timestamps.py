"""`format: date-time` always gives an aware datetime: a text without a UTC offset ("2024-05-01",
"2024-05-01 09:30") is read as UTC with the warning `timestamp_without_offset`, so a handler
comparing two timestamps never meets a naive one beside an aware one. A catalog default without
an offset is corrected the same way by the build, with a build warning."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

from codegen.build import build
from generated.calendar_tools import _explain
from tests.conftest import build_package

CATALOG = """\
name: stamps
tools:
  - name: remind
    description: Set a reminder.
    parameters:
      type: object
      properties:
        at: {type: string, format: date-time, description: When.}
        since:
          type: string
          format: date-time
          description: From when.
          default: "2024-01-01 08:00"
      required: [at]
"""


@pytest.fixture(scope="module")
def stamps(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, list[str]]:
    """The built package, and the build's warnings."""
    tmp_path = tmp_path_factory.mktemp("stamps")
    source = tmp_path / "stamps.yaml"
    source.write_text(CATALOG, encoding="utf-8")
    warnings = [str(w) for w in build([source]).warnings]
    return build_package(source, tmp_path / "out"), warnings


def test_timestamps_with_and_without_an_offset_compare_as_aware_ones(
    stamps: tuple[ModuleType, list[str]],
) -> None:
    pkg, _ = stamps
    naive = pkg.parse("remind", {"at": "2024-05-01 09:30"})
    aware = pkg.parse("remind", {"at": "2024-05-01T09:30:00Z"})
    day = pkg.parse("remind", {"at": "2024-05-01"})
    assert naive.warnings == ("timestamp_without_offset:at",)
    assert day.warnings == ("timestamp_without_offset:at",)
    assert aware.warnings == ()
    assert naive.arguments.at == aware.arguments.at == datetime(2024, 5, 1, 9, 30, tzinfo=UTC)
    assert day.arguments.at < aware.arguments.at  # a naive one here would raise TypeError


def test_a_default_without_an_offset_is_read_as_utc_by_the_build_with_a_warning(
    stamps: tuple[ModuleType, list[str]],
) -> None:
    pkg, warnings = stamps
    assert [w.split(": ", 1)[1] for w in warnings if "CG105" in w] == [
        (
            "warning CG105: tools[0].parameters.properties.since.default: default '2024-01-01 08:00' is"
            " of format date-time only as the parser corrects it: read as '2024-01-01T08:00:00+00:00'"
            " (timestamp_without_offset)"
        )
    ]
    # The call did not cause the correction: it gets the corrected default and no warning.
    request = pkg.parse("remind", {"at": "2024-05-01T09:30:00+02:00"})
    assert request.warnings == ()
    assert request.arguments.since == datetime(2024, 1, 1, 8, 0, tzinfo=UTC)
    assert pkg.TOOLS["remind"].schema["properties"]["since"]["default"] == (
        "2024-01-01T08:00:00+00:00"
    )


def test_the_model_is_told_a_timestamp_was_read_as_utc() -> None:
    assert _explain.explain_warnings(["timestamp_without_offset:at"]) == (
        "`at` had no UTC offset and was read as UTC"
    )


def test_the_parsing_page_lists_the_code() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "parsing.md").read_text(
        encoding="utf-8"
    )
    assert "`timestamp_without_offset`" in page

"""One scanner of pythonic text (`_reply._spans`, issue 33's leftovers): it cuts a reply into its
lines and each line into its calls, strings, brackets and comments aside, for both uses. The
property: wherever Python itself reads the text as calls (one per line, a list over lines, a tuple
on a line), `parse_reply` gives exactly the values Python's own parser gives, with no problem."""

from __future__ import annotations

import ast
from types import ModuleType

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_inbound_values import pkg  # noqa: F401 - the fixture: a tool `f(s: str)`

# Text that makes the scanner work: separators, brackets, quotes, comment marks, backslashes.
VALUES = st.text(alphabet=",\n()[]{}'\"#\\ ab", max_size=12)
LAYOUTS = {
    "one per line": lambda calls: "\n".join(calls),
    "a list": lambda calls: "[" + ", ".join(calls) + "]",
    "a list over lines, commented": lambda calls: (
        "[\n"
        + "".join(f"    {call},  # call {i}, (a comment [\n" for i, call in enumerate(calls))
        + "]"
    ),
    "a tuple on a line": lambda calls: ", ".join(calls),
    "lines joined by a backslash": lambda calls: ", \\\n".join(calls),
    "a list per line": lambda calls: "\n".join(f"[{call}]" for call in calls),
}


def python_values(text: str) -> list[str]:
    """The `s` of each call, as Python reads the text."""
    values = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call):
            values.append(ast.literal_eval(node.keywords[0].value))
    return values


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=st.lists(VALUES, min_size=1, max_size=4), layout=st.sampled_from(sorted(LAYOUTS)))
def test_pythonic_text_is_cut_where_python_cuts_it(
    pkg: ModuleType,  # noqa: F811 - the fixture imported above
    values: list[str],
    layout: str,
) -> None:
    """Issue 33 (the two scanners of `_reply` made one): the lines and the calls of a line are
    cut by the same scanner, and both cuts agree with Python's parser."""
    text = LAYOUTS[layout]([f"f(s={value!r})" for value in values])
    expected = python_values(text)
    assert expected == values  # the text is Python's calls, in order
    batch = pkg.parse_reply(text)
    assert batch.problems == ()
    assert [call.values for call in batch] == [{"s": value} for value in values]
    assert all("pythonic_call" in call.warnings for call in batch)

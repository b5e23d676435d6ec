"""A new string format, `even-digits`, as a contributor adds one (issue 34's done-when): its check
and its coercion, written beside `to_uri` in `codegen/runtime/_runtime.py` with a row in each of
its two tables, and its row in `codegen/vocabulary.FORMATS`. Nothing else.

`tests/test_new_format.py` writes exactly this into a copy of codegen and builds with the copy.
The functions are real code here, linted and type-checked like the runtime they join.
"""

from __future__ import annotations

import inspect

from codegen.runtime._runtime import INVALID, Invalid, to_str


def is_even_digits(text: str) -> bool:
    """ASCII digits, an even number of them."""
    return text.isascii() and text.isdigit() and len(text) % 2 == 0


def to_even_digits(v: object, path: str, warnings: list[str], errors: list[str]) -> str | Invalid:
    """Digits grouped by spaces or dashes are read joined (`digits_joined`); any other text that
    is not an even number of digits is refused (`not_even_digits`)."""
    text = to_str(v, path, warnings, errors)
    if text is INVALID:
        return text
    joined = text.replace(" ", "").replace("-", "")
    if not is_even_digits(joined):
        errors.append(f"not_even_digits:{path}")
        return INVALID
    if joined != text:
        warnings.append(f"digits_joined:{path}")
    return joined


# What the contributor writes into the runtime: the two functions, and a row in each table.
RUNTIME_ADDITION = "\n\n".join(
    [
        inspect.getsource(is_even_digits),
        inspect.getsource(to_even_digits),
        'FORMATS["even-digits"] = to_even_digits\nTEXT_FORMATS["even-digits"] = is_even_digits\n',
    ]
)
# And into the registry: what the payloads and the docs say of it (no strict mode keeps it).
REGISTRY_ADDITION = (
    'FORMATS["even-digits"] = Format("even-digits", example="1234", codes=("digits_joined",))\n'
)

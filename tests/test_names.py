from __future__ import annotations

import pytest

from codegen.catalog.names import pascal, snake


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

"""Logging set-up: HTTP client request lines stay out of the server's log."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from frontdesk.observability.logging import configure_logging

pytestmark = pytest.mark.unit


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    names = ("httpx", "httpcore", "httpx2", "httpcore2", "openai", "frontdesk")
    levels = {name: logging.getLogger(name).level for name in names}
    yield
    root.handlers[:], root.level = handlers, level
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)


@pytest.mark.usefixtures("restore_logging")
def test_http_clients_log_warnings_only() -> None:
    configure_logging("INFO")
    for name in ("httpx", "httpcore", "httpx2", "httpcore2", "openai"):
        assert not logging.getLogger(name).isEnabledFor(logging.INFO), name
        assert logging.getLogger(name).isEnabledFor(logging.WARNING), name
    assert logging.getLogger("frontdesk").isEnabledFor(logging.INFO)
    configure_logging("DEBUG")
    assert not logging.getLogger("httpx2").isEnabledFor(logging.INFO)

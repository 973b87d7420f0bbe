"""Times in the console: on the site's wall clock, labelled with its zone, in the
operator's date format (the browser's language). A chat at 23:52 in Leipzig used to read
"2026-12-01 22:52", UTC with no label."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from starlette.requests import Request

from frontdesk.console.templating import format_when, operator_locale

pytestmark = pytest.mark.unit

AT = datetime(2026, 12, 1, 22, 52, tzinfo=UTC)


def request(accept_language: str | None) -> Request:
    headers = [] if accept_language is None else [(b"accept-language", accept_language.encode())]
    return Request({"type": "http", "headers": headers})


@pytest.mark.parametrize(
    ("header", "locale"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("fr-CH, fr;q=0.9", "fr"),
        ("ja-JP,ja;q=0.9", "en"),  # not a console language
        (None, "en"),
        ("", "en"),
    ],
)
def test_the_operators_language_comes_from_the_browser(header: str | None, locale: str) -> None:
    assert operator_locale(request(header)) == locale


def test_a_time_on_the_sites_wall_clock_with_its_zone() -> None:
    assert format_when(AT, "Europe/Berlin", "de") == "01.12.2026, 23:52 CET"
    assert format_when(AT, "Europe/Berlin", "en").endswith("11:52\u202fPM CET")
    summer = datetime(2026, 7, 1, 10, 0)  # stored without zone: UTC
    assert format_when(summer, "Europe/Berlin", "de") == "01.07.2026, 12:00 CEST"
    assert format_when(None, "Europe/Berlin", "de") == ""

"""The origins a server is served on (what `self` allows), and how often a refused
origin is reported."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from frontdesk.settings import Settings
from frontdesk.sites.origins import (
    RefusalThrottle,
    allowed_origins,
    is_loopback_origin,
    is_web_origin,
)
from frontdesk.sites.schema import WidgetConfig

KEY = "pk_test_origins_000001"


@pytest.mark.parametrize(
    ("host", "port", "expected"),
    [
        ("127.0.0.1", 8391, ("http://127.0.0.1:8391", "http://localhost:8391")),
        ("localhost", 8391, ("http://127.0.0.1:8391", "http://localhost:8391")),
        ("0.0.0.0", 9000, ("http://127.0.0.1:9000", "http://localhost:9000")),
        ("::", 9000, ("http://[::1]:9000", "http://localhost:9000")),
        ("::1", 9000, ("http://[::1]:9000", "http://localhost:9000")),
        ("10.0.0.5", 8000, ("http://10.0.0.5:8000",)),
        ("Chat.Internal", 80, ("http://chat.internal",)),
    ],
)
def test_served_origins_follow_the_listening_address(
    host: str, port: int, expected: tuple[str, ...]
) -> None:
    assert Settings(host=host, port=port).served_origins == expected


@pytest.mark.parametrize(
    ("public_url", "expected"),
    [
        ("https://Chat.Example.com/", "https://chat.example.com"),
        ("https://chat.example.com:443/frontdesk", "https://chat.example.com"),
        ("http://chat.example.com:8080", "http://chat.example.com:8080"),
    ],
)
def test_a_public_url_is_the_only_served_origin(public_url: str, expected: str) -> None:
    settings = Settings(host="0.0.0.0", port=8391, public_url=public_url)
    assert settings.served_origins == (expected,)


def test_self_in_allowed_origins_stands_for_the_served_origins() -> None:
    widget = WidgetConfig(public_key=KEY, allowed_origins=["https://a.test", "self"])
    served = ("http://127.0.0.1:8391", "http://localhost:8391")
    assert allowed_origins(widget, served) == ["https://a.test", *served]


def test_a_misspelt_self_is_refused_with_what_to_write() -> None:
    with pytest.raises(ValidationError, match="'self'"):
        WidgetConfig(public_key=KEY, allowed_origins=["selff"])


@pytest.mark.parametrize(
    ("origin", "loopback"),
    [
        ("http://localhost:5173", True),
        ("http://127.0.0.1:8000", True),
        ("http://127.9.9.9", True),
        ("http://[::1]:3000", True),
        ("http://app.localhost:3000", True),
        ("https://example.com", False),
        ("http://localhost.example.com", False),
        ("http://10.0.0.1", False),
        ("null", False),
    ],
)
def test_loopback_origins(origin: str, loopback: bool) -> None:
    assert is_loopback_origin(origin) is loopback


@pytest.mark.parametrize(
    ("origin", "valid"),
    [
        ("https://shop.example.com", True),
        ("http://localhost:5173", True),
        ("null", False),
        ("https://shop.example.com/path", False),
        ("https://user@shop.example.com", False),
        ("https://shop.example.com:port", False),
        ("javascript:alert(1)", False),
        ("https://shop example.com", False),
    ],
)
def test_only_real_origins_are_reported(origin: str, valid: bool) -> None:
    assert is_web_origin(origin) is valid


def test_each_refused_origin_is_reported_once_per_window() -> None:
    throttle = RefusalThrottle(interval_s=600, per_site=20)
    assert throttle.should_report("acme", "https://a.test", now=0)
    assert not throttle.should_report("acme", "https://a.test", now=10)
    assert throttle.should_report("acme", "https://b.test", now=10)
    assert throttle.should_report("demo", "https://a.test", now=10)  # another site
    assert throttle.should_report("acme", "https://a.test", now=600)  # a new window


def test_a_flood_of_made_up_origins_is_capped_per_site() -> None:
    throttle = RefusalThrottle(interval_s=600, per_site=3)
    reported = [throttle.should_report("acme", f"https://{n}.test", now=1) for n in range(10)]
    assert reported.count(True) == 3
    assert throttle.should_report("demo", "https://0.test", now=1)  # other sites unaffected

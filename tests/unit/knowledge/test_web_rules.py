"""The crawler's pure rules: URL spelling, same site, private addresses, Retry-After,
content types and charsets, schedules, and web sources in the site file."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from frontdesk.knowledge.models import Document
from frontdesk.knowledge.web.extract import UnsupportedContent, content_kind, decode_body
from frontdesk.knowledge.web.fetch import retry_after_s
from frontdesk.knowledge.web.schedule import is_due
from frontdesk.knowledge.web.urls import (
    UnsafeAddress,
    allowed_by_patterns,
    check_address,
    is_public_address,
    normalise_url,
    same_site,
)
from frontdesk.sites.knowledge import KnowledgeConfig, WebSource

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTP://Example.COM:80/a/../b/?utm_source=x&b=2&a=1#top", "http://example.com/b/?a=1&b=2"),
        ("https://example.com", "https://example.com/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("mailto:someone@example.com", None),
        ("javascript:alert(1)", None),
        ("https://example.com:99999/", None),
    ],
)
def test_normalise_url(raw: str, expected: str | None) -> None:
    assert normalise_url(raw) == expected


def test_relative_links_resolve_against_the_page() -> None:
    assert normalise_url("../c.html", "https://x.io/a/b/page.html") == "https://x.io/a/c.html"


def test_same_site_and_patterns() -> None:
    assert same_site("https://www.x.io/a", "https://x.io/")
    assert not same_site("https://x.io.evil.com/", "https://x.io/")
    assert not same_site("http://127.0.0.1:81/", "http://127.0.0.1:80/")
    assert allowed_by_patterns("https://x.io/docs/a", [r"/docs/"], [])
    assert not allowed_by_patterns("https://x.io/blog/a", [r"/docs/"], [])
    assert not allowed_by_patterns("https://x.io/docs/a", [], [r"/docs/"])


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.216.34", True),
        ("10.1.2.3", False),
        ("127.0.0.1", False),
        ("169.254.169.254", False),  # cloud metadata
        ("192.168.0.1", False),
        ("::1", False),
        ("fe80::1", False),
        ("::ffff:127.0.0.1", False),
        ("2606:4700::1111", True),
    ],
)
def test_private_addresses(address: str, public: bool) -> None:
    assert is_public_address(address) is public


# Ranges of the IANA IPv4/IPv6 special-purpose address registries (not globally
# reachable), and IPv6 forms that carry such an IPv4 address inside them: a page author
# who links or redirects to one must not make the crawler read it.
SPECIAL_PURPOSE = [
    "0.0.0.1",  # "this network"
    "100.64.0.1",  # shared address space (carrier-grade NAT)
    "100.100.100.200",  # shared address space: a cloud metadata service
    "192.0.0.1",  # IETF protocol assignments
    "192.0.0.170",  # NAT64 discovery
    "192.0.2.1",  # documentation
    "198.18.0.1",  # benchmarking
    "198.51.100.1",  # documentation
    "203.0.113.1",  # documentation
    "224.0.0.1",  # multicast
    "240.0.0.1",  # reserved
    "255.255.255.255",  # limited broadcast
    "::",  # unspecified
    "::ffff:169.254.169.254",  # IPv4-mapped metadata
    "::ffff:100.100.100.200",  # IPv4-mapped shared address space
    "::a9fe:a9fe",  # IPv4-compatible metadata
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "64:ff9b::a64:c8",  # NAT64 of 10.100.0.200
    "64:ff9b:1::a9fe:a9fe",  # local-use NAT64
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo whose client is 127.0.0.1
    "2001:db8::1",  # documentation
    "2001:2::1",  # benchmarking
    "100::1",  # discard-only
    "fc00::1",  # unique local
    "fd00:ec2::254",  # unique local: a cloud metadata service
    "fec0::1",  # site-local (deprecated)
    "ff02::1",  # multicast
]


@pytest.mark.parametrize("address", SPECIAL_PURPOSE)
def test_special_purpose_addresses_are_refused(address: str) -> None:
    assert is_public_address(address) is False


@pytest.mark.parametrize(
    "address",
    ["8.8.8.8", "100.128.0.1", "64:ff9b::808:808", "2002:808:808::1", "2a00:1450:4001::200e"],
)
def test_public_addresses_stay_allowed(address: str) -> None:
    """Next to the special ranges, and NAT64/6to4 forms of a public IPv4 address."""
    assert is_public_address(address) is True


@pytest.mark.parametrize("host", ["100.100.100.200", "[::ffff:169.254.169.254]", "198.18.0.1"])
def test_check_address_refuses_special_purpose_literals(host: str) -> None:
    with pytest.raises(UnsafeAddress, match="not a public address"):
        asyncio.run(check_address(f"http://{host}/latest/meta-data/", allow_private_network=False))
    # An intranet or a test on loopback opts in per source.
    asyncio.run(check_address(f"http://{host}/", allow_private_network=True))


def test_retry_after() -> None:
    assert retry_after_s("3", 1.0) == 3.0
    assert retry_after_s(None, 1.5) == 1.5
    assert retry_after_s("soon", 2.0) == 2.0
    later = (datetime.now(UTC) + timedelta(seconds=60)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert 55 <= retry_after_s(later, 0.0) <= 61


def test_content_kinds() -> None:
    assert content_kind("text/html; charset=utf-8", "https://x.io/") == "html"
    assert content_kind("application/pdf", "https://x.io/a") == "pdf"
    assert content_kind("text/plain", "https://x.io/notes.md") == "markdown"
    assert content_kind("text/plain", "https://x.io/notes.txt") == "text"
    with pytest.raises(UnsupportedContent):
        content_kind("image/png", "https://x.io/logo.png")


def test_charsets() -> None:
    text = "Счета выставляются ежемесячно"
    assert decode_body(text.encode("cp1251"), "text/html; charset=windows-1251", html=True) == text
    meta = f"<meta charset='windows-1251'><p>{text}</p>".encode("cp1251")
    assert text in decode_body(meta, "text/html", html=True)
    latin = "Café déjà vu".encode("latin-1")
    assert decode_body(latin, "text/plain; charset=iso-8859-1", html=False) == "Café déjà vu"


def test_schedules() -> None:
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    assert not is_due(None, None, now)
    assert is_due("6h", None, now)
    assert not is_due("6h", now - timedelta(hours=5), now)
    assert is_due("6h", now - timedelta(hours=6), now)
    assert is_due("0 3 * * *", datetime(2026, 3, 1, 2, 0, tzinfo=UTC), now)
    assert not is_due("0 3 * * *", datetime(2026, 3, 1, 3, 30, tzinfo=UTC), now)


def test_web_sources_in_the_site_file() -> None:
    config = KnowledgeConfig.model_validate(
        {
            "sources": [
                "../kb",
                {
                    "url": "https://help.example.com/",
                    "exclude": ["/careers/"],
                    "schedule": "0 3 * * 1",
                    "politeness": {"concurrency": 2, "crawl_delay_s": 1},
                    "auth_header_env": "HELP_CENTRE_AUTH",
                },
            ]
        }
    )
    assert config.file_sources == ["../kb"]
    (web,) = config.web_sources
    assert web.start_url == "https://help.example.com/"
    assert web.allow_private_network is False and web.max_pages == 1000


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("schedule", "every tuesday", "neither an interval"),
        ("include", ["("], "not a valid regex"),
        ("auth_header_env", "Bearer abc123", "should match pattern"),
        ("url", "ftp://example.com/", "URL scheme should be"),
        ("max_pages", 0, "greater than or equal to 1"),
    ],
)
def test_bad_web_sources_are_refused(field: str, value: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        WebSource.model_validate({"url": "https://x.io/", field: value})


def test_citation_links_point_at_the_heading() -> None:
    page = Document(
        "u", "Plans", "text", "html", "u", "https://x.io/plans",
        anchors=(("Limits", "limits"), ("Setup  guide", "setup")),
    )  # fmt: skip
    assert page.link_for(("Plans", "Setup guide")) == "https://x.io/plans#setup"
    assert page.link_for(("Plans", "Limits", "Daily")) == "https://x.io/plans#limits"
    assert page.link_for(("Plans",)) == "https://x.io/plans"
    assert Document("u", "t", "x", "html", "u", "https://x.io/").link_for(("t",)) == "https://x.io/"


def test_a_bad_web_source_error_names_only_the_web_source() -> None:
    with pytest.raises(ValidationError) as caught:
        KnowledgeConfig.model_validate(
            {"sources": ["../kb", {"url": "https://x.io/", "max_depth": -1}]}
        )
    (error,) = caught.value.errors()
    assert error["loc"] == ("sources", 1, "web", "max_depth")

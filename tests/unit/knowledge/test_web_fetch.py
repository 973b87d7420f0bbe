"""Fetching rules that a loopback server cannot show, because every loopback address is
private: a same-site redirect to a host that resolves to a private network is refused
after the hop, and the auth header comes from the environment. DNS and the network are
replaced by test doubles here (httpx.MockTransport and a patched resolver)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import pytest

from frontdesk.knowledge.web.crawl import CrawlAborted, Crawler
from frontdesk.knowledge.web.fetch import Fetcher, HostGate
from frontdesk.sites.knowledge import WebSource

pytestmark = pytest.mark.unit

ADDRESSES = {"www.example.test": "93.184.216.34", "example.test": "10.0.0.5"}


@pytest.fixture(autouse=True)
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    async def getaddrinfo(self: Any, host: str, *_: Any, **__: Any) -> list[Any]:
        if host not in ADDRESSES:
            raise socket.gaierror(f"unknown host {host}")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ADDRESSES[host], 0))]

    monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", getaddrinfo)


def test_a_redirect_to_a_private_address_is_refused() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.host == "www.example.test":
            return httpx.Response(302, headers={"Location": "http://example.test/admin"})
        return httpx.Response(200, text="internal")

    async def fetch() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
            fetcher = Fetcher(
                client, "http://www.example.test/", gate=HostGate(2, 0.0),
                max_bytes=10_000, allow_private_network=False,
            )  # fmt: skip
            return await fetcher.fetch("http://www.example.test/page")

    result = asyncio.run(fetch())
    assert "resolves to 10.0.0.5, which is not a public address" in result.error
    assert result.final_url == "http://example.test/admin"
    assert seen == ["http://www.example.test/page"], "the private address is never asked"


def test_the_auth_header_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    headers: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        headers.append(request.headers.get("authorization"))
        return httpx.Response(404)

    source = WebSource.model_validate(
        {"url": "http://www.example.test/", "auth_header_env": "HELP_CENTRE_AUTH"}
    )
    crawl = Crawler(source, {}, transport=httpx.MockTransport(answer))
    with pytest.raises(CrawlAborted, match="HELP_CENTRE_AUTH"):
        asyncio.run(crawl.run())
    monkeypatch.setenv("HELP_CENTRE_AUTH", "Bearer s3cret")
    result = asyncio.run(Crawler(source, {}, transport=httpx.MockTransport(answer)).run())
    assert headers and set(headers) == {"Bearer s3cret"}
    assert result.pages["http://www.example.test/"].status == "gone"

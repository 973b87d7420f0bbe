"""X-Forwarded-For counts only from proxies the operator lists in
FRONTDESK_TRUSTED_PROXIES; by default from no one, loopback included.

The test takes the proxy options `frontdesk serve` really passes to uvicorn (uvicorn.run
is intercepted), runs a real uvicorn server with them on loopback in front of the API
(scripted chat backend), and sends real HTTP requests. The client IP is observed where
it matters: the salted IP hash the turn receives (rate limits, enrichment).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from api_support import Api, MakeApi, demo_headers

from frontdesk.api.security import hash_ip
from frontdesk.cli.main import serve
from frontdesk.settings import get_settings
from tests.support.ports import free_port

pytestmark = pytest.mark.integration

FORGED = "203.0.113.9"


def serve_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> dict[str, Any]:
    """What `frontdesk serve` hands uvicorn.run, minus where it binds."""
    monkeypatch.setenv("FRONTDESK_DATA_DIR", str(tmp_path / "serve-data"))
    monkeypatch.delenv("FRONTDESK_TRUSTED_PROXIES", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    captured: dict[str, Any] = {}
    monkeypatch.setattr("frontdesk.api.app.create_app", lambda settings: "app")
    monkeypatch.setattr("frontdesk.observability.logging.configure_logging", lambda *a: None)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: captured.update(kwargs))
    try:
        serve(host=None, port=None, sites_dir=None, workers=None)
    finally:
        get_settings.cache_clear()
    return {k: v for k, v in captured.items() if k not in ("host", "port", "log_config")}


def client_hashes(api: Api, options: dict[str, Any], forwarded: list[str]) -> list[str]:
    """The IP hash each turn saw, one request per X-Forwarded-For value, through a real
    uvicorn server configured with `options`."""
    port = free_port()
    config = uvicorn.Config(api.app, host="127.0.0.1", port=port, log_level="warning", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            for value in forwarded:
                response = client.post(
                    "/v1/ask",
                    json={"message": "What is Tessellate Flow?"},
                    headers=demo_headers(**{"X-Forwarded-For": value}),
                )
                assert response.status_code == 200, response.text
    finally:
        server.should_exit = True
        thread.join(timeout=15)
    return [visitor.ip_hash for *_, visitor in api.backend.calls]


def test_forwarded_for_from_an_untrusted_peer_is_ignored(
    make_api: MakeApi, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Must survive: every turn answered, each attributed to its real TCP peer. Must not: a
    # client choosing its own IP (a fresh rate-limit bucket per request, another
    # visitor's enrichment) by sending X-Forwarded-For — not even from loopback, which
    # uvicorn trusts by default (FORWARDED_ALLOW_IPS is set here and still ignored).
    options = serve_options(monkeypatch, tmp_path, FORWARDED_ALLOW_IPS="127.0.0.1")
    api = make_api()
    salt = api.app.state.ip_salt
    hashes = client_hashes(api, options, [FORGED, "198.51.100.7"])
    assert hashes == [hash_ip("127.0.0.1", salt)] * 2
    assert options == {"proxy_headers": False}


def test_a_listed_proxy_names_the_client_and_cannot_be_spoofed_through(
    make_api: MakeApi, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Must survive: behind a listed proxy, each visitor is its own client (not all one
    # IP). Must not: a client-supplied left-most address winning over the one the proxy
    # appended.
    options = serve_options(monkeypatch, tmp_path, FRONTDESK_TRUSTED_PROXIES="127.0.0.1/32")
    assert options == {"proxy_headers": True, "forwarded_allow_ips": ["127.0.0.1/32"]}
    api = make_api()
    salt = api.app.state.ip_salt
    hashes = client_hashes(api, options, [FORGED, f"6.6.6.6, {FORGED}", "198.51.100.7"])
    assert hashes == [
        hash_ip(FORGED, salt),
        hash_ip(FORGED, salt),  # the proxy appended FORGED; "6.6.6.6" was the client's
        hash_ip("198.51.100.7", salt),
    ]


def test_a_malformed_proxy_list_stops_serve_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import typer

    with pytest.raises(typer.Exit):
        serve_options(monkeypatch, tmp_path, FRONTDESK_TRUSTED_PROXIES="10.0.0.0/8, proxy.lan")
    assert "'proxy.lan' is not an IP address" in capsys.readouterr().err

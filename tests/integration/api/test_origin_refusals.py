"""A widget refused for its page's origin: the demo site allows the server's own origin
(whatever its port, never the Host header), and a refusal tells the site's owner why
(one log line and one stored record per origin per interval, a hint on loopback only)."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from api_support import ACME_KEY, DEMO_KEY, MakeApi

from frontdesk.store.refusals import recent_refusals

pytestmark = pytest.mark.integration

SHOP = "https://shop.acme.example"  # acme's own new page, not yet in its site file


def _config(api_client: object, key: str, origin: str, **headers: str) -> object:
    return api_client.get(  # type: ignore[attr-defined]
        "/v1/widget/config", params={"key": key}, headers={"Origin": origin, **headers}
    )


def test_the_demo_site_allows_the_port_the_server_listens_on(make_api: MakeApi) -> None:
    api = make_api(settings_options={"port": 8391})
    for origin in ("http://127.0.0.1:8391", "http://localhost:8391"):
        assert _config(api.client, DEMO_KEY, origin).status_code == 200
        preflight = api.client.options(
            "/v1/chat",
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
        )
        assert preflight.status_code == 204
    assert _config(api.client, DEMO_KEY, "http://127.0.0.1:8000").status_code == 403


def test_a_public_url_replaces_the_listening_address(make_api: MakeApi) -> None:
    api = make_api(settings_options={"port": 8391, "public_url": "https://chat.example.com/"})
    assert _config(api.client, DEMO_KEY, "https://chat.example.com").status_code == 200
    assert _config(api.client, DEMO_KEY, "http://127.0.0.1:8391").status_code == 403


def test_a_forged_host_header_does_not_make_its_origin_allowed(make_api: MakeApi) -> None:
    api = make_api(settings_options={"port": 8391})
    forged = _config(api.client, DEMO_KEY, "http://chat.attacker.test", Host="chat.attacker.test")
    assert forged.status_code == 403
    assert "hint" not in forged.json()["error"]


def test_a_refusal_is_logged_and_recorded_once_however_many_requests(
    make_api: MakeApi, caplog: pytest.LogCaptureFixture
) -> None:
    api = make_api()
    caplog.set_level(logging.WARNING, logger="frontdesk.api.security")

    def visit(n: int) -> int:
        if n % 2:
            return int(_config(api.client, ACME_KEY, SHOP).status_code)
        response = api.client.post(
            "/v1/chat",
            json={"message": "hello"},
            headers={"Origin": SHOP, "X-Frontdesk-Key": ACME_KEY},
        )
        return int(response.status_code)

    with ThreadPoolExecutor(max_workers=8) as pool:  # visitors of that page, at once
        assert set(pool.map(visit, range(16))) == {403}

    lines = [r.getMessage() for r in caplog.records if "refused on origin" in r.getMessage()]
    assert len(lines) == 1, lines
    assert "acme" in lines[0] and SHOP in lines[0]
    assert "https://acme.example" in lines[0]  # what the site allows today
    assert "acme.yaml" in lines[0]  # which file to edit
    since = datetime.now(UTC) - timedelta(hours=1)
    with api.runtime.sessions() as session:
        refusals = recent_refusals(session, "acme", since)
        assert [(r.origin, r.reports) for r in refusals] == [(SHOP, 1)]
        assert recent_refusals(session, "demo", since) == []  # another tenant's record


def test_only_a_page_on_loopback_gets_a_hint_in_the_response(make_api: MakeApi) -> None:
    api = make_api()
    local = _config(api.client, ACME_KEY, "http://localhost:5173")
    assert local.status_code == 403
    hint = local.json()["error"]["hint"]
    assert "http://localhost:5173" in hint and "allowed_origins" in hint
    assert "https://acme.example" in hint

    public = _config(api.client, ACME_KEY, SHOP)
    assert public.status_code == 403
    assert "hint" not in public.json()["error"]  # a public page learns nothing of the config
    assert "acme.example" not in public.json()["error"]["message"].replace(SHOP, "")


def test_made_up_origins_are_not_recorded(make_api: MakeApi) -> None:
    api = make_api()
    for origin in ("null", "https://a.test/<script>", "javascript:alert(1)"):
        assert _config(api.client, ACME_KEY, origin).status_code == 403
    with api.runtime.sessions() as session:
        assert recent_refusals(session, "acme", datetime.now(UTC) - timedelta(hours=1)) == []

"""`/metrics`, `/widget.js`, the demo page and the OpenAPI document."""

from __future__ import annotations

import re
import uuid

import pytest
from api_support import DEMO_KEY, Api, MakeApi, demo_headers
from scripted_backend import Reply, ScriptedBackend

from frontdesk.conversation.payload import HandoffInfo

pytestmark = pytest.mark.integration


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample in a Prometheus text exposition (0 when absent)."""
    for line in text.splitlines():
        if not line.startswith(name):
            continue
        match = re.match(r"^([a-zA-Z_:]+)(\{.*\})? (\S+)$", line)
        if not match or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(match.group(3))
    return 0.0


def test_metrics_count_requests_turns_routes_blocks_and_handoffs(make_api: MakeApi) -> None:
    backend = ScriptedBackend(
        [
            Reply(),
            Reply(
                route="HANDOFF",
                routing="high_stakes",
                handoff=HandoffInfo(reason="explicit_request"),
            ),
            Reply(route="BLOCKED", routing="irrelevant"),
        ]
    )
    api = make_api(
        backend,
        rate_limits={"per_session_per_minute": 20, "per_ip_per_minute": 4, "per_site_per_day": 99},
        settings_options={"metrics_open": True},
    )
    for _ in range(3):
        assert (
            api.client.post("/v1/chat", json={"message": "hi"}, headers=demo_headers()).status_code
            == 200
        )
    assert (
        api.client.post("/v1/ask", json={"message": "hi"}, headers=demo_headers()).status_code
        == 200
    )
    assert (
        api.client.post("/v1/ask", json={"message": "hi"}, headers=demo_headers()).status_code
        == 429
    )

    response = api.client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert metric(text, "frontdesk_http_requests_total", route="/v1/chat", status="200") == 3
    assert metric(text, "frontdesk_http_requests_total", route="/v1/ask", status="429") == 1
    assert metric(text, "frontdesk_turn_latency_seconds_count", site="demo", mode="stream") == 3
    assert metric(text, "frontdesk_turn_latency_seconds_count", site="demo", mode="ask") == 1
    assert metric(text, "frontdesk_turn_first_token_seconds_count", site="demo") == 3
    assert metric(text, "frontdesk_turn_routes_total", route="ANSWER", routing="answered") == 2
    assert metric(text, "frontdesk_turn_routes_total", route="HANDOFF") == 1
    assert metric(text, "frontdesk_handoffs_total", reason="explicit_request") == 1
    assert metric(text, "frontdesk_blocks_total", reason="abuse") == 1
    assert metric(text, "frontdesk_blocks_total", reason="rate_limited") == 1


def test_metrics_use_route_templates_not_raw_paths(make_api: MakeApi) -> None:
    api = make_api(settings_options={"metrics_open": True})
    session = uuid.uuid4()
    api.client.get(f"/v1/sessions/{session}", headers=demo_headers())
    text = api.client.get("/metrics").text
    assert str(session) not in text
    assert metric(text, "frontdesk_http_requests_total", route="/v1/sessions/{session_id}") == 1


def test_widget_script_is_served(api: Api) -> None:
    response = api.client.get("/widget.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert "customElements.define(TAG, FrontdeskChat)" in response.text
    assert 'const TAG = "frontdesk-chat"' in response.text
    for language in ("en", "ru", "fr", "de", "es", "it", "pt", "nl"):
        assert f'"{language}":{{"launcher":' in response.text, language


def test_demo_page_embeds_the_widget_with_the_demo_key(api: Api) -> None:
    page = api.client.get("/")
    assert page.status_code == 200
    assert "Tessellate" in page.text
    assert '<script src="/widget.js" defer></script>' in page.text
    assert f'site-key="{DEMO_KEY}"' in page.text
    assert 'api-url="/"' in page.text  # from configuration, not the Host header
    fallback = api.runtime.sites["demo"].config.widget.fallback_url
    assert f'fallback-url="{fallback}"' in page.text


def test_openapi_documents_every_route(api: Api) -> None:
    schema = api.client.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert {
        "/v1/chat",
        "/v1/ask",
        "/v1/sessions/{session_id}",
        "/v1/sessions/{session_id}/export",
        "/v1/admin/sites/{site}/documents",
        "/v1/admin/sites/{site}/leads",
        "/v1/admin/sites/{site}/handoffs",
        "/v1/admin/sites/{site}/traces/{session}",
        "/v1/admin/sites/{site}/stats",
        "/healthz",
        "/readyz",
        "/metrics",
    } <= paths
    chat = schema["paths"]["/v1/chat"]["post"]
    assert "text/event-stream" in chat["responses"]["200"]["content"]
    assert {"401", "403", "413", "422", "429"} <= set(chat["responses"])

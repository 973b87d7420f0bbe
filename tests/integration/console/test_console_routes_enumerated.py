"""Access rules checked over EVERY console and admin route of the app, read from the app's
router, so a route added later is covered without editing this file.

For each route under `/console/sites/{site}` or `/v1/admin/sites/{site}`, every method:
- without a session or token: no page and no JSON (sign-in redirect, 401 or 403);
- an agent of acme asking for demo's URL (with demo's real ids): 404, nothing of demo in
  the body, and demo's lead and delivery unchanged;
- an owner's POST without the session's CSRF token: 403, nothing changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from console_support import Console, page_csrf, seed_conversation, sign_in
from fastapi.routing import APIRoute
from test_console_access import seeded

from frontdesk.store.models import Lead, OutboxItem

pytestmark = pytest.mark.integration

SITE_PREFIXES = ("/console/sites/{site}", "/v1/admin/sites/{site}")
PUBLIC_OR_SELF = {"/console", "/console/login", "/console/logout"}
DEMO_ONLY = "A question only demo's visitor asked about invoices"


def all_routes(routes: Iterable[Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(method, path) of every API route, through included routers (FastAPI wraps them)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from all_routes(inner.routes, prefix + route.include_context.prefix)
        elif isinstance(route, APIRoute):
            for method in sorted(route.methods - {"HEAD", "OPTIONS"}):
                yield method, prefix + route.path


def site_routes(console_app: Console) -> list[tuple[str, str]]:
    found = sorted(
        {
            (m, p)
            for m, p in all_routes(console_app.app.router.routes)
            if p.startswith(SITE_PREFIXES)
        }
    )
    # The walk must see the routers: a broken walk would make every check below vacuous.
    paths = {p for _m, p in found}
    assert "/console/sites/{site}/inbox" in paths and "/v1/admin/sites/{site}/leads" in paths
    assert len(found) >= 30, found
    return found


def console_only_routes(console_app: Console) -> list[tuple[str, str]]:
    """Console routes outside a site (sign-in, invitations): for the no-session check."""
    return sorted(
        (m, p)
        for m, p in all_routes(console_app.app.router.routes)
        if p.startswith("/console") and not p.startswith(SITE_PREFIXES)
    )


def fill(path: str, site: str, ids: dict[str, str]) -> str:
    """The URL of `path` on `site` with that site's real ids; a parameter this test has no
    value for gets a made-up one (the answer must still be 404 for another site)."""
    url = path.replace("{site}", site)
    while "{" in url:
        start, end = url.index("{"), url.index("}")
        url = url[:start] + ids.get(url[start + 1 : end], "no-such-id") + url[end + 1 :]
    return url


def demo_ids(data: dict[str, Any]) -> dict[str, str]:
    return {
        "session_id": data["session"],
        "session": data["session"],
        "handoff_id": data["handoff"],
        "outbox_id": str(data["outbox"]),
        "lead_id": data["lead"],
        "run_id": "1",
        "token_id": "1",
        "operator_id": "no-such-operator",
    }


def send(client: Any, method: str, url: str, csrf: str | None) -> Any:
    headers = {"X-CSRF-Token": csrf} if csrf else {}
    if method == "GET":
        return client.get(url, headers=headers, follow_redirects=False)
    if url.endswith(("/documents", "/knowledge/upload")):
        files = {"files": ("a.md", b"# Injected\n\ntext")}
        return client.request(method, url, files=files, headers=headers, follow_redirects=False)
    form = {"csrf_token": csrf} if csrf else {}
    form |= {"status": "won", "role": "owner", "label": "x", "text": "id: x", "doc_id": "x"}
    return client.request(method, url, data=form, headers=headers, follow_redirects=False)


def assert_untouched(console_app: Console, data: dict[str, Any]) -> None:
    with console_app.runtime.sessions() as session:
        lead = session.get(Lead, data["lead"])
        item = session.get(OutboxItem, data["outbox"])
        assert lead is not None and lead.status == "new"
        assert item is not None and item.status == "failed"


def test_every_site_route_refuses_a_visitor_without_a_session(
    console_app: Console, team: Any
) -> None:
    data = seeded(console_app)
    ids = demo_ids(data)
    client = console_app.client()
    for method, path in site_routes(console_app):
        url = fill(path, "demo", ids)
        response = send(client, method, url, None)
        if path.startswith("/console"):
            assert response.status_code in (303, 401, 403), (method, url, response.status_code)
            if response.status_code == 303:
                assert response.headers["location"].startswith("/console/login"), url
        else:
            assert response.status_code in (401, 403), (method, url, response.status_code)
        assert data["session"] not in response.text and "ada@example.test" not in response.text
    for method, path in console_only_routes(console_app):
        if path in PUBLIC_OR_SELF or path.startswith(("/console/invite", "/console/login")):
            continue  # sign-in and invitation forms are public by design
        response = send(client, method, fill(path, "demo", ids), None)
        assert response.status_code in (303, 401, 403, 404), (method, path)
    assert_untouched(console_app, data)


def test_an_agent_of_acme_gets_404_for_every_route_of_demo(console_app: Console, team: Any) -> None:
    data = seeded(console_app, "demo")
    seeded(console_app, "acme")
    seed_conversation(console_app.runtime, "demo", question=DEMO_ONLY, session_id=data["session"])
    client = console_app.client()
    assert sign_in(client, team["acme_agent"]).status_code == 303
    csrf = page_csrf(client, "/console/sites/acme/inbox")
    checked = 0
    for method, path in site_routes(console_app):
        url = fill(path, "demo", demo_ids(data))
        response = send(client, method, url, csrf)
        assert response.status_code == 404, (method, url, response.status_code)
        assert data["session"] not in response.text and "ada@example.test" not in response.text
        assert "Tessellate" not in response.text and DEMO_ONLY not in response.text
        checked += 1
    # And demo's ids through acme's URLs find nothing of demo either: 404, 403 (the
    # agent's role), or — the admin traces list, which echoes the asked-for session id —
    # an empty answer.
    for method, path in site_routes(console_app):
        if "{" not in path.replace("{site}", ""):
            continue
        url = fill(path, "acme", demo_ids(data))
        response = send(client, method, url, csrf)
        # 422: a JSON route (live chat) refuses the test's form body before reading anything.
        assert response.status_code in (200, 403, 404, 422), (method, url, response.status_code)
        assert DEMO_ONLY not in response.text, (method, url)
        if response.status_code == 200:
            assert path == "/v1/admin/sites/{site}/traces/{session}", (method, url, response.text)
            assert response.json()["traces"] == []
    assert checked >= 30
    assert_untouched(console_app, data)


def test_every_console_post_without_the_csrf_token_is_refused(
    console_app: Console, team: Any
) -> None:
    data = seeded(console_app)
    ids = demo_ids(data)
    client = console_app.client()
    sign_in(client, team["owner"])
    posts = [(m, p) for m, p in site_routes(console_app) if m != "GET"]
    assert len(posts) >= 10, posts
    for method, path in posts:
        url = fill(path, "demo", ids)
        response = send(client, method, url, None)
        assert response.status_code == 403, (method, url, response.status_code)
    # Sign-out without the token keeps the session; demo's rows are unchanged.
    assert client.post("/console/logout", follow_redirects=False).status_code == 403
    assert client.get("/console/sites/demo/inbox").status_code == 200
    assert_untouched(console_app, data)

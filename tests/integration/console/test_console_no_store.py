"""Every console response that can carry a conversation is `Cache-Control: no-store`.

A browser or a proxy that keeps a copy hands the transcript, the live JSON or an export
to the next person at that computer, or behind that proxy, after the operator signs out.
Before this, pages were no-store but the live JSON (`live/{session_id}`) and both exports
were cacheable. The routes are read from the app's router, so a route added later is
covered without editing this file; only the console's static files may be cached.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from console_support import Console, sign_in
from test_console_access import seeded
from test_console_routes_enumerated import all_routes, demo_ids, fill

from frontdesk.store.db import transaction
from frontdesk.store.widget import WidgetSessionRepository

pytestmark = pytest.mark.integration


def console_gets(console: Console) -> list[str]:
    """GET paths of the console; event streams are left out (a stream never ends here)."""
    return sorted(
        {
            path
            for method, path in all_routes(console.app.router.routes)
            if method == "GET" and path.startswith("/console") and not path.endswith("/events")
        }
    )


def test_every_console_response_with_conversation_data_is_no_store(
    console_app: Console, team: Any
) -> None:
    data = seeded(console_app)
    with transaction(console_app.runtime.sessions) as db:  # the visitor's widget session
        WidgetSessionRepository(db).issue("demo", data["session"], timedelta(hours=1))
    client = console_app.client()
    assert sign_in(client, team["owner"]).status_code == 303
    paths = console_gets(console_app)
    assert "/console/sites/{site}/live/{session_id}" in paths, paths
    answered: dict[str, int] = {}
    cacheable: list[tuple[str, int]] = []
    for path in paths:
        response = client.get(fill(path, "demo", demo_ids(data)), follow_redirects=False)
        answered[path] = response.status_code
        if response.headers.get("cache-control") != "no-store":
            cacheable.append((path, response.status_code))
    assert cacheable == []
    # The responses that carry the conversation itself were real answers, not errors.
    for path in (
        "/console/sites/{site}/live/{session_id}",
        "/console/sites/{site}/conversations/{session_id}/export.json",
        "/console/sites/{site}/conversations/{session_id}/export.md",
        "/console/sites/{site}/conversations/{session_id}",
        "/console/sites/{site}/leads",
    ):
        assert answered[path] == 200, (path, answered[path])
    live = client.get(f"/console/sites/demo/live/{data['session']}").json()
    assert live["session_id"] == data["session"] and "events" in live
    # Errors and redirects too: a signed-out request and another site's conversation.
    signed_out = console_app.client().get(
        f"/console/sites/demo/live/{data['session']}", follow_redirects=False
    )
    assert signed_out.headers["cache-control"] == "no-store"
    missing = client.get("/console/sites/demo/conversations/no-such-session/export.json")
    assert missing.status_code == 404 and missing.headers["cache-control"] == "no-store"
    # Static files are public code and keep their own caching.
    static = client.get("/console/static/console.css")
    assert static.status_code == 200 and static.headers.get("cache-control") != "no-store"

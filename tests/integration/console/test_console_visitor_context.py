"""The visitor's context in a transcript: the page they wrote from, the page that led them
to the site (referrer) and what enrichment knew, as three separate fields — on the page
and in both exports. The turn goes through the API's schema and the real `TurnWriter`."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from console_support import Console, sign_in

from frontdesk.conversation.payload import TurnResult
from frontdesk.conversation.persistence import TurnRecord, TurnWriter
from frontdesk.conversation.spool import Spool

pytestmark = pytest.mark.integration

PAGE = "https://www.example.test/pricing?plan=team"
REFERRER = "https://search.example.test/?q=shared+calendar"


def _record_turn(
    console_app: Console, session_id: str, referrer: str, profile: dict[str, str]
) -> None:
    runtime = console_app.runtime
    site = runtime.sites["demo"].config
    writer = TurnWriter(runtime.sessions, Spool(console_app.settings.data_dir / "test-spool"))
    opened = writer.open_turn(
        site, session_id, "What does the team plan cost?", uuid.uuid4().hex, PAGE, referrer
    )
    assert opened.turn == 1
    result = TurnResult(
        answer="The team plan is on the pricing page.",
        routing="answered",
        route="ANSWER",
        intent="LEARN",
        language="en",
        session_id=session_id,
        turn=1,
    )
    record = TurnRecord(
        site=site,
        session_id=session_id,
        message="What does the team plan cost?",
        result=result,
        values={"visitor_profile": profile},
    )
    writer.write(record, opened)


def test_page_referrer_and_enrichment_are_separate_fields(console_app: Console, team: Any) -> None:
    session_id = str(uuid.uuid4())
    _record_turn(
        console_app,
        session_id,
        REFERRER,
        {"company": "Northwind Traders", "sector": "Logistics", "size": "unknown"},
    )
    client = console_app.client()
    sign_in(client, team["owner"])
    html = client.get(f"/console/sites/demo/conversations/{session_id}").text
    page_field = html.split('class="field-page"', 1)[1].split("</dd>", 1)[0]
    referrer_field = html.split('class="field-referrer"', 1)[1].split("</dd>", 1)[0]
    enrichment_field = html.split('class="field-enrichment"', 1)[1].split("</dd>", 1)[0]
    assert "www.example.test/pricing" in page_field and "search.example" not in page_field
    assert "search.example.test/?q=shared+calendar" in referrer_field
    assert "www.example.test" not in referrer_field
    assert "Northwind Traders" in enrichment_field and "Logistics" in enrichment_field
    assert "unknown" not in enrichment_field  # unknown values are not shown as facts

    exported = json.loads(
        client.get(f"/console/sites/demo/conversations/{session_id}/export.json").text
    )
    assert exported["visitor"] == {
        "pages": [PAGE],
        "referrers": [REFERRER],
        "enrichment": {"company": "Northwind Traders", "sector": "Logistics"},
    }
    assert exported["turns"][0]["page"] == PAGE
    assert exported["turns"][0]["referrer"] == REFERRER
    markdown = client.get(f"/console/sites/demo/conversations/{session_id}/export.md").text
    assert f"- Page: <{PAGE}>" in markdown and f"- Referrer: <{REFERRER}>" in markdown
    assert "- Enrichment: company Northwind Traders, sector Logistics" in markdown


def test_a_direct_visit_says_so_instead_of_leaving_fields_out(
    console_app: Console, team: Any
) -> None:
    session_id = str(uuid.uuid4())
    _record_turn(console_app, session_id, "", {})
    client = console_app.client()
    sign_in(client, team["owner"])
    html = client.get(f"/console/sites/demo/conversations/{session_id}").text
    assert "none (direct visit, or the page sends no referrer)" in html
    assert "nothing known" in html
    exported = client.get(f"/console/sites/demo/conversations/{session_id}/export.json").json()
    assert exported["visitor"]["referrers"] == [] and exported["turns"][0]["referrer"] is None


def test_the_chat_api_takes_the_referrer_apart_from_the_page(console_app: Console) -> None:
    from api_support import demo_headers, keep_secrets

    client = keep_secrets(console_app.client())
    response = client.post(
        "/v1/ask",
        json={"message": "Hello there", "page_url": PAGE, "referrer": REFERRER},
        headers=demo_headers(),
    )
    assert response.status_code == 200, response.text
    backend = console_app.app.state.chat
    visitor = backend.calls[-1][3]
    assert (visitor.page_url, visitor.referrer) == (PAGE, REFERRER)
    # Markup and control characters are cleaned like the page; an overlong one is refused
    # with a clear error (nothing was stored for it).
    too_long = client.post(
        "/v1/ask",
        json={"message": "Hi", "referrer": "https://x.test/" + "a" * 2100},
        headers=demo_headers(),
    )
    assert too_long.status_code == 422 and "referrer" in too_long.text

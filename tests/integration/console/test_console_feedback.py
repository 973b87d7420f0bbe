"""Visitor feedback in the console, on a real SQLite store: the inbox filters by vote,
the transcript shows each answer's vote and comment, the export carries them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from console_support import Console, seed_conversation, sign_in

from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
from frontdesk.store.widget import FeedbackRepository

pytestmark = pytest.mark.integration


def vote(runtime: Runtime, site_id: str, session_id: str, rating: str, comment: str | None) -> None:
    with transaction(runtime.sessions) as session:
        FeedbackRepository(session).record(site_id, session_id, 1, rating, comment)


def test_inbox_filters_by_feedback_and_transcript_shows_the_vote(
    console_app: Console, team: Any
) -> None:
    rt = console_app.runtime
    liked = seed_conversation(rt, "demo", question="How do I export invoices?")
    disliked = seed_conversation(rt, "demo", question="Where is my refund?")
    silent = seed_conversation(rt, "demo", question="Do you have an API?")
    # A vote on another site's conversation with no counterpart here must not leak.
    other = seed_conversation(rt, "acme", question="Where is my refund?")
    vote(rt, "demo", liked, "up", None)
    vote(rt, "demo", disliked, "down", "It did not say when the refund arrives.")
    vote(rt, "acme", other, "down", None)
    client = console_app.client()
    sign_in(client, team["owner"])

    def shown(query: str) -> list[bool]:
        html = client.get(f"/console/sites/demo/inbox?rows=1&{query}").text
        return [f'data-session="{s}"' in html for s in (liked, disliked, silent, other)]

    assert shown("feedback=up") == [True, False, False, False]
    assert shown("feedback=down") == [False, True, False, False]
    assert shown("feedback=any") == [True, True, False, False]
    assert shown("feedback=none") == [False, False, True, False]
    assert shown("feedback=down&q=refund") == [False, True, False, False]
    assert shown("feedback=sideways") == [True, True, True, False]  # unknown: ignored
    page = client.get("/console/sites/demo/inbox").text
    assert 'name="feedback"' in page and "Feedback filters arrive" not in page

    transcript = client.get(f"/console/sites/demo/conversations/{disliked}").text
    assert "feedback-down" in transcript
    assert "It did not say when the refund arrives." in transcript
    plain = client.get(f"/console/sites/demo/conversations/{silent}").text
    assert "feedback-" not in plain and "Visitor's comment" not in plain
    exported = client.get(f"/console/sites/demo/conversations/{disliked}/export.json").json()
    assert exported["turns"][0]["feedback"] == {
        "rating": "down",
        "comment": "It did not say when the refund arrives.",
    }
    analytics = client.get("/console/sites/demo/analytics?days=7").text
    assert re.search(
        r'id="feedback-share"><b>50 %</b><span>helpful \(👍\) of 2 visitor votes'
        r" \(1 not helpful\)",
        analytics,
    )
    # A changed vote replaces the first: the filters follow it.
    vote(rt, "demo", disliked, "up", None)
    assert shown("feedback=down") == [False, False, False, False]
    assert shown("feedback=up") == [True, True, False, False]

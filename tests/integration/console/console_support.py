"""Support for console tests: operators, a signed-in client, and stored conversations,
handoffs and leads written through the store's own repositories."""

from __future__ import annotations

import re
import sys
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

API_TESTS = Path(__file__).resolve().parents[1] / "api"
if str(API_TESTS) not in sys.path:
    sys.path.insert(0, str(API_TESTS))

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from frontdesk.console.passwords import hash_password  # noqa: E402
from frontdesk.runtime import Runtime  # noqa: E402
from frontdesk.settings import Settings  # noqa: E402
from frontdesk.store.db import transaction  # noqa: E402
from frontdesk.store.handoffs import (  # noqa: E402
    HandoffRepository,
    LeadRepository,
    OutboxRepository,
)
from frontdesk.store.models import utcnow  # noqa: E402
from frontdesk.store.operators import OperatorRepository  # noqa: E402
from frontdesk.store.repositories import (  # noqa: E402
    ConversationRepository,
    StoredTurn,
    TraceRepository,
)
from tests.support.stacks import alternating_client  # noqa: E402

PASSWORD = "correct horse battery"


def add_operator(runtime: Runtime, email: str, roles: dict[str, str]) -> None:
    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        operator = operators.ensure(email, hash_password(PASSWORD))
        for site_id, role in roles.items():
            operators.grant(operator, site_id, role)


def login_csrf(client: TestClient) -> str:
    page = client.get("/console/login")
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def sign_in(client: TestClient, email: str, password: str = PASSWORD) -> Any:
    token = login_csrf(client)
    return client.post(
        "/console/login",
        data={"email": email, "password": password, "csrf_token": token},
        follow_redirects=False,
    )


def page_csrf(client: TestClient, url: str) -> str:
    page = client.get(url)
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page.text)
    assert found, page.text[:500]
    return found.group(1)


def seed_conversation(
    runtime: Runtime,
    site_id: str,
    *,
    question: str = "How do I reset my password?",
    answer: str = "Open Settings, then Security [1].",
    routing: str = "answered",
    route: str = "ANSWER",
    lead: str = "cold",
    language: str = "en",
    session_id: str | None = None,
    days_ago: int = 0,
) -> str:
    session_id = session_id or str(uuid.uuid4())
    with transaction(runtime.sessions) as session:
        turn = ConversationRepository(session).record_turn(
            site_id,
            session_id,
            StoredTurn(
                user_text=question,
                assistant_text=answer,
                route=route,
                routing=routing,
                intent="support",
                language=language,
                details={
                    "lead": lead,
                    "citations": [
                        {
                            "index": 1,
                            "doc_id": "account-security",
                            "title": "Account security",
                            "url": "https://example.test/security",
                            "excerpt": "Reset a password under Settings > Security.",
                        }
                    ],
                },
            ),
        )
        TraceRepository(session).add(
            site_id=site_id,
            session_id=session_id,
            turn=turn,
            route=route,
            routing=routing,
            intent="support",
            engine="local",
            latency_ms=412.5,
            nodes=[
                {"node": "intent_classifier", "ms": 3.2},
                {"node": "first_token", "ms": 180.0},
                {"role": "writer", "model": "scripted:model", "tokens_in": 120, "ms": 90.0},
            ],
            retrieval=[
                {"chunk_id": "account-security#0", "doc_id": "account-security", "score": 0.734}
            ],
            citations=[],
        )
        if days_ago:
            conversation = ConversationRepository(session).get(site_id, session_id)
            assert conversation is not None
            conversation.started_at = utcnow() - timedelta(days=days_ago)
            conversation.last_activity_at = conversation.started_at
            for trace in TraceRepository(session).for_session(site_id, session_id):
                trace.created_at = conversation.started_at
    return session_id


def seed_failed_handoff(
    runtime: Runtime, site_id: str, session_id: str, channel: str = "webhook:0"
) -> tuple[str, int]:
    """A handoff whose delivery on `channel` failed for good (attempts recorded)."""
    with transaction(runtime.sessions) as session:
        handoff = HandoffRepository(session).create(
            site_id=site_id,
            session_id=session_id,
            reason="explicit_request",
            packet={"summary": "Visitor asked for a human", "visitor": {"name": "Ada"}},
            status="total_failure",
        )
        outbox = OutboxRepository(session)
        item = outbox.enqueue(
            handoff_id=handoff.id,
            site_id=site_id,
            channel=channel,
            idempotency_key=f"{site_id}:{session_id}:1:{channel}",
            payload={"summary": "Visitor asked for a human"},
            status="failed",
            last_error="HTTP 503 from receiver",
        )
        outbox.record_attempt(item, "failed", "HTTP 503 from receiver (giving up)")
        return handoff.id, item.id


def seed_lead(runtime: Runtime, site_id: str, session_id: str) -> str:
    with transaction(runtime.sessions) as session:
        lead, _ = LeadRepository(session).create_once(
            f"{site_id}:{session_id}:booking",
            site_id=site_id,
            session_id=session_id,
            email="ada@example.test",
            name="Ada",
            level="hot",
            reason="booking",
            details={"form": {"team_size": "12"}},
        )
        return lead.id


@dataclass
class Console:
    app: FastAPI
    runtime: Runtime
    settings: Settings
    # The client that runs the app's lifespan: its event loop lives for the whole test, so
    # background work a request starts (a crawl) keeps running between requests.
    live: TestClient | None = None
    # Every worker's app and lifespan client (more than one on the production stack).
    workers: list[tuple[FastAPI, TestClient]] = field(default_factory=list)

    def client(self) -> TestClient:
        """A new browser; with several workers its requests alternate between them."""
        if len(self.workers) > 1:
            return alternating_client(
                [app for app, _ in self.workers], [live for _, live in self.workers]
            )
        return TestClient(self.app, raise_server_exceptions=False)

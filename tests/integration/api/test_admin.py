"""Admin routes: bearer-key auth, leads, handoffs, traces, stats, document upload."""

from __future__ import annotations

import importlib.util
import uuid
from typing import Any

import pytest
from api_support import ADMIN_KEY, Api, MakeApi, admin_headers, demo_headers

from frontdesk.api import ingestion
from frontdesk.api.security import hash_admin_key
from frontdesk.store.db import transaction
from frontdesk.store.handoffs import HandoffRepository, LeadRepository
from frontdesk.store.repositories import ConversationRepository, StoredTurn, TraceRepository

pytestmark = pytest.mark.integration

ADMIN_GETS = ["leads", "handoffs", "traces/5f0c6e8a-3b1d-4c2e-9a7f-1d2e3c4b5a69", "stats"]


def seed(api: Api) -> str:
    session = str(uuid.uuid4())
    with transaction(api.runtime.sessions) as db:
        conversations = ConversationRepository(db)
        conversations.record_turn(
            "demo",
            session,
            StoredTurn(
                "What is Tessellate Flow?", "A platform [1].", "ANSWER", "answered", "learn"
            ),
        )
        conversations.record_turn(
            "demo",
            session,
            StoredTurn("Do you support SAP?", "I don't know.", "ANSWER", "cannot_answer", "learn"),
        )
        conversations.record_turn(
            "acme", str(uuid.uuid4()), StoredTurn("acme secret?", "no", "ANSWER", "answered")
        )
        LeadRepository(db).create_once(
            f"demo:{session}",
            site_id="demo",
            session_id=session,
            email="ana@example.com",
            level="hot",
        )
        LeadRepository(db).create_once(
            "acme:x", site_id="acme", session_id="x", email="acme@acme.example", level="warm"
        )
        HandoffRepository(db).create(
            site_id="demo", session_id=session, reason="hot_lead", packet={"summary": "hot"}
        )
        TraceRepository(db).add(
            site_id="demo",
            session_id=session,
            turn=1,
            route="ANSWER",
            routing="answered",
            latency_ms=120.0,
            nodes=[{"name": "answer_writer", "ms": 80}],
        )
    return session


@pytest.mark.parametrize("path", ADMIN_GETS)
def test_admin_needs_the_bearer_key(api: Api, path: str) -> None:
    url = f"/v1/admin/sites/demo/{path}"
    missing = api.client.get(url)
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "missing_admin_key"
    assert missing.headers["WWW-Authenticate"] == "Bearer"
    wrong = api.client.get(url, headers={"Authorization": "Bearer not-the-key"})
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == "invalid_admin_key"
    # A widget key is not an admin key.
    widget = api.client.get(
        url, headers={"Authorization": f"Bearer {demo_headers()['X-Frontdesk-Key']}"}
    )
    assert widget.status_code == 401
    assert api.client.get(url, headers=admin_headers()).status_code == 200


def test_admin_disabled_without_a_configured_hash(make_api: MakeApi) -> None:
    api = make_api(admin=False)
    response = api.client.get("/v1/admin/sites/demo/leads", headers=admin_headers())
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "admin_disabled"


def test_unknown_site_is_404_only_for_admins(api: Api) -> None:
    assert api.client.get("/v1/admin/sites/nope/leads").status_code == 401
    response = api.client.get("/v1/admin/sites/nope/leads", headers=admin_headers())
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_site"


def test_leads_and_handoffs_are_per_site(api: Api) -> None:
    session = seed(api)
    leads = api.client.get("/v1/admin/sites/demo/leads", headers=admin_headers()).json()
    assert [(lead["email"], lead["level"]) for lead in leads] == [("ana@example.com", "hot")]
    acme = api.client.get("/v1/admin/sites/acme/leads", headers=admin_headers()).json()
    assert [lead["email"] for lead in acme] == ["acme@acme.example"]
    handoffs = api.client.get("/v1/admin/sites/demo/handoffs", headers=admin_headers()).json()
    assert handoffs[0]["session_id"] == session
    assert handoffs[0]["reason"] == "hot_lead"
    assert api.client.get("/v1/admin/sites/acme/handoffs", headers=admin_headers()).json() == []
    limited = api.client.get("/v1/admin/sites/demo/leads?limit=0", headers=admin_headers())
    assert limited.status_code == 422


def test_traces_of_a_session(api: Api) -> None:
    session = seed(api)
    response = api.client.get(f"/v1/admin/sites/demo/traces/{session}", headers=admin_headers())
    assert response.status_code == 200
    traces = response.json()["traces"]
    assert traces[0]["nodes"] == [{"name": "answer_writer", "ms": 80}]
    other = api.client.get(f"/v1/admin/sites/acme/traces/{session}", headers=admin_headers())
    assert other.json()["traces"] == []
    bad = api.client.get("/v1/admin/sites/demo/traces/not-a-uuid", headers=admin_headers())
    assert bad.status_code == 422


def test_stats(api: Api) -> None:
    seed(api)
    stats = api.client.get("/v1/admin/sites/demo/stats", headers=admin_headers()).json()
    assert stats["site_id"] == "demo"
    assert stats["conversations"] == 1
    assert stats["turns"] == 2
    assert stats["routes"] == {"ANSWER": 2}
    assert stats["routing"] == {"answered": 1, "cannot_answer": 1}
    assert stats["unanswered_questions"] == [{"question": "Do you support SAP?", "count": 1}]
    assert {q["question"] for q in stats["top_questions"]} == {
        "What is Tessellate Flow?",
        "Do you support SAP?",
    }
    assert "acme secret?" not in str(stats)


def test_upload_is_501_when_ingestion_is_unavailable(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(_: object) -> object:
        raise ingestion.IngestionUnavailable("knowledge ingestion is not available (test)")

    monkeypatch.setattr("frontdesk.api.routes.documents.open_knowledge_base", unavailable)
    response = api.client.post(
        "/v1/admin/sites/demo/documents",
        files={"files": ("faq.md", b"# FAQ\n\nHello.", "text/markdown")},
        headers=admin_headers(),
    )
    assert response.status_code == 501
    assert response.json()["error"]["code"] == "ingestion_unavailable"


class FakeKnowledge:
    def __init__(self) -> None:
        self.uploads: list[tuple[str, str, bytes]] = []

    def ingest_upload(self, site: Any, data: bytes, filename: str) -> dict[str, Any]:
        self.uploads.append((site.id, filename, data))
        if filename.endswith(".exe"):
            return {"ingested": [], "failed": {filename: "unsupported file type"}}
        return {"ingested": [filename], "failed": {}, "chunks_embedded": 2}


def test_upload_ingests_each_file(api: Api) -> None:
    fake = FakeKnowledge()
    api.app.state.knowledge = fake
    response = api.client.post(
        "/v1/admin/sites/demo/documents",
        files=[
            ("files", ("faq.md", b"# FAQ\n\nHello.", "text/markdown")),
            ("files", ("../../evil.exe", b"MZ", "application/octet-stream")),
        ],
        headers=admin_headers(),
    )
    assert response.status_code == 200
    body = response.json()
    assert body["files"] == ["faq.md", "evil.exe"]
    assert body["summary"]["ingested"] == ["faq.md"]
    assert body["summary"]["failed"] == {"evil.exe": "unsupported file type"}
    assert body["summary"]["chunks_embedded"] == 2
    assert [(site, name) for site, name, _ in fake.uploads] == [
        ("demo", "faq.md"),
        ("demo", "evil.exe"),
    ]


def test_upload_errors(api: Api) -> None:
    api.app.state.knowledge = FakeKnowledge()
    url = "/v1/admin/sites/demo/documents"
    assert api.client.post(url, files={"files": ("a.md", b"x")}).status_code == 401
    no_files = api.client.post(url, headers=admin_headers())
    assert no_files.status_code == 422
    unknown = api.client.post(
        "/v1/admin/sites/nope/documents", files={"files": ("a.md", b"x")}, headers=admin_headers()
    )
    assert unknown.status_code == 404


@pytest.mark.skipif(
    importlib.util.find_spec("frontdesk.knowledge.service") is None,
    reason="frontdesk.knowledge.service is not importable yet",
)
def test_upload_with_the_real_knowledge_base(api: Api) -> None:
    document = (
        b"# Office dogs\n\nTessellate's Amsterdam office welcomes dogs on Fridays. "
        b"The office dog is a beagle called Pixel."
    )
    response = api.client.post(
        "/v1/admin/sites/acme/documents",
        files={"files": ("dogs.md", document, "text/markdown")},
        headers=admin_headers(),
    )
    assert response.status_code == 200, response.text
    summary = response.json()["summary"]
    assert summary["failed"] == {}
    assert summary["ingested"]


def test_admin_key_hash_is_sha256_hex() -> None:
    assert len(hash_admin_key(ADMIN_KEY)) == 64

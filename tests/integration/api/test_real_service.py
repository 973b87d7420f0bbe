"""The HTTP API in front of the real `ChatService` (the LangGraph graph on the local engine).

Unlike the other API tests this one does not use the scripted backend: it checks that the
real service satisfies the contract the API and the widget rely on. It is skipped while
`frontdesk.conversation.service` cannot be imported.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from api_support import demo_headers, keep_secrets, parse_sse, write_sites
from fastapi.testclient import TestClient
from real_service import ingested_data_dir, service_unavailable_reason

from frontdesk.api.app import create_app
from frontdesk.conversation.payload import TurnResult
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

REASON = service_unavailable_reason()

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(REASON is not None, reason=REASON or ""),
]


def test_real_service_streams_persists_and_erases(
    tmp_path: Path, sites_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    write_sites(sites_dir)
    data = ingested_data_dir(tmp_path_factory.getbasetemp(), sites_dir, tmp_path / "data")
    settings = Settings(data_dir=data, sites_dir=sites_dir)
    runtime = build_runtime(settings)
    try:
        app = create_app(settings, runtime)  # no backend given: the real ChatService
        with keep_secrets(TestClient(app)) as client:
            from frontdesk.conversation.service import ChatService

            assert isinstance(app.state.chat, ChatService)
            response = client.post(
                "/v1/chat", json={"message": "What is Tessellate Flow?"}, headers=demo_headers()
            )
            assert response.status_code == 200
            events = parse_sse(response.text)
            names = [name for name, _ in events]
            assert names[-1] == "complete", events[-1]
            assert names.count("complete") == 1
            assert set(names[:-1]) <= {"token"}
            result = TurnResult.model_validate(events[-1][1]["metadata"])
            streamed = "".join(data["content"] for name, data in events if name == "token")
            assert streamed.strip()
            assert result.route == "ANSWER"
            assert result.citations, "a product question is answered with citations"
            for citation in result.citations:
                assert f"[{citation.index}]" in result.answer
            session = result.session_id

            follow_up = client.post(
                "/v1/ask",
                json={"message": "Which integrations are available?", "session_id": session},
                headers=demo_headers(),
            )
            assert follow_up.status_code == 200
            assert follow_up.json()["turn"] == 2

            history = client.get(f"/v1/sessions/{session}", headers=demo_headers())
            assert history.status_code == 200
            assert len(history.json()["messages"]) >= 4
            exported = client.get(f"/v1/sessions/{session}/export", headers=demo_headers())
            assert exported.status_code == 200
            erased = client.delete(f"/v1/sessions/{session}", headers=demo_headers())
            assert erased.json()["erased"] is True
            gone = client.get(f"/v1/sessions/{session}", headers=demo_headers())
            assert gone.status_code == 404
    finally:
        runtime.close()

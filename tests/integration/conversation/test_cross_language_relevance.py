"""English questions on a German site (tests/fixtures/radwerk, a bike-repair shop's seven
pages) through the real graph: real SQLite, the default multilingual embedder, the local
engine. The site's threshold was calibrated on German questions; an English question
scores lower on German pages by its cosine alone, and must not be cut off by the
threshold or the site's support bar for that: the page that answers it reaches the
answer path. (What the writer makes of it is the writer's concern.)"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.outcomes import supported_by_site
from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.knowledge.models import RetrievalResult
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "radwerk"
# 0.81: what German questions about this shop calibrate to (they score 0.82-0.86 on
# their pages).
SITE = """\
id: radwerk
name: Radwerk Kreuzberg
default_language: de
languages: [de, en]
knowledge:
  sources: [kb]
  relevance_threshold: 0.81
widget:
  public_key: pk_test_radwerk_0002
business_hours:
  timezone: Europe/Berlin
"""


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    root = tmp_path
    sites = root / "sites"
    sites.mkdir()
    shutil.copytree(FIXTURE, sites / "kb")
    (sites / "radwerk.yaml").write_text(SITE, encoding="utf-8")
    runtime = build_runtime(Settings(data_dir=root / "data", sites_dir=sites))
    site = runtime.site("radwerk")
    report = KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
    assert len(report.ingested) == 7
    chat = ChatService(runtime)
    yield chat
    await chat.close()
    runtime.close()


async def ask(service: ChatService, message: str) -> dict[str, Any]:
    site = service.runtime.site("radwerk")
    session = str(uuid.uuid4())
    await service.ask(site, session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id("radwerk", session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


QUESTIONS = [
    ("What are your opening hours?", "kontakt.html"),
    ("How much does a tube change cost?", "preise.html"),
    # The same questions in the site's language pass as they did.
    ("Wann habt ihr geöffnet?", "kontakt.html"),
    ("Was kostet ein Schlauchwechsel?", "preise.html"),
]


async def test_a_question_in_another_language_than_the_pages_reaches_the_page(
    service: ChatService,
) -> None:
    site = service.runtime.site("radwerk")
    profile = KnowledgeBase(service.runtime.engine).topic_profile(site.config)
    for question, page in QUESTIONS:
        values = await ask(service, question)
        result = RetrievalResult.model_validate(values["retrieval"])
        assert result.status == "ok", (question, result.reason, result.top_score)
        found = {chunk.doc_id: chunk for chunk in result.chunks}
        assert page in found, (question, list(found))
        assert found[page].score >= 0.81
        # The site's own support bar ("is this about the business?") is met too.
        assert supported_by_site(result.status, result.top_score, profile.support_threshold), (
            question,
            result.top_score,
            profile.support_threshold,
        )
        if values.get("graded_chunks") is not None and values.get("fact_reply") is None:
            assert page in {chunk["doc_id"] for chunk in values["graded_chunks"]}, question

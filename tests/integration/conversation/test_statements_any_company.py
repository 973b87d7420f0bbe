"""Through the real graph: a help-centre visitor who writes a title instead of a question
("Encrypting gmail messages.") is answered when the site's content supports it by both
signals, and a conversation act ("no thanks") still never reaches the content.

The site is StackFAQ's web-app FAQ read from the shared datasets (skipped without them),
built with the product's defaults (`evals.sites.site_file`): real SQLite, the default
embedding model, the local engine. The local classifier labels these titles OTHER; before
statements were checked against the site's content they were refused as small talk."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from frontdesk.conversation.payload import TurnResult, VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.evals.sites import site_by_id, site_file
from frontdesk.knowledge.evaluate import read_corpus
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from tests.conftest import SHARED_DATASETS

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not (SHARED_DATASETS / "retrieval" / "stackfaq").is_dir(),
        reason=f"shared datasets not found at {SHARED_DATASETS}",
    ),
]

SITE = "stackfaq-en"
ENCRYPTION_PAGE = "sfaq-119"  # "How can I encrypt Gmail messages?"


@pytest.fixture(scope="module")
def stackfaq_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("stackfaq")
    sites = root / "sites"
    sites.mkdir()
    (sites / f"{SITE}.yaml").write_text(site_file(site_by_id(SITE)), encoding="utf-8")
    settings = Settings(data_dir=root / "data", sites_dir=sites)
    runtime = build_runtime(settings)
    try:
        corpus = read_corpus(SHARED_DATASETS / "retrieval" / "stackfaq" / "corpus.jsonl")
        KnowledgeBase(runtime.engine).ingest_documents(
            runtime.site(SITE).config, corpus, progress=False
        )
    finally:
        runtime.close()
    return settings


@pytest.fixture
async def stackfaq(stackfaq_settings: Settings) -> AsyncIterator[ChatService]:
    chat = ChatService(build_runtime(stackfaq_settings))
    yield chat
    await chat.close()
    chat.runtime.close()


async def turn(service: ChatService, text: str) -> TurnResult:
    site = service.runtime.site(SITE)
    return await service.ask(site, str(uuid.uuid4()), text, VisitorContext())


@pytest.mark.parametrize("text", ["Encrypting gmail messages.", "Email encryption gmail."])
async def test_a_title_written_instead_of_a_question_is_answered(
    stackfaq: ChatService, text: str
) -> None:
    result = await turn(stackfaq, text)
    assert result.intent == "OTHER"  # the premise: the classifier hears small talk
    assert result.route == "ANSWER", result.answer
    assert ENCRYPTION_PAGE in {c.doc_id for c in result.citations}, result.answer


@pytest.mark.parametrize("text", ["no thanks", "thanks, that helps"])
async def test_a_conversation_act_never_reaches_the_content(
    stackfaq: ChatService, text: str
) -> None:
    result = await turn(stackfaq, text)
    assert result.route == "REDIRECT", result.answer
    assert not result.citations

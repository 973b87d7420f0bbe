"""PII scrubbing: emails and phones become placeholders; real values come back out."""

from __future__ import annotations

import pytest

from frontdesk.guard.pii import PiiScrubber, StreamRestorer, contains_pii, public_values

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "text",
    [
        "write to john.doe+sales@acme.co.uk please",
        "call +1 (555) 123-4567",
        "мой телефон 8 (495) 123-45-67",
        "tel: 020 7946 0958",
        "+44 20 7946 0958",
        "reach me at 555.123.4567",
    ],
)
def test_pii_is_replaced(text: str) -> None:
    scrubbed = PiiScrubber().scrub(text)
    assert not contains_pii(scrubbed)
    assert "[EMAIL_1]" in scrubbed or "[PHONE_1]" in scrubbed


@pytest.mark.parametrize(
    "text",
    [
        "Error TF-1004 appeared on 2024-05-01",
        "The server 10.0.0.1 answers on port 8443",
        "Plans start at $1,200 per year",
        "In 2023 we had 12,345,678 users",
        "version 1.2.3.4",
        "order 123456789",
    ],
)
def test_ordinary_numbers_are_kept(text: str) -> None:
    assert PiiScrubber().scrub(text) == text


def test_same_value_same_placeholder_and_restore() -> None:
    scrubber = PiiScrubber()
    first = scrubber.scrub("I am ann@example.com, phone +49 30 1234 5678")
    second = scrubber.scrub("again: ann@example.com and bob@example.com")
    assert first == "I am [EMAIL_1], phone [PHONE_1]"
    assert second == "again: [EMAIL_1] and [EMAIL_2]"
    assert scrubber.restore("Thanks [EMAIL_2]!") == "Thanks bob@example.com!"
    assert scrubber.restore("[EMAIL_9] stays") == "[EMAIL_9] stays"


def test_public_values_from_passages_are_kept() -> None:
    keep = public_values("Contact support@tessellate.io or +1 800 555 0100.")
    scrubber = PiiScrubber(keep=keep)
    text = "Is support@tessellate.io right? Mine is me@home.org"
    assert scrubber.scrub(text) == "Is support@tessellate.io right? Mine is [EMAIL_1]"


def test_stream_restorer_handles_split_placeholders() -> None:
    scrubber = PiiScrubber()
    scrubber.scrub("ann@example.com")
    restorer = StreamRestorer(scrubber)
    pieces = ["We will write to [EM", "AIL_", "1] soon [1", "]."]
    out = "".join(restorer.feed(p) for p in pieces) + restorer.flush()
    assert out == "We will write to ann@example.com soon [1]."


def test_queries_to_an_embedding_provider_are_scrubbed() -> None:
    from frontdesk.knowledge.embedding.embedders import LangChainEmbedder

    sent: list[str] = []

    class Provider:
        def embed_query(self, text: str) -> list[float]:
            sent.append(text)
            return [1.0, 0.0]

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[1.0, 0.0] for _ in texts]

    LangChainEmbedder("openai:test", Provider()).embed_query("pricing for ann@acme.io?")
    assert sent == ["pricing for [EMAIL_1]?"]


def test_passage_scrubber_keeps_the_passages_public_values_scanning_each_once() -> None:
    from frontdesk.engines.llm.messages import _passage_public_values, passage_scrubber
    from frontdesk.knowledge.models import RetrievedChunk

    texts = ["Write to support@acme.io.", "Call +1 415 555 0100 or sales@acme.io.", "No contact."]
    chunks = [
        RetrievedChunk(
            chunk_id=f"c{i}",
            doc_id="d",
            title="t",
            url="",
            content=text,
            score=0.5,
            source="s",
            chunk_index=0,
        )
        for i, text in enumerate(texts)
    ]
    _passage_public_values.cache_clear()
    scrubber = passage_scrubber(chunks)
    assert scrubber.keep == public_values(*texts)
    assert (
        scrubber.scrub("mail support@acme.io or me@home.org") == "mail support@acme.io or [EMAIL_1]"
    )
    passage_scrubber(chunks)
    assert _passage_public_values.cache_info().hits == len(texts)
    assert passage_scrubber([]).keep == frozenset()

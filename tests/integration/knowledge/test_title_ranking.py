"""Page titles in the dense ranking (`knowledge/search/titles.py`) on a real SQLite index with
the default model: the dense list is ordered by passage + 0.5 × title cosine, every hit
keeps its passage cosine, and titles are embedded at ingest, not at search time."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from frontdesk.knowledge.embedding.embedders import make_embedder
from frontdesk.knowledge.ingest.ingestor import Ingestor
from frontdesk.knowledge.models import content_hash
from frontdesk.knowledge.search.query import SearchOptions
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from tests.support.pages import page

pytestmark = pytest.mark.integration

E5 = "local:multilingual-e5-small"


# A small FAQ of an invented bicycle-rental shop: each title is the question its page
# answers, in other words than the visitor's.
FAQ = [
    page(
        "holiday.md",
        "Can I take the bike on holiday?",
        "Rentals may leave the city for up to 14 days. Tell us the destination in the app"
        " before you go; the insurance covers every EU country.",
    ),
    page(
        "luggage.md",
        "Carrying luggage",
        "Every city bike has a front basket for 10 kg. Panniers for long trips and travel"
        " bags can be added at the central station.",
    ),
    page(
        "stolen.md",
        "What happens if my bike is stolen?",
        "Report it to the police within 24 hours and send us the report number. You pay the"
        " deductible of 50 euros; the rest is covered.",
    ),
    page(
        "locks.md",
        "Locks and keys",
        "Each bike comes with a folding lock. Always lock the frame to a fixed object, even"
        " for a short stop; a lost key costs 15 euros.",
    ),
    page(
        "cities.md",
        "Which cities do you deliver to?",
        "We bring bikes to your door in Amsterdam, Utrecht and Rotterdam, usually the next"
        " working day.",
    ),
]
QUESTIONS = [
    "Am I allowed to bring the rental with me on vacation abroad?",
    "someone took my bike from the street, what now",
    "do you ship bikes to Utrecht",
    "where do I put my bags when I ride",
]


def site(site_id: str) -> SiteKnowledge:
    return SiteKnowledge(site_id, KnowledgeConfig(embedding=E5, relevance_threshold=None))


def dense_only(site: SiteKnowledge, title_weight: float) -> SearchOptions:
    return replace(site.search_options(top_k=5), lexical_weight=0.0, title_weight=title_weight)


def test_the_dense_list_is_ordered_by_passage_and_title(kb: KnowledgeBase) -> None:
    faq = site("bikes-faq")
    assert faq.search_options().title_weight == 0.5  # the default model's default
    kb.ingest_documents(faq, FAQ, progress=False)
    retriever, key = kb.retriever(faq), kb.index_key(faq)
    model = make_embedder(E5)
    titles = {doc.doc_id: model.embed_documents([doc.title])[0] for doc in FAQ}
    orders_differ = False
    for question in QUESTIONS:
        query = model.embed_query(question).reshape(-1)
        blended = retriever.search(key, question, dense_only(faq, 0.5))
        plain = retriever.search(key, question, dense_only(faq, 0.0))
        assert blended.status == plain.status == "ok"
        # Each page is one chunk: its passage cosine is the hit's score in both searches.
        cosine = {c.doc_id: c.score for c in plain.chunks}
        assert {c.doc_id: c.score for c in blended.chunks} == cosine
        expected = sorted(
            cosine, key=lambda d: -(cosine[d] + 0.5 * float(np.dot(titles[d], query)))
        )
        assert [c.doc_id for c in blended.chunks] == expected, question
        assert [c.doc_id for c in plain.chunks] == sorted(cosine, key=lambda d: -cosine[d])
        orders_differ |= expected != [c.doc_id for c in plain.chunks]
    assert orders_differ, "no question ranks differently by title: the test shows nothing"


def test_titles_are_embedded_at_ingest(kb: KnowledgeBase) -> None:
    faq = site("bikes-faq-cache")
    report = kb.ingest_documents(faq, FAQ, progress=False)
    assert report.chunks_embedded == len(FAQ)  # titles are not counted as chunks
    cached = kb.index.cached_vectors(E5, [content_hash(doc.title) for doc in FAQ])
    assert len(cached) == len(FAQ)
    model = make_embedder(E5)
    for doc in FAQ:
        stored = cached[content_hash(doc.title)]
        assert float(np.dot(stored, model.embed_documents([doc.title])[0])) > 0.999


def test_an_index_without_title_vectors_ranks_by_passages_until_its_next_ingest(
    kb: KnowledgeBase,
) -> None:
    """A site indexed before titles counted: its searches never embed a title (no model
    call, no write on the search path); the next ingest processes every page once more,
    from the embedding cache, and embeds the titles."""
    faq = site("bikes-faq-older")
    older = replace(faq.ingest_options(progress=False), title_vectors=False)
    Ingestor(kb.index, kb.embedder(faq), older).ingest_documents(kb.index_key(faq), FAQ)
    retriever, key = kb.retriever(faq), kb.index_key(faq)
    question = QUESTIONS[1]  # its order moves with the titles (test above)

    def dense_order(title_weight: float) -> list[str]:
        result = retriever.search(key, question, dense_only(faq, title_weight))
        return [chunk.doc_id for chunk in result.chunks]

    assert kb.index.cached_vectors(E5, [content_hash(doc.title) for doc in FAQ]) == {}
    by_passage = dense_order(0.0)
    assert dense_order(0.5) == by_passage  # no title known yet
    assert kb.index.cached_vectors(E5, [content_hash(doc.title) for doc in FAQ]) == {}

    report = kb.ingest_documents(faq, FAQ, progress=False)
    assert sorted(report.updated) == sorted(doc.doc_id for doc in FAQ)
    assert report.chunks_embedded == 0  # every chunk vector came from the cache
    assert len(kb.index.cached_vectors(E5, [content_hash(doc.title) for doc in FAQ])) == len(FAQ)
    assert dense_order(0.5) != by_passage  # this question's order moves with the titles
    again = kb.ingest_documents(faq, FAQ, progress=False)
    assert sorted(again.skipped) == sorted(doc.doc_id for doc in FAQ)

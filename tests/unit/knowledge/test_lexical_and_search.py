"""Pure parts of search: stemming, FTS query building, RRF fusion, case studies, metrics."""

from __future__ import annotations

import pytest

from frontdesk.knowledge.evaluate import (
    EvalQuery,
    QueryOutcome,
    RetrievalReport,
    is_answerable,
    percentile,
)
from frontdesk.knowledge.index.base import Hit
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.knowledge.search.query import (
    SearchOptions,
    fusion_weights,
    is_case_study,
    query_language,
)
from frontdesk.knowledge.search.retriever import rrf_fuse
from frontdesk.text.lexical import STEMMER_LANGUAGES, lexical_text, query_terms, terms

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("language", "a", "b"),
    [
        ("en", "pricing", "prices"),
        ("ru", "запросы", "запрос"),
        ("fr", "factures", "facture"),
        ("de", "Rechnungen", "Rechnung"),
        ("es", "facturas", "factura"),
        ("it", "fatture", "fattura"),
        ("pt", "faturas", "fatura"),
        ("nl", "facturen", "factuur"),
    ],
)
def test_stemming_per_language(language: str, a: str, b: str) -> None:
    assert language in STEMMER_LANGUAGES
    assert terms(a, language) == terms(b, language)


def test_cyrillic_words_use_russian_stemmer_on_any_site() -> None:
    assert terms("Запросы and requests", "en") == ["запрос", "and", "request"]
    assert terms("Запросы", "fr") == terms("запрос", "fr")


def test_unknown_language_is_rejected() -> None:
    with pytest.raises(ValueError, match="unsupported language"):
        terms("hello", "xx")


def test_query_terms_are_distinct_stems_without_punctuation() -> None:
    assert query_terms('Price? "price" AND prices; E20 -- OR') == ["price", "and", "e20", "or"]
    assert query_terms("?!") == []
    assert lexical_text("Error_code E20 раз") == "error code e20 раз"


def test_rrf_fuse_weights_and_orders() -> None:
    dense = [Hit("a", 0.9), Hit("b", 0.8), Hit("c", 0.7)]
    lexical = [Hit("c", 12.0), Hit("d", 5.0)]
    fused = dict(rrf_fuse([(dense, 1.0), (lexical, 1.0)], k=60))
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    ranked = [chunk for chunk, _ in rrf_fuse([(dense, 1.0), (lexical, 0.2)], k=30)]
    assert ranked == ["c", "a", "b", "d"]  # agreement of both lists beats one top rank
    assert rrf_fuse([([], 1.0)]) == []


def chunk(doc_id: str, source: str = "", url: str = "") -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id="x",
        doc_id=doc_id,
        title="",
        url=url,
        content="c",
        score=0.5,
        source=source or doc_id,
        chunk_index=0,
    )


def test_case_studies_are_recognised_by_name() -> None:
    assert is_case_study(chunk("case-study-fintech-rag.md"))
    assert is_case_study(chunk("work/case-studies/bank.md"))
    assert is_case_study(chunk("x.md", url="https://acme.example/case_study/bank"))
    assert not is_case_study(chunk("pricing.md"))
    assert not is_case_study(chunk("showcase-study.md"))


def outcome(
    gold: tuple[str, ...],
    ranking: list[str],
    status: str = "ok",
    answerable: bool = True,
    ms: float = 1.0,
) -> QueryOutcome:
    return QueryOutcome(EvalQuery("q", "q", gold, answerable), ranking, status, 0.5, ms)


def test_retrieval_metrics() -> None:
    report = RetrievalReport(
        outcomes=[
            outcome(("a",), ["a", "b"]),
            outcome(("b",), ["a", "b"]),
            outcome(("z",), ["a"] * 1),
            outcome(("c",), [], status="no_result"),
            outcome((), [], status="no_result", answerable=False),
            outcome((), ["a"], answerable=False, ms=9.0),
        ],
        k=10,
    )
    metrics = report.metrics()
    assert metrics["hit@1"] == 0.25
    assert metrics["hit@5"] == 0.5
    assert metrics["mrr"] == pytest.approx((1 + 0.5) / 4, abs=1e-4)
    assert metrics["abstain_precision"] == 0.5
    assert metrics["abstain_recall"] == 0.5
    assert metrics["queries"] == 6
    assert metrics["p50_ms"] == 1.0


def test_metrics_without_unanswerable_queries_are_null() -> None:
    metrics = RetrievalReport(outcomes=[outcome(("a",), ["a"])]).metrics()
    assert metrics["abstain_precision"] is None
    assert metrics["abstain_recall"] is None


@pytest.mark.parametrize(
    ("path", "content", "language"),
    [
        (("Billing", "Refunds & returns"), "Refunds are paid within 14 days.", "en"),
        (("Rechnungen", "Ältere Rechnungen"), "Rechnungen im Kundenkonto.", "de"),
        (("Оплата", "Чеки об оплате"), "Чеки приходят на почту.", "ru"),
        (("Error_codes", "E20: " + "x" * 45 + " timeout"), "Retry later.", "en"),
        (("", "Only a heading"), "Body words only here.", "fr"),
        ((), "A passage with no heading path.", "en"),
    ],
)
def test_heading_terms_are_the_stemmed_heading_path(
    path: tuple[str, ...], content: str, language: str
) -> None:
    """The heading field taken from the lexical body is the path stemmed on its own, in
    the document's language (what a migration can rebuild without the language)."""
    from frontdesk.knowledge.models import Chunk
    from frontdesk.text.lexical import heading_terms

    chunk = Chunk("c", "d", 0, content, path)
    body = lexical_text(chunk.indexed_text, language)
    expected = lexical_text(" > ".join(p for p in path if p), language)
    assert heading_terms(body, path) == expected
    assert body.startswith(expected)
    assert heading_terms(body, ()) == ""


def test_a_third_list_adds_its_weighted_reciprocal_rank() -> None:
    dense = [Hit("a", 0.9), Hit("b", 0.8)]
    lexical = [Hit("a", 3.0), Hit("b", 2.0)]
    headings = [Hit("b", 5.0), Hit("c", 1.0)]
    two = rrf_fuse([(dense, 1.0), (lexical, 0.2)], k=30)
    three = rrf_fuse([(dense, 1.0), (lexical, 0.2), (headings, 0.1)], k=30)
    assert [c for c, _ in two] == ["a", "b"]
    assert dict(three)["b"] == pytest.approx(dict(two)["b"] + 0.1 / 31)
    assert dict(three)["c"] == pytest.approx(0.1 / 32)  # found by its heading alone
    assert rrf_fuse([(dense, 1.0), (lexical, 0.2), ([], 0.1)], k=30) == two


def test_a_sites_heading_weight_reaches_its_search_options() -> None:
    from pydantic import ValidationError

    from frontdesk.knowledge.search.query import DEFAULT_HEADING_WEIGHT
    from frontdesk.knowledge.site import SiteKnowledge
    from frontdesk.sites.knowledge import KnowledgeConfig

    default = SiteKnowledge("s", KnowledgeConfig()).search_options()
    assert default.heading_weight == DEFAULT_HEADING_WEIGHT
    assert (
        SiteKnowledge("s", KnowledgeConfig(heading_weight=0)).search_options().heading_weight == 0
    )
    assert (
        SiteKnowledge("s", KnowledgeConfig(heading_weight=0.3)).search_options().heading_weight
        == 0.3
    )
    with pytest.raises(ValidationError, match="heading_weight"):
        KnowledgeConfig(heading_weight=2)


def test_answerable_flags() -> None:
    assert is_answerable({"gold_doc_ids": ["1"]})
    assert not is_answerable({"gold_doc_ids": ["1"], "answerable": False})
    assert not is_answerable({"gold_doc_ids": ["1"], "is_impossible": True})
    assert not is_answerable({"gold_doc_ids": ["-1"]})


def test_percentile_matches_linear_interpolation() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95) == pytest.approx(4.8)
    assert percentile([7.0], 95) == 7.0


def test_lexical_gets_an_equal_vote_when_the_model_does_not_know_the_language() -> None:
    english = SearchOptions(language="en", dense_weight=1.0, lexical_weight=0.2)
    assert query_language("Как оплатить счёт?", "en") == "ru"
    assert query_language("How do I pay my invoice?", "de") == "en"  # the question's own
    assert query_language("ok", "de") == "de"  # too short to tell: the site's language
    heading = english.heading_weight
    assert fusion_weights("How do I pay?", english, ("en",)) == (1.0, 0.2, heading)
    assert fusion_weights("Как оплатить счёт?", english, ("en",)) == (1.0, 1.0, heading)
    assert fusion_weights("Como pago?", SearchOptions(language="es"), ("en",)) == (
        1.0,
        1.0,
        heading,
    )
    assert fusion_weights("Как оплатить счёт?", english, None) == (1.0, 0.2, heading)
    off = SearchOptions(heading_weight=0.0)
    assert fusion_weights("How do I pay?", off, ("en",)).heading == 0.0


@pytest.mark.parametrize(
    ("message", "read_as"),
    [
        ("CAN I PAY BY CARD?", "can i pay by card?"),
        ("МОЖНО ПОВТОРНО ВОЙТИ В ПРИЛОЖЕНИЕ?", "можно повторно войти в приложение?"),
        ("CAUSE OF A COLD\ni UNDERSTAND CONTAGION", "cause of a cold\ni understand contagion"),
        # Names in capitals inside a normal sentence, and short names, stay as written.
        ("Do you support SAML SSO with Okta?", "Do you support SAML SSO with Okta?"),
        ("GDPR DPA?", "GDPR DPA?"),
        ("", ""),
    ],
)
def test_a_shouted_message_is_searched_in_lower_case(message: str, read_as: str) -> None:
    from frontdesk.knowledge.search.query import unshouted

    assert unshouted(message) == read_as


def test_the_retriever_embeds_a_shouted_question_as_written_normally() -> None:
    import numpy as np

    from frontdesk.knowledge.search.retriever import Retriever

    class RecordingEmbedder:  # what the (cased) model is asked to read
        name = "recording"
        dim = 4

        def __init__(self) -> None:
            self.read: list[str] = []

        def embed_query(self, text: str) -> np.ndarray:
            self.read.append(text)
            return np.ones((1, self.dim), dtype=np.float32)

    class NoIndex:  # embed_query never reaches the index
        pass

    embedder = RecordingEmbedder()
    retriever = Retriever(NoIndex(), embedder)  # type: ignore[arg-type]
    retriever.embed_query("HOW DO I CANCEL MY MEMBERSHIP?")
    retriever.embed_query("Is SAML SSO included?")
    assert embedder.read == ["how do i cancel my membership?", "Is SAML SSO included?"]

"""The query side of a search: bounding and unshouting the question, its language, the
fusion weights for it, and the per-site search options (`SearchOptions`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from frontdesk.knowledge.index.base import StoredChunk
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.text.lexical import text_language

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_CASE_STUDY = re.compile(r"(^|[/\\:])case[-_ ]?stud(y|ies)", re.IGNORECASE)


# A query longer than this is a pasted text: the embedding model reads ~256 tokens of it
# anyway, and BM25 over its thousands of terms would cost a second of a search thread.
# Its start and end are searched (where a visitor's own question sits).
MAX_QUERY_CHARS = 1_000


def bounded_query(query: str) -> str:
    query = query.strip()
    if len(query) <= MAX_QUERY_CHARS:
        return query
    head = MAX_QUERY_CHARS * 3 // 4
    return f"{query[:head]} {query[-(MAX_QUERY_CHARS - head) :]}"


SHOUTED_SHARE = 0.6  # of a message's letters in capitals
SHOUTED_MIN_LETTERS = 12  # "FAQ", "SAML SSO?" are names, not shouting


def unshouted(query: str) -> str:
    """Pure: a message written in capitals ("CAN I PAY BY CARD?"), in lower case; any
    other message as it is. Cased embedding models (e5's tokenizer keeps case) read
    shouted words as rare pieces, so a shouted question scored under the same question
    written normally (a visitor's e-mail in capitals: cosine 0.854 against 0.875)."""
    letters = [c for c in query if c.isalpha()]
    if len(letters) < SHOUTED_MIN_LETTERS:
        return query
    capitals = sum(c.isupper() for c in letters)
    return query.lower() if capitals >= SHOUTED_SHARE * len(letters) else query


# The heading list's RRF weight (BM25 over title and headings alone): off by default. At
# 0.1 covid_faq gained 2 questions of 56 but rutube lost 2 of 300 (docs/knowledge.md, "A
# heading field in the lexical indexes"); a site opts in with `knowledge.heading_weight`.
DEFAULT_HEADING_WEIGHT = 0.0


class FusionWeights(NamedTuple):
    dense: float
    lexical: float
    heading: float


@dataclass(frozen=True)
class SearchOptions:
    """Per-site search knobs (from `KnowledgeConfig`)."""

    top_k: int = 7
    relevance_threshold: float | None = None
    proactive_threshold: float | None = None
    language: str = "en"
    candidates: int = 50
    rrf_k: int = 30
    dense_weight: float = 1.0
    lexical_weight: float = 0.2
    heading_weight: float = DEFAULT_HEADING_WEIGHT
    # The page title's share of a chunk's dense score (`titles.py`); 0: the passage alone.
    title_weight: float = 0.0
    # Added to the cosine of a chunk in another language than the query (`language_pairs`).
    cross_language_offset: float = 0.0


def query_language(query: str, site_language: str) -> str:
    """The question's own language (detected; the site's when the question can't tell),
    which stems its terms: each document was stemmed in its own language."""
    if _CYRILLIC.search(query):
        return "ru"
    return text_language(query, site_language)


def fusion_weights(
    query: str, options: SearchOptions, model_languages: Sequence[str] | None
) -> FusionWeights:
    """(dense, lexical, heading) weights. When the embedding model does not know the
    question's language (MiniLM is English-only), the stemmed lexical list gets an equal
    vote."""
    dense, lexical = options.dense_weight, options.lexical_weight
    if model_languages is not None and query_language(query, options.language) not in (
        model_languages
    ):
        lexical = max(lexical, dense)
    return FusionWeights(dense, lexical, options.heading_weight)


def is_case_study(chunk: StoredChunk | RetrievedChunk) -> bool:
    """Case studies are recognised by their name (`case-study-…`, `case-studies/`)."""
    return any(_CASE_STUDY.search(value) for value in (chunk.doc_id, chunk.source, chunk.url))

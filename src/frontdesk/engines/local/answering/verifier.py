"""Claim verification for the local engine.

The answer is split into sentences and list lines; framing (lead-ins, deflections) is
not a claim. Up to ten claims are checked against every passage: support is the share
of the claim's content terms the passage contains (title and headings included), and a
figure missing from the passage halves it. With an embedder, claims in doubt (a
paraphrase) are also compared with the sentences of their best passage.
`factuality_score` is supported / total, 1.0 without claims or without passages
(skipped paths score 100%).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from frontdesk.engines.base import Claim, Verification
from frontdesk.engines.local.answering.phrases import (
    FOREIGN_LEAD_IN,
    INTERNAL,
    LEAD_IN,
    NOT_FOUND,
    PARTS_UNKNOWN,
    WEAK_LEAD_IN,
    every_text,
    normalise,
    strip_framing,
)
from frontdesk.engines.local.answering.text import (
    chunk_terms,
    cited_indices,
    coverage,
    guess_language,
    plain,
    split_sentences,
    strip_citations,
    term_set,
    words,
)
from frontdesk.engines.local.answering.units import passage_units, split_claims
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.text.embedding import Embedder

MAX_CLAIMS = 10
MAX_SENTENCES = 16  # sentences of a passage compared with a doubtful claim
_NEGATION_WORDS = (
    "not no never cannot t isn don doesn aren won wasn without none nothing "
    "не нет ни никогда без нельзя "
    "pas jamais sans aucun aucune ne "
    "nicht kein keine keinen keiner nie ohne "
    "nunca sin ninguno ninguna "
    "non mai senza nessuno nessuna "
    "não nunca sem nenhum nenhuma "
    "niet geen nooit zonder"
)
NEGATIONS = frozenset(_NEGATION_WORDS.split())
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_FRAMING = tuple(
    normalise(text)
    for text in every_text(LEAD_IN, WEAK_LEAD_IN, FOREIGN_LEAD_IN, NOT_FOUND, INTERNAL)
)
# "I couldn't find this in our documentation: <the visitor's words>." frames, not claims.
_FRAMING_PREFIXES = tuple(normalise(text.split("{x}")[0]) for text in PARTS_UNKNOWN.values())


@dataclass(frozen=True)
class DraftClaim:
    text: str
    cited: frozenset[int]  # 0-based passage positions cited by the sentence


def is_framing(sentence: str) -> bool:
    """Whether `sentence` is (part of) a framing string rather than a statement of fact."""
    text = normalise(sentence)
    if any(text.startswith(prefix) for prefix in _FRAMING_PREFIXES):
        return True
    return not text or any(text in framing for framing in _FRAMING)


def extract_claims(answer: str, limit: int = MAX_CLAIMS) -> list[DraftClaim]:
    """The factual sentences of `answer`, without citations and framing, in order."""
    claims: list[DraftClaim] = []
    for sentence in split_claims(answer):
        cited = frozenset(n - 1 for n in cited_indices(sentence))
        text = plain(strip_framing(strip_citations(sentence))).strip()
        if is_framing(text) or not words(text):
            continue
        claims.append(DraftClaim(text, cited))
        if len(claims) >= limit:
            break
    return claims


def lexical_support(claim: str, chunk: RetrievedChunk, language: str) -> float:
    """Share of the claim's content terms in the passage; halved for a missing figure."""
    needed = term_set(claim, language)
    if not needed:
        return 1.0
    support = coverage(needed, chunk_terms(chunk, language))
    figures = set(_NUMBER.findall(claim))
    if figures:
        text = f"{chunk.content} {' '.join(chunk.heading_path)}"
        if not figures <= set(_NUMBER.findall(text)):
            support *= 0.5
    return support


def negated(text: str) -> bool:
    return any(word in NEGATIONS for word in words(text))


def closest_sentence(claim: str, chunk: RetrievedChunk, language: str) -> str:
    """The passage sentence (or list item, or row) sharing most terms with `claim`."""
    needed = term_set(claim, language)
    best, best_overlap = "", -1
    for unit in passage_units(chunk.content):
        for sentence in split_sentences(plain(unit.text)):
            overlap = len(needed & term_set(sentence, language))
            if overlap > best_overlap:
                best, best_overlap = sentence, overlap
    return best


class LocalClaimVerifier:
    """`ClaimVerifierJob` from lexical containment (and optional embedding cosine).

    A claim is supported when its support reaches `threshold` against some passage.
    With an `embedder`, only claims whose lexical support is in doubt (between
    `doubt_floor` and `threshold`, e.g. an LLM's paraphrase) are embedded, in one batch
    with the closest sentences of their best passage; their support becomes
    max(lexical, 0.3 × lexical + 0.7 × cosine). Quoted claims never cost an embedding
    call. A claim negated where its closest passage sentence is not (or the reverse)
    loses half its support.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        threshold: float = 0.75,
        doubt_floor: float = 0.3,
        max_claims: int = MAX_CLAIMS,
    ) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self.doubt_floor = doubt_floor
        self.max_claims = max_claims

    async def verify(self, answer: str, chunks: Sequence[RetrievedChunk]) -> Verification:
        drafts = extract_claims(answer, self.max_claims)
        if not drafts or not chunks:
            return Verification(claims=(), factuality_score=1.0)
        language = guess_language(answer)
        table = np.array(
            [[lexical_support(d.text, chunk, language) for chunk in chunks] for d in drafts],
            dtype=np.float64,
        )
        doubtful = [
            j for j, row in enumerate(table) if self.doubt_floor <= row.max() < self.threshold
        ]
        if self.embedder is not None and doubtful:
            cosines = await asyncio.to_thread(
                self._cosines, [drafts[j].text for j in doubtful], chunks, table[doubtful]
            )
            for j, (k, cosine) in zip(doubtful, cosines, strict=True):
                table[j, k] = max(table[j, k], 0.3 * table[j, k] + 0.7 * cosine)
        for j, draft in enumerate(drafts):
            k = int(np.argmax(table[j]))
            if negated(draft.text) != negated(closest_sentence(draft.text, chunks[k], language)):
                table[j, k] *= 0.5  # "cannot" where the passage says "can", or the reverse
        claims = tuple(self._label(draft, row) for draft, row in zip(drafts, table, strict=True))
        supported = sum(claim.supported for claim in claims)
        return Verification(claims=claims, factuality_score=round(supported / len(claims), 3))

    def _cosines(
        self, claims: Sequence[str], chunks: Sequence[RetrievedChunk], rows: np.ndarray
    ) -> list[tuple[int, float]]:
        """Per claim: its lexically best passage and the best claim–sentence cosine there."""
        assert self.embedder is not None
        targets = [int(np.argmax(row)) for row in rows]
        sentences = [
            [unit.text for unit in passage_units(chunks[k].content) if unit.quotable][
                :MAX_SENTENCES
            ]
            or [chunks[k].content]
            for k in targets
        ]
        flat = [text for group in sentences for text in group]
        vectors = self.embedder.embed_documents([*claims, *flat])
        claim_vectors, sentence_vectors = vectors[: len(claims)], vectors[len(claims) :]
        found: list[tuple[int, float]] = []
        start = 0
        for j, (k, group) in enumerate(zip(targets, sentences, strict=True)):
            block = sentence_vectors[start : start + len(group)]
            start += len(group)
            found.append((k, float(np.max(block @ claim_vectors[j]))))
        return found

    def _label(self, draft: DraftClaim, row: np.ndarray) -> Claim:
        best = int(np.argmax(row))
        cited = [i for i in sorted(draft.cited) if 0 <= i < len(row)]
        if cited:
            top_cited = max(cited, key=lambda i: float(row[i]))
            if row[top_cited] >= row[best] - 0.05:
                best = top_cited
        support = float(row[best])
        return Claim(
            text=draft.text,
            supported=support >= self.threshold,
            support=round(support, 3),
            chunk_index=best,
        )

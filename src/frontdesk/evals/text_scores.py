"""Answer scores without a language model: reference overlap and per-sentence groundedness.

Both work on *content tokens*: lower-cased words and numbers minus the function words
of the eight supported languages, without stemming so that a score can be computed by
hand. They are deliberately simple and independent of the product's own verifier:

- reference overlap (ROUGE-1 style): how much of the reference answer's content the
  answer repeats (recall) and how much of the answer is reference content (precision);
- groundedness: every sentence that cites `[n]` must find at least `GROUNDED_SHARE` of
  its content tokens in the chunks it cites; an answer that cites nothing has no
  groundedness (None), and the share of sentences that cite at all is reported beside;
- foreign sentences: sentences of an answer written in another language than the
  visitor's (an answer that says, in the visitor's language, that it quotes a page in
  another language is the documented exception and is not counted).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from frontdesk.engines.local.answering.phrases import quotes_foreign_page
from frontdesk.evals.metrics import f1, ratio, rounded
from frontdesk.text.language import language_confidences
from frontdesk.text.stopwords import ALL_STOPWORDS

GROUNDED_SHARE = 0.6
_TOKEN = re.compile(r"\w+(?:[.,]\d+)*", re.UNICODE)
_CITATION = re.compile(r"\[(\d+)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
# Shorter sentences are mostly names, figures and headings: no language to tell.
FOREIGN_MIN_WORDS = 5
# A sentence is foreign when the detector gives the visitor's language at most this much
# confidence: close neighbours (Spanish / Portuguese at 0.49 / 0.51) are not counted.
FOREIGN_MAX_CONFIDENCE = 0.1
_WORD = re.compile(r"[^\W\d_]{2,}")
_URL = re.compile(r"https?://\S+|\S+@\S+")


def content_tokens(text: str) -> list[str]:
    """Words and numbers ("99.9", "err-1004" → "err", "1004") minus function words."""
    found = _TOKEN.findall(_CITATION.sub(" ", text).casefold())
    return [t for t in found if t not in ALL_STOPWORDS and (len(t) > 1 or t.isdigit())]


@dataclass(frozen=True)
class Overlap:
    precision: float | None
    recall: float | None
    f1: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "precision": rounded(self.precision),
            "recall": rounded(self.recall),
            "f1": rounded(self.f1),
        }


def reference_overlap(answer: str, reference: str) -> Overlap:
    """Clipped unigram overlap of content tokens (ROUGE-1 precision, recall and F1)."""
    got, want = Counter(content_tokens(answer)), Counter(content_tokens(reference))
    shared = sum((got & want).values())
    precision = ratio(shared, sum(got.values()))
    recall = ratio(shared, sum(want.values()))
    both = precision is not None and recall is not None
    return Overlap(precision, recall, f1(precision, recall) if both else None)


def split_sentences(text: str) -> list[str]:
    """Sentences and lines; a citation right after the full stop stays with its sentence."""
    text = re.sub(
        r"([.!?…])\s*((?:\[\d+\]\s*)+)", lambda m: f" {m.group(2).strip()}{m.group(1)} ", text
    )
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


@dataclass(frozen=True)
class SentenceSupport:
    sentence: str
    cited: tuple[int, ...]  # the chunk numbers it cites
    support: float  # share of its content tokens found in those chunks
    grounded: bool


@dataclass(frozen=True)
class Groundedness:
    score: float | None  # share of citing sentences that their chunks support
    citation_coverage: float | None  # share of content sentences that cite something
    sentences: tuple[SentenceSupport, ...]

    @property
    def ungrounded(self) -> list[str]:
        return [s.sentence for s in self.sentences if not s.grounded]


def groundedness(
    answer: str, chunks: Mapping[int, str], *, share: float = GROUNDED_SHARE
) -> Groundedness:
    """Per-sentence support of `answer` by the chunks each sentence cites (`[n]` →
    `chunks[n]`; a citation to a chunk not in `chunks` supports nothing).

    Only sentences that cite are judged: a sentence without `[n]` claims no source
    (greetings, hedges, offers), and how much of the answer cites at all is reported
    as `citation_coverage`. Sentences without content tokens are left out of both.
    """
    judged: list[SentenceSupport] = []
    content_sentences = 0
    for sentence in split_sentences(answer):
        tokens = content_tokens(sentence)
        if not tokens:
            continue
        content_sentences += 1
        cited = tuple(sorted({int(n) for n in _CITATION.findall(sentence)}))
        if not cited:
            continue
        source = set(content_tokens(" ".join(chunks.get(n, "") for n in cited)))
        support = sum(1 for t in tokens if t in source) / len(tokens)
        judged.append(SentenceSupport(sentence, cited, support, support >= share))
    return Groundedness(
        score=ratio(sum(1 for j in judged if j.grounded), len(judged)),
        citation_coverage=ratio(len(judged), content_sentences),
        sentences=tuple(judged),
    )


def missing_phrases(answer: str, required: Sequence[str]) -> list[str]:
    """The required phrases (case-insensitive) the answer does not contain."""
    text = answer.casefold()
    return [phrase for phrase in required if phrase.casefold() not in text]


def forbidden_matches(answer: str, patterns: Sequence[str]) -> list[str]:
    """The forbidden regular expressions (case-insensitive) that match the answer."""
    return [p for p in patterns if re.search(p, answer, flags=re.IGNORECASE)]


def foreign_sentences(answer: str, language: str) -> list[str]:
    """Sentences of `answer` in another language than `language` (the visitor's); none when
    the answer says it quotes a page written only in another language."""
    if quotes_foreign_page(answer):
        return []
    foreign = []
    plain = _URL.sub(" ", re.sub(r"\s*\[\d+\]", "", answer))
    for sentence in split_sentences(plain):
        if len(_WORD.findall(sentence)) < FOREIGN_MIN_WORDS:
            continue
        if language_confidences(sentence).get(language, 0.0) <= FOREIGN_MAX_CONFIDENCE:
            foreign.append(sentence)
    return foreign

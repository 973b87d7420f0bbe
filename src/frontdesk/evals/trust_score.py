"""What the assistant did with each trust question, and the report's figures (pure).

Per question, from the turn's final state:
- `answered`: routing answered, partially_answered or low_confidence (as `eval sites`);
- `refused`: routing irrelevant or nonsense (the reply says "that's outside what I do");
- `abstained`: anything that presents no answer from the knowledge base — followup,
  cannot_answer, out_of_scope, a refusal or a handoff (`Outcome.abstained`);
- `grounded` (answered questions only): the answer cites, at least half of its citing
  sentences are supported by the passages they cite (`text_scores.groundedness`, the
  checker the answers suite uses), AND a citation points at the page the question came
  from. An answer from another page may be right, but the report cannot tell, so it
  does not count it; `cites_source` and `supported` are shown apart so the reader sees
  which condition failed.

Expected: a generated question answered and grounded, an unanswerable one abstained, an
off-topic one refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from frontdesk.evals import metrics as m
from frontdesk.evals.sites import ANSWERED_ROUTINGS, REFUSED_ROUTINGS
from frontdesk.evals.text_scores import groundedness
from frontdesk.evals.trust_questions import KINDS, TrustQuestion

MIN_SUPPORTED = 0.5  # as the answers suite: half of the citing sentences supported
EXAMPLES = 4  # per category and verdict
EXPECTED = {
    "generated": "answered and grounded",
    "unanswerable": "abstained",
    "off_topic": "refused",
}


@dataclass(frozen=True)
class TrustTurn:
    """What the graph did with one question."""

    question: TrustQuestion
    routing: str | None = None
    route: str | None = None
    answer: str = ""
    cited_doc_ids: tuple[str, ...] = ()
    chunks: Mapping[int, str] = field(default_factory=dict)
    handoff: str | None = None
    latency_ms: float = 0.0
    error: str | None = None

    @property
    def answered(self) -> bool:
        return not self.error and self.routing in ANSWERED_ROUTINGS

    @property
    def refused(self) -> bool:
        return not self.error and self.routing in REFUSED_ROUTINGS

    @property
    def abstained(self) -> bool:
        from frontdesk.evals.dataset import ABSTAIN_ROUTINGS

        if self.error:
            return False
        return self.routing in ABSTAIN_ROUTINGS or self.route == "HANDOFF"

    @property
    def cites_source(self) -> bool:
        return bool(self.question.doc_id) and self.question.doc_id in self.cited_doc_ids

    @property
    def support(self) -> float | None:
        return groundedness(self.answer, self.chunks).score

    @property
    def supported(self) -> bool:
        score = self.support
        return score is not None and score >= MIN_SUPPORTED

    @property
    def grounded(self) -> bool:
        return self.answered and self.cites_source and self.supported

    @property
    def outcome(self) -> str:
        if self.error:
            return "error"
        if self.answered:
            return "answered"
        if self.refused:
            return "refused"
        if self.abstained:
            return "abstained"
        return self.routing or "no reply"

    @property
    def met(self) -> bool:
        kind = self.question.kind
        if kind == "generated":
            return self.grounded
        if kind == "unanswerable":
            return self.abstained
        return self.refused

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.question.as_dict(),
            "expected": EXPECTED[self.question.kind],
            "outcome": self.outcome,
            "met": self.met,
            "routing": self.routing,
            "route": self.route,
            "grounded": self.grounded if self.question.kind == "generated" else None,
            "cites_source": self.cites_source if self.question.doc_id else None,
            "support": m.rounded(self.support),
            "cited_doc_ids": list(self.cited_doc_ids),
            "answer": self.answer[:600],
            "handoff": self.handoff,
            "latency_ms": round(self.latency_ms, 1),
            "error": self.error,
        }


def _share(flags: Sequence[bool]) -> float | None:
    return m.rounded(m.ratio(sum(flags), len(flags)))


def figures(turns: Sequence[TrustTurn]) -> dict[str, Any]:
    """The headline figures: each a share of its own category (None when it is empty)."""
    of = {kind: [t for t in turns if t.question.kind == kind] for kind in KINDS}
    generated, unanswerable, off_topic = of["generated"], of["unanswerable"], of["off_topic"]
    answered = [t for t in generated if t.answered]
    by_method: dict[str, dict[str, Any]] = {}
    for method in sorted({t.question.method for t in generated}):
        chosen = [t for t in generated if t.question.method == method]
        by_method[method] = {
            "questions": len(chosen),
            "answered": _share([t.answered for t in chosen]),
            "grounded": _share([t.grounded for t in chosen]),
        }
    latency = m.latency_summary(t.latency_ms for t in turns if not t.error)
    return {
        "questions": len(turns),
        "generated": len(generated),
        "unanswerable": len(unanswerable),
        "off_topic": len(off_topic),
        "errors": sum(1 for t in turns if t.error),
        "answered": _share([t.answered for t in generated]),
        "grounded": _share([t.grounded for t in generated]),
        # Of the answered: which part of "grounded" failed.
        "cites_source": _share([t.cites_source for t in answered]),
        "supported": _share([t.supported for t in answered]),
        "abstained": _share([t.abstained for t in unanswerable]),
        "unanswerable_answered": _share([t.answered for t in unanswerable]),
        "refused": _share([t.refused for t in off_topic]),
        "off_topic_answered": _share([t.answered for t in off_topic]),
        "by_method": by_method,
        **latency.as_dict(),
    }


def examples(turns: Sequence[TrustTurn], per_verdict: int = EXAMPLES) -> dict[str, Any]:
    """Per category: a few misses (first) and a few hits, expected vs what happened."""
    chosen: dict[str, Any] = {}
    for kind in KINDS:
        of_kind = [t for t in turns if t.question.kind == kind]
        misses = [t.as_dict() for t in of_kind if not t.met][:per_verdict]
        hits = [t.as_dict() for t in of_kind if t.met][:per_verdict]
        chosen[kind] = {
            "expected": EXPECTED[kind],
            "met": sum(1 for t in of_kind if t.met),
            "total": len(of_kind),
            "misses": misses,
            "hits": hits,
        }
    return chosen

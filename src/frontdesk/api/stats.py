"""Site statistics for operators, as a pure function of stored turns. The unanswered
questions are the content gaps, clustered by meaning (`frontdesk.improvement`), which the
stats route adds."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from frontdesk.api.schemas import QuestionCount, SiteStats

_PUNCTUATION = re.compile(r"[\s?!.,;:¿¡…]+$")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class TurnRow:
    """One stored turn: the visitor's question and how the assistant routed it."""

    question: str
    route: str | None
    routing: str | None


def normalise_question(text: str) -> str:
    return _PUNCTUATION.sub("", _SPACES.sub(" ", text.strip().lower()))


def _ranked(questions: Iterable[str], top: int) -> list[QuestionCount]:
    counts: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for question in questions:
        key = normalise_question(question)
        if not key:
            continue
        counts[key] += 1
        shown.setdefault(key, question.strip()[:300])
    return [QuestionCount(question=shown[key], count=n) for key, n in counts.most_common(top)]


def site_stats(site_id: str, conversations: int, turns: list[TurnRow], top: int = 10) -> SiteStats:
    asked = [turn for turn in turns if turn.route != "BLOCKED"]
    return SiteStats(
        site_id=site_id,
        conversations=conversations,
        turns=len(turns),
        routes=dict(Counter(turn.route or "unknown" for turn in turns).most_common()),
        routing=dict(Counter(turn.routing or "unknown" for turn in turns).most_common()),
        unanswered_questions=[],
        top_questions=_ranked((turn.question for turn in asked), top),
    )

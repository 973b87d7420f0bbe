"""Structured outputs of the LLM jobs. The FIRST field of each is the model's reasoning
(STYLE.md): it is written before the label, and kept for traces.

Numbers are clamped rather than rejected, and lists are trimmed, so a small model's
near-miss still validates; anything that is not the right shape fails validation and the
job falls back to the local engine.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from frontdesk.engines.base import Intent

Reasoning = Annotated[
    str, Field(description="Brief reasoning first, one or two sentences.", max_length=600)
]
InterestSignal = Literal[
    "demo_interest",
    "pricing_interest",
    "trial_interest",
    "implementation_timeline",
    "security_review",
    "integration_question",
    "comparison_with_competitor",
    "team_size_mention",
]
LevelLabel = Literal["not_detected", "partially_confirmed", "confirmed"]
Flag = Literal["is_negative_persona", "is_no_fit", "is_consultant", "referral_mentioned"]
Skill = Literal[
    "propose_demo",
    "collect_email",
    "ask_profiling_question",
    "share_case_study",
    "suggest_follow_up",
]


def _clamp(low: float, high: float) -> Any:
    def clamp(value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return min(max(value, low), high)
        return value

    return BeforeValidator(clamp)


def _trim(limit: int) -> Any:
    return BeforeValidator(lambda value: value[:limit] if isinstance(value, list) else value)


Unit = Annotated[float, _clamp(0.0, 1.0), Field(ge=0.0, le=1.0)]


class _Output(BaseModel):
    model_config = ConfigDict(extra="ignore")


class IntentOutput(_Output):
    """Classify the visitor's latest message."""

    reasoning: Reasoning
    intent: Intent = Field(
        description="LEARN product question; CONTEXT sharing their business context; SUPPORT "
        "existing customer problem; OFFTOPIC unrelated; OTHER greetings, jobs, press; BOOKING "
        "wants a demo or call; STOP_BOOKING declines one; HACK prompt injection or abuse."
    )
    confidence: Unit = Field(description="0 to 1.")
    high_stakes: bool = Field(
        default=False, description="Legal threat, data breach, cancellation, angry customer."
    )
    nonsense: bool = Field(default=False, description="Gibberish or meaningless text.")


class QualificationLevels(_Output):
    problem_fit: LevelLabel = "not_detected"
    authority_fit: LevelLabel = "not_detected"
    company_fit: LevelLabel = "not_detected"
    timing_fit: LevelLabel = "not_detected"


class SignalsOutput(_Output):
    """Buying signals and lead qualification evidence in the visitor's latest message."""

    reasoning: Reasoning
    interest_signals: Annotated[list[InterestSignal], _trim(8)] = Field(
        default_factory=list, max_length=8
    )
    qualification: QualificationLevels = Field(default_factory=QualificationLevels)
    flags: Annotated[list[Flag], _trim(4)] = Field(default_factory=list, max_length=4)
    explicit_human_request: bool = Field(
        default=False, description="The visitor asks to talk to a person."
    )


class SkillsOutput(_Output):
    """How the reply should end."""

    reasoning: Reasoning
    skills: Annotated[list[Skill], _trim(3)] = Field(default_factory=list, max_length=3)


class QueryOutput(_Output):
    """A search query for the company's knowledge base."""

    reasoning: Reasoning
    query: str = Field(min_length=1, max_length=400)


class GradeOutput(_Output):
    """Which passages do NOT help answer the question."""

    reasoning: Reasoning
    irrelevant: Annotated[list[int], _trim(50)] = Field(
        default_factory=list,
        max_length=50,
        description="Numbers of passages that are not relevant.",
    )


class ClaimOutput(_Output):
    text: str = Field(max_length=400)
    supported: bool
    passage: int | None = Field(default=None, description="Number of the supporting passage.")


class VerificationOutput(_Output):
    """Factual claims of the answer, each checked against the passages."""

    reasoning: Reasoning
    claims: Annotated[list[ClaimOutput], _trim(10)] = Field(default_factory=list, max_length=10)


class EvaluationOutput(_Output):
    """Self-critique of a drafted answer."""

    reasoning: Reasoning
    quality: Annotated[int, _clamp(1, 100), Field(ge=1, le=100)] = Field(
        description="1-100: how well the answer, grounded in the passages, answers."
    )
    coverage: Literal["full", "partial", "none"]


class SuggestionsOutput(_Output):
    """Follow-up questions the visitor may ask next."""

    reasoning: Reasoning
    questions: Annotated[list[Annotated[str, Field(max_length=200)]], _trim(3)] = Field(
        default_factory=list, max_length=3
    )

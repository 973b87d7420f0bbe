"""Deterministic routing: every decision of a turn as a pure function of state (no models).

Seed 000 routing table (ANSWER / REDIRECT / BOOKING, PAUSE / EXIT / STAY mid-booking),
seed 004 score_router (explicit request > hot lead) and seed 003 routing values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from frontdesk.conversation.payload import Routing  # the widget renders by this vocabulary

Route = Literal["ANSWER", "REDIRECT", "BOOKING", "HANDOFF"]
RedirectReason = Literal["hack", "offtopic", "other", "nonsense", "stop_booking", "support"]
HandoffReason = Literal["explicit_request", "hot_lead", "stall", "high_stakes", "llm_failure"]
BookingStatus = Literal["idle", "collecting", "booked", "declined"]

ANSWERABLE_INTENTS = frozenset({"LEARN", "CONTEXT", "SUPPORT"})
# A short reply to a 👉 question ("about 200 people") is read as its answer, whatever
# the classifier makes of it, unless it is support, a booking move or an attack.
PROFILING_ANSWER_INTENTS = frozenset({"LEARN", "CONTEXT", "OTHER", "OFFTOPIC"})


@dataclass(frozen=True)
class RouteInput:
    intent: str
    high_stakes: bool = False
    nonsense: bool = False
    explicit_human_request: bool = False
    hot_lead: bool = False
    proposals_issued: int = 0
    interest_score: float = 0.0
    interest_threshold: float = 0.7
    booking_status: BookingStatus = "idle"
    message_has_email: bool = False
    # Seed 004 stall path: the previous reply was a stall offer ("leave your email").
    stall_offer_pending: bool = False
    # Seed 000 content gating: the previous reply asked for an email (💌).
    email_asked_last_turn: bool = False
    # Seed 000/002 profiling: the previous reply asked a 👉 question and this is no question.
    profiling_answer: bool = False
    # Post-conversion: after a booking, the visitor asks about it (answered from state).
    booking_question: bool = False
    # Seed 004 Stage 3: the previous reply proposed a person (hot lead, explicit request…)
    # and this message accepts ("yes, please") or leaves an email.
    handoff_offer_pending: bool = False
    affirmative: bool = False
    # The previous reply proposed a demo (👇): "not now" declines it.
    demo_proposed_last_turn: bool = False


@dataclass(frozen=True)
class RouteDecision:
    route: Route
    reason: str
    hack: bool = False  # increments hack_count
    booking_status: BookingStatus | None = None  # a change of the booking flow, if any


def decide_route(inp: RouteInput) -> RouteDecision:
    """The intent router. Order matters: abuse, then people, then the booking flow."""
    if inp.intent == "HACK":
        return RouteDecision("REDIRECT", "hack", hack=True)
    if inp.explicit_human_request:
        return RouteDecision("HANDOFF", "explicit_request")
    if inp.high_stakes:
        return RouteDecision("HANDOFF", "high_stakes")
    if inp.stall_offer_pending and inp.message_has_email:
        return RouteDecision("HANDOFF", "stall_accepted")  # the stall offer became a lead
    if inp.handoff_offer_pending and (inp.message_has_email or inp.affirmative):
        return RouteDecision("HANDOFF", "handoff_accepted")
    if inp.booking_status == "collecting":
        return _mid_booking(inp)
    if inp.booking_status == "booked" and (inp.booking_question or inp.intent == "BOOKING"):
        return RouteDecision("BOOKING", "post_conversion", booking_status="booked")
    if inp.intent == "BOOKING":
        return RouteDecision("BOOKING", "booking_requested", booking_status=_start(inp))
    if inp.hot_lead and inp.proposals_issued == 0 and inp.booking_status != "booked":
        # After a booking (post-conversion) the demo is not proposed again.
        return RouteDecision("HANDOFF", "hot_lead")
    if inp.email_asked_last_turn and inp.message_has_email and inp.intent != "HACK":
        return RouteDecision("BOOKING", "content_gating_email")
    if inp.profiling_answer and inp.intent in PROFILING_ANSWER_INTENTS:
        return RouteDecision("BOOKING", "profiling_answer")
    if inp.nonsense:
        return RouteDecision("REDIRECT", "nonsense")
    if inp.intent == "STOP_BOOKING":
        # Nothing to stop unless a demo was booked or just offered; else it is small talk.
        offered = inp.booking_status == "booked" or inp.demo_proposed_last_turn
        reason = "stop_booking" if offered else "other"
        return RouteDecision("REDIRECT", reason)
    if (
        inp.intent == "CONTEXT"
        and inp.interest_score >= inp.interest_threshold
        and inp.booking_status == "idle"
    ):
        # A visitor describing their needs with strong interest gets the demo offer.
        return RouteDecision("BOOKING", "interest_threshold", booking_status="collecting")
    if inp.intent in ANSWERABLE_INTENTS:
        return RouteDecision("ANSWER", inp.intent.lower())
    if inp.intent == "OFFTOPIC":
        return RouteDecision("REDIRECT", "offtopic")
    if inp.intent in ("OTHER", "BOOKING"):
        return RouteDecision("REDIRECT", "other")
    raise ValueError(f"unknown intent {inp.intent!r}")


def _start(inp: RouteInput) -> BookingStatus:
    # After a booking (post-conversion) asking again shows the booking, not a new flow.
    return "booked" if inp.booking_status == "booked" else "collecting"


def _mid_booking(inp: RouteInput) -> RouteDecision:
    """While we are collecting booking details: STAY, PAUSE or EXIT (seed 000)."""
    if inp.intent == "STOP_BOOKING":
        return RouteDecision("REDIRECT", "stop_booking", booking_status="declined")
    if inp.message_has_email or inp.intent in ("BOOKING", "CONTEXT", "OTHER"):
        return RouteDecision("BOOKING", "booking_field_answer")  # STAY
    if inp.intent in ("LEARN", "SUPPORT"):
        return RouteDecision("ANSWER", "paused_booking")  # PAUSE: answer, keep the flow
    return RouteDecision("REDIRECT", "exit_booking", booking_status="idle")  # EXIT


def redirect_reason(reason: str) -> RedirectReason:
    mapping: dict[str, RedirectReason] = {
        "hack": "hack",
        "offtopic": "offtopic",
        "nonsense": "nonsense",
        "stop_booking": "stop_booking",
        "exit_booking": "offtopic",
        "other": "other",
        "support": "support",
    }
    return mapping.get(reason, "other")


def redirect_routing(reason: RedirectReason) -> Routing:
    """Seed 003 value of a redirect: none of them pretends to answer."""
    if reason == "hack":
        return "out_of_scope"
    if reason == "nonsense":
        return "nonsense"
    if reason == "support":
        return "out_of_scope"
    if reason == "stop_booking":
        return "answered"
    return "irrelevant"


def handoff_routing(reason: HandoffReason) -> Routing:
    if reason == "high_stakes":
        return "high_stakes"
    if reason == "llm_failure":
        return "cannot_answer"
    if reason == "hot_lead":
        return "answered"
    return "out_of_scope"


GateOutcome = Literal["answer_writer", "retry_retrieval", "clarify_handler"]


def relevance_gate(*, relevant_chunks: int, retries: int, max_retries: int) -> GateOutcome:
    """Nothing relevant: try a rewritten query once, then ask a clarifying question."""
    if relevant_chunks > 0:
        return "answer_writer"
    if retries < max_retries:
        return "retry_retrieval"
    return "clarify_handler"


def is_low_confidence(top_score: float | None, threshold: float, margin: float = 0.05) -> bool:
    """Seed 003 confidence gate: relevant, but not enough to cite with confidence."""
    return top_score is None or top_score < threshold + margin


AfterAnswer = Literal["auto", "human", "error"]


def route_after_answer(*, coverage: str, answer: str, factuality: float) -> AfterAnswer:
    """Seed 001 route_or_retry, after the answer is out: keep it, or offer a human."""
    if not answer.strip():
        return "error"
    if coverage == "none" or factuality < 0.5:
        return "human"
    return "auto"


def answer_routing(*, coverage: str, low_confidence: bool, after: AfterAnswer) -> Routing:
    if after != "auto":
        return "cannot_answer"
    if low_confidence:
        return "low_confidence"
    if coverage == "partial":
        return "partially_answered"
    return "answered"

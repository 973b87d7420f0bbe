"""`ChatState`: what a conversation remembers between turns, typed sub-states with their
reducers beside them, and the accessors every node reads them through.

Custom reducers keep qualification monotonic.
Sub-states are `TypedDict`s: plain dicts at run time, so checkpoints stay JSON-like and
readable by any LangGraph version, typed for the code that reads them. Everything here
is checkpointed per thread (site:session); per-run facts (site config, engines,
background tasks) travel in `TurnContext` instead.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from frontdesk.engines.base import Intent as IntentLabel
from frontdesk.facts.model import FactKind
from frontdesk.guard.visitor_text import clean_fields
from frontdesk.knowledge.search.acts import Act
from frontdesk.leads.qualification import CONFIDENCE_RANK, DIMENSIONS, QualificationState

Route = Literal["ANSWER", "REDIRECT", "BOOKING", "HANDOFF"]
BookingStatus = Literal["idle", "collecting", "booked", "declined"]

# Visitor-supplied values (enrichment fields, answers to configured form fields): their
# keys are the site's own, so these stay open dicts. Their reducers clean every string
# (`guard.visitor_text.clean_fields`: one line, no control characters or markup, bounded)
# so nothing a visitor typed reaches a profile, a prompt or a handoff raw.
VisitorProfile = dict[str, Any]
FormValues = dict[str, str]


# --- sub-states -----------------------------------------------------------------------


class TeamRecall(TypedDict):
    """What a team member said during a live takeover, asked about by name this turn."""

    name: str
    text: str


class FactReply(TypedDict):
    """The site's facts that answer this turn's question (`nodes/facts.py`): their kind,
    the weekdays asked about, and the facts (`SiteFact` as a dict)."""

    kind: FactKind
    days: list[int]
    facts: list[dict[str, Any]]
    # Dates named relative to today ("heute", "tomorrow"), as `facts.answer.DateAsked`
    # dicts (ISO date, holiday name, closure) on the site's wall clock.
    dates: NotRequired[list[dict[str, Any]]]
    # [month, day] of each date or month the question names that the page states an
    # exception for (day 0: the whole month).
    on: NotRequired[list[list[int]]]


class Intent(TypedDict, total=False):
    label: IntentLabel
    confidence: float
    high_stakes: bool
    nonsense: bool
    reasoning: str
    # The conversation act the message is on its own (greeting, thanks, an address...), or
    # None: the kind of message, never whether it is about this business.
    act: Act | None


class InterestSignals(TypedDict, total=False):
    score: float
    current: list[str]
    history: list[str]


class Qualification(TypedDict, total=False):
    """`QualificationState` as JSON; read it back with `qualification_of`."""

    problem_fit: str
    authority_fit: str
    company_fit: str
    timing_fit: str
    is_negative_persona: bool
    is_no_fit: bool
    is_consultant: bool
    referral_mentioned: bool
    explicit_human_request: bool
    signals_observed: list[dict[str, Any]]


class DialogSupervision(TypedDict, total=False):
    """What the assistant's replies asked (emoji markers, `conversation/markers.py`)."""

    profiling_asked_last_turn: bool
    demo_was_proposed_last_turn: bool
    email_asked_last_turn: bool
    email_captured_last_turn: bool
    profiling_field_id: str | None
    profiling_ask_turn: int
    demo_proposed_turn: int
    content_gating_ask_turn: int
    email_captured_turn: int
    profiling_question: str
    captured_email: str
    profiling_questions_asked: int
    profiling_field_by_turn: dict[str, str]
    ever_asked_profiling: bool
    ever_proposed_demo: bool
    ever_asked_email: bool
    ever_captured_email: bool


class FormCollection(TypedDict, total=False):
    collected_values: FormValues
    last_turn: int
    last_extraction_turn: int


class Progress(TypedDict, total=False):
    """Stage 3 bookkeeping, and the offers a next message may accept."""

    stage: Literal[1, 2, 3]
    turn_counter: int
    stage3_proposals_issued: int
    stall_offer_turn: int | None
    handoff_offer_turn: int | None
    handoff_offer_reason: str | None
    # False: the offer was not delivered to the team yet (it is on acceptance).
    handoff_offer_notified: bool
    # A handoff asked the visitor how the team can reach them (`outcomes.handoff_contact_step`):
    # the handoff itself (it waits as `awaiting_contact`, `handoff.outbox`), the turn that asked
    # and whether the question was asked a second time.
    contact_handoff: Handoff | None
    contact_ask_turn: int | None
    contact_asked_again: bool


class SkillSelection(TypedDict, total=False):
    skills: list[str]
    reasoning: str


class AppointmentState(TypedDict, total=False):
    """An appointment in the team's calendar: slots offered, the one chosen, the booking."""

    phase: Literal["offered", "contact", "booked", "failed"]
    kind: str
    offered: list[dict[str, str]]  # label, start, end (ISO, UTC)
    chosen: dict[str, str]
    uid: str
    start: str
    label: str
    name: str
    email: str
    phone: str  # when the site asks for one (`calendar.ask_phone`)
    wish: str
    language: str


class Booking(TypedDict, total=False):
    status: BookingStatus
    email: str
    asked_email: bool
    booked_turn: int
    appointment: AppointmentState


class Claim(TypedDict):
    text: str
    supported: bool
    support: float


class Verification(TypedDict):
    claims: list[Claim]
    factuality_score: float


class Evaluation(TypedDict):
    quality: float
    relevance: float
    coverage: str
    reasoning: str
    after: Literal["auto", "human", "error"]


class TeamMatch(TypedDict):
    """How near the team's own questions are to this turn's question (`grade_docs`): per
    team answer in the visitor's language, the best cosine of one of its questions, and
    the bar of the site's embedding model (None: no bar measured for it)."""

    similarity: dict[str, float]  # team answer document id → cosine
    bar: float | None


class SiteSupport(TypedDict):
    """How well the site's own content supports this turn's message (`site_support_check`)."""

    score: float | None  # the best cosine of the turn's search
    threshold: float  # the site's bar (`knowledge/search/topic.py`)
    lexical: float  # share of the question's content words in one of the best passages
    supported: bool
    # Both signals at once: the cosine at the site's bar and most of the words in a
    # passage — what a conversation-act label (OTHER, BOOKING...) needs to be overruled.
    strong: NotRequired[bool]
    # Cosine of the message with its nearest shipped everyday request, and the bar at which
    # it reads as one (`knowledge/search/everyday.py`); None: no such signal for the site's model.
    everyday: NotRequired[float | None]
    everyday_bar: NotRequired[float | None]
    # The kind of fact the message asks for ("Where are you?"): a question about the
    # business itself (`facts.answer.asked_kind`); None when it asks for none.
    fact: NotRequired[str | None]
    # Cosine of the message with its nearest question any business is asked (`kinds.yaml`,
    # small talk aside); None: not read (no margins for the model, or an everyday request).
    business: NotRequired[float | None]


ContactStatus = Literal["provided", "asked", "declined"]


class Handoff(TypedDict):
    reason: str
    status: Literal["proposed", "accepted"]
    business_hours: bool
    lead_level: str
    triggered_at: str
    notify: bool  # a stall proposal only becomes a lead when accepted
    # How the team can reach the visitor: a contact is known ("provided"), the reply asked
    # for one ("asked"), or the visitor declined to leave one. Absent: read from the profile.
    contact: NotRequired[ContactStatus]
    # Seconds the team's copy waits for the visitor's answer (asked, nobody live).
    hold_s: NotRequired[float]
    # The (graph) turn that asked for the contact: this handoff completes the one that
    # waits for it (`handoff.outbox.complete_handoff`), sent with the answer.
    completes_turn: NotRequired[int]


class LeadCapture(TypedDict, total=False):
    capture_context: str
    email: str
    # A booked appointment or the time asked for, for the team (lead details, webhooks).
    appointment: dict[str, str]


class CallToAction(TypedDict):
    label: str
    url: str


# --- reducers -------------------------------------------------------------------------


def merge_visitor_profile(
    current: VisitorProfile | None, update: VisitorProfile | None
) -> VisitorProfile:
    """Known values win over unknown ones; a new known value replaces an old one."""
    merged = dict(current or {})
    for key, value in clean_fields(update or {}).items():
        if value in (None, "", "unknown") and merged.get(key) not in (None, "", "unknown"):
            continue
        merged[key] = value
    return merged


def merge_dialog_supervision(
    current: DialogSupervision | None, update: DialogSupervision | None
) -> DialogSupervision:
    """`ever_*` flags are cumulative (once True, always True); other keys are the latest turn."""
    merged: dict[str, Any] = dict(current or {})
    for key, value in (update or {}).items():
        if key.startswith("ever_"):
            merged[key] = bool(merged.get(key)) or bool(value)
        else:
            merged[key] = value
    return merged  # type: ignore[return-value]


def merge_form_collection(
    current: FormCollection | None, update: FormCollection | None
) -> FormCollection:
    """Collected values accumulate; `last_turn` keeps the highest turn seen."""
    upd = update or {}
    merged: dict[str, Any] = {**(current or {})}
    merged.update({k: v for k, v in upd.items() if k not in ("collected_values", "last_turn")})
    values = {
        **merged.get("collected_values", {}),
        **clean_fields(upd.get("collected_values") or {}),
    }
    merged["collected_values"] = values
    merged["last_turn"] = max(int(merged.get("last_turn", -1)), upd.get("last_turn", -1))
    return merged  # type: ignore[return-value]


def merge_qualification(
    current: Qualification | None, update: Qualification | None
) -> Qualification:
    """Dimensions only move up; flags stay set; the signal log appends.

    The node computes the authoritative new state with `leads.qualification.apply_delta`;
    this reducer is the safety net that keeps a stale or parallel write from downgrading.
    """
    merged: dict[str, Any] = dict(current or {})
    for key, value in (update or {}).items():
        if key in DIMENSIONS:
            old = merged.get(key, "not_detected")
            if CONFIDENCE_RANK[value] >= CONFIDENCE_RANK[old]:  # type: ignore[index]
                merged[key] = value
        elif key == "signals_observed":
            merged[key] = list(value)  # type: ignore[call-overload]
        elif key == "explicit_human_request":
            merged[key] = bool(value)  # latest turn only
        elif isinstance(value, bool):
            merged[key] = bool(merged.get(key)) or value
        else:
            merged[key] = value
    return merged  # type: ignore[return-value]


def append_items(current: list[str] | None, update: list[str] | None) -> list[str]:
    return [*(current or []), *(update or [])]


# --- state ----------------------------------------------------------------------------


class ChatState(TypedDict):
    # conversation
    messages: Annotated[list[AnyMessage], add_messages]
    input: str
    language: NotRequired[str]
    turn_number: NotRequired[int]  # assistant turns completed before this one (0-indexed)

    # visitor and lead (kept across turns)
    visitor_profile: NotRequired[Annotated[VisitorProfile, merge_visitor_profile]]
    dialog_supervision: NotRequired[Annotated[DialogSupervision, merge_dialog_supervision]]
    interest_signals: NotRequired[InterestSignals]  # replaced each turn (decay is the node's)
    form_collection: NotRequired[Annotated[FormCollection, merge_form_collection]]
    qualification: NotRequired[Annotated[Qualification, merge_qualification]]
    progress: NotRequired[Progress]
    skill_selection: NotRequired[SkillSelection]
    booking: NotRequired[Booking]

    # understanding and routing (the router state of this turn)
    intent: NotRequired[Intent]
    intent_history: NotRequired[Annotated[list[str], append_items]]
    route: NotRequired[Route | None]
    route_reason: NotRequired[str | None]
    site_support: NotRequired[SiteSupport | None]  # this turn only, when it was checked

    # answer path (this turn only: reset by `TURN_RESET`)
    search_query: NotRequired[str | None]
    retrieval: NotRequired[dict[str, Any] | None]  # RetrievalResult.model_dump(mode="json")
    graded_chunks: NotRequired[list[dict[str, Any]]]  # RetrievedChunk dumps, citation order
    fact_reply: NotRequired[FactReply | None]
    team_match: NotRequired[TeamMatch | None]
    team_recall: NotRequired[TeamRecall | None]
    answer: NotRequired[str]
    citations: NotRequired[list[dict[str, Any]]]
    verification: NotRequired[Verification | None]
    evaluation: NotRequired[Evaluation | None]
    retries: NotRequired[int]
    routing: NotRequired[str | None]  # routing value
    low_confidence: NotRequired[bool]
    writer_failed: NotRequired[bool]
    handoff: NotRequired[Handoff | None]
    lead_capture: NotRequired[LeadCapture | None]  # email captured this turn
    stall: NotRequired[bool]

    # post-processing
    suggested_follow_ups: NotRequired[list[str]]
    suggested_answers: NotRequired[list[str]]
    cta: NotRequired[CallToAction | None]
    cta_url_overrides: NotRequired[dict[str, str]]

    # live takeover: who owns the conversation this turn (set by the service from the
    # store: bot, waiting, human, closed) and the event id of a message relayed to a person
    live_owner: NotRequired[str]
    relayed: NotRequired[int | None]

    # abuse counters, kept across turns; `block` is this turn's (hack|spam|length)
    block: NotRequired[str | None]
    hack_count: NotRequired[int]  # confident attacks in the block window (guard/abuse.py)
    last_hack_at: NotRequired[float]  # epoch seconds of the last one
    spam_count: NotRequired[int]
    last_input: NotRequired[str]


# --- accessors: one place for defaults and derived values -----------------------------


def turn_of(state: ChatState) -> int:
    """This turn's index: assistant replies completed before it."""
    return int(state.get("turn_number") or 0)


def intent_of(state: ChatState) -> Intent:
    return state.get("intent") or Intent()


def interest_of(state: ChatState) -> InterestSignals:
    return state.get("interest_signals") or InterestSignals()


def interest_score(state: ChatState) -> float:
    return float(interest_of(state).get("score", 0.0))


def qualification_of(state: ChatState) -> QualificationState:
    return QualificationState.model_validate(state.get("qualification") or {})


def dialog_of(state: ChatState) -> DialogSupervision:
    return state.get("dialog_supervision") or DialogSupervision()


def forms_of(state: ChatState) -> FormCollection:
    return state.get("form_collection") or FormCollection()


def collected_values(state: ChatState) -> FormValues:
    return dict(forms_of(state).get("collected_values") or {})


def progress_of(state: ChatState) -> Progress:
    return state.get("progress") or Progress()


def booking_of(state: ChatState) -> Booking:
    return state.get("booking") or Booking()


def skills_of(state: ChatState) -> tuple[str, ...]:
    return tuple((state.get("skill_selection") or SkillSelection()).get("skills", ()))


def visitor_email(state: ChatState) -> str | None:
    email = (state.get("visitor_profile") or {}).get("email")
    return str(email) if email else None


def visitor_phone(state: ChatState) -> str | None:
    phone = (state.get("visitor_profile") or {}).get("phone")
    return str(phone) if phone else None

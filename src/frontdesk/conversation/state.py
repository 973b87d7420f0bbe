"""`ChatState`: what a conversation remembers between turns, its typed sub-states
(`conversation/substates.py`) with their reducers beside them (`conversation/reducers.py`),
and the accessors every node reads them through.

Everything here is checkpointed per thread (site:session); per-run facts (site config,
engines, background tasks) travel in `TurnContext` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, TypedDict

from langchain_core.messages import AnyMessage, RemoveMessage
from langgraph.graph.message import add_messages

from frontdesk.conversation.reducers import (
    append_items,
    merge_dialog_supervision,
    merge_form_collection,
    merge_qualification,
    merge_visitor_profile,
)
from frontdesk.conversation.substates import (
    AppointmentState,
    Booking,
    CallToAction,
    ChunkDump,
    CitationDump,
    DialogSupervision,
    Evaluation,
    FactReply,
    FormCollection,
    FormValues,
    Handoff,
    Intent,
    InterestSignals,
    LeadCapture,
    Progress,
    Qualification,
    RetrievalDump,
    SiteSupport,
    SkillSelection,
    TeamMatch,
    TeamRecall,
    Verification,
    VisitorProfile,
)
from frontdesk.conversation.vocabulary import Block, LiveOwner, Route, RouteReason, Routing
from frontdesk.leads.qualification import QualificationState

# --- state ----------------------------------------------------------------------------


class ChatFields(TypedDict, total=False):
    """Every field of the conversation but its messages and input, each optional."""

    # conversation
    language: str
    turn_number: int  # assistant turns completed before this one (0-indexed)

    # visitor and lead (kept across turns)
    visitor_profile: Annotated[VisitorProfile, merge_visitor_profile]
    dialog_supervision: Annotated[DialogSupervision, merge_dialog_supervision]
    interest_signals: InterestSignals  # replaced each turn (decay is the node's)
    form_collection: Annotated[FormCollection, merge_form_collection]
    qualification: Annotated[Qualification, merge_qualification]
    progress: Progress
    skill_selection: SkillSelection
    booking: Booking

    # understanding and routing (the router state of this turn)
    intent: Intent
    intent_history: Annotated[list[str], append_items]
    route: Route | None
    route_reason: RouteReason | None
    site_support: SiteSupport | None  # this turn only, when it was checked

    # answer path (this turn only: reset by `TURN_RESET`)
    search_query: str | None
    retrieval: RetrievalDump | None
    graded_chunks: list[ChunkDump]  # in citation order
    fact_reply: FactReply | None
    team_match: TeamMatch | None
    team_recall: TeamRecall | None
    answer: str
    citations: list[CitationDump]
    verification: Verification | None
    evaluation: Evaluation | None
    retries: int
    routing: Routing | None
    low_confidence: bool
    writer_failed: bool
    handoff: Handoff | None
    lead_capture: LeadCapture | None  # email captured this turn
    stall: bool

    # post-processing
    suggested_follow_ups: list[str]
    suggested_answers: list[str]
    cta: CallToAction | None
    cta_url_overrides: dict[str, str]

    # live takeover: who owns the conversation this turn (set by the service from the
    # store: bot, waiting, human, closed) and the event id of a message relayed to a person
    live_owner: LiveOwner
    relayed: int | None

    # abuse counters, kept across turns; `block` is this turn's (hack|spam|length)
    block: Block | None
    hack_count: int  # confident attacks in the block window (guard/abuse.py)
    last_hack_at: float  # epoch seconds of the last one
    spam_count: int
    last_input: str


class ChatState(ChatFields):
    """The graph's state: the conversation's messages and this turn's input, required."""

    messages: Annotated[list[AnyMessage], add_messages]
    input: str


class ChatUpdate(ChatFields, total=False):
    """What a node writes: only the fields it changes (the reducers merge them)."""

    messages: Sequence[AnyMessage | RemoveMessage]  # appended (`add_messages`)
    input: str


# The state as a turn leaves the graph, read by the service, persistence and the spool:
# every field optional, since a turn that failed early carries few.
TurnValues = ChatUpdate


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


def qualification_flags(state: ChatState) -> Qualification:
    """The qualification as stored, without validating it (`qualification_of` does)."""
    return state.get("qualification") or Qualification()


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


def appointment_of(state: ChatState) -> AppointmentState:
    """The appointment being booked or booked (empty: none)."""
    return booking_of(state).get("appointment") or AppointmentState()


def skill_selection_of(state: ChatState) -> SkillSelection:
    return state.get("skill_selection") or SkillSelection()


def skills_of(state: ChatState) -> tuple[str, ...]:
    return tuple(skill_selection_of(state).get("skills", ()))


def visitor_email(state: ChatState) -> str | None:
    email = (state.get("visitor_profile") or {}).get("email")
    return str(email) if email else None


def visitor_phone(state: ChatState) -> str | None:
    phone = (state.get("visitor_profile") or {}).get("phone")
    return str(phone) if phone else None

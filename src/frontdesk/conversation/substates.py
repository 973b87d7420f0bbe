"""The typed sub-states of `ChatState`: what each part of the conversation remembers.

Sub-states are `TypedDict`s: plain dicts at run time, so checkpoints stay JSON-like and
readable by any LangGraph version, typed for the code that reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NotRequired, TypedDict, cast

from frontdesk.conversation.vocabulary import BookingStatus, ContactStatus
from frontdesk.engines.base import Intent as IntentLabel
from frontdesk.facts.model import FactKind, FactOrigin, PageRegion
from frontdesk.knowledge.models import RetrievalResult, RetrievalStatus, RetrievedChunk
from frontdesk.knowledge.search.acts import Act
from frontdesk.leads.qualification import ConfidenceLevel, Dimension, SignalType

# Visitor-supplied values (enrichment fields, answers to configured form fields): their
# keys are the site's own, so these stay open dicts. Their reducers clean every string
# (`guard.visitor_text.clean_fields`: one line, no control characters or markup, bounded)
# so nothing a visitor typed reaches a profile, a prompt or a handoff raw.
VisitorProfile = dict[str, Any]
FormValues = dict[str, str]


class TeamRecall(TypedDict):
    """What a team member said during a live takeover, asked about by name this turn."""

    name: str
    text: str


class SiteFactDump(TypedDict):
    """`facts.model.SiteFact` as a dict (`dataclasses.asdict`)."""

    kind: FactKind
    value: str
    origin: FactOrigin
    position: int
    region: PageRegion
    label: str
    weekday: int | None
    # (opens, closes) pairs: tuples as written, lists once the checkpoint stored them.
    ranges: Sequence[Sequence[str]]
    note: str
    amount: str
    currency: str
    doc_id: str
    url: str
    title: str
    author: str
    corrected_at: str
    corrects: str


class DateDump(TypedDict):
    """`facts.answer.DateAsked` as a dict, its day an ISO date."""

    offset: int
    day: str
    holiday: str
    closed: bool


class FactReply(TypedDict):
    """The site's facts that answer this turn's question (`nodes/facts.py`): their kind,
    the weekdays asked about, and the facts."""

    kind: FactKind
    days: list[int]
    facts: list[SiteFactDump]
    # Dates named relative to today ("heute", "tomorrow") on the site's wall clock, with
    # what the site file says of them (a public holiday's name, a closure).
    dates: NotRequired[list[DateDump]]
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


class SignalDump(TypedDict):
    """`leads.qualification.SignalEntry` as JSON: one entry of the signal log."""

    dimension: Dimension
    level: Literal["partially_confirmed", "confirmed"]
    signal_type: SignalType
    evidence: str
    turn_index: int


class Qualification(TypedDict, total=False):
    """`QualificationState` as JSON; read it back with `qualification_of`."""

    problem_fit: ConfidenceLevel
    authority_fit: ConfidenceLevel
    company_fit: ConfidenceLevel
    timing_fit: ConfidenceLevel
    is_negative_persona: bool
    is_no_fit: bool
    is_consultant: bool
    referral_mentioned: bool
    explicit_human_request: bool
    signals_observed: list[SignalDump]


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
    threshold: float  # the site's bar (`knowledge/topic.py`)
    lexical: float  # share of the question's content words in one of the best passages
    supported: bool
    # Both signals at once: the cosine at the site's bar and most of the words in a
    # passage — what a conversation-act label (OTHER, BOOKING...) needs to be overruled.
    strong: NotRequired[bool]
    # Cosine of the message with its nearest shipped everyday request, and the bar at which
    # it reads as one (`knowledge/everyday.py`); None: no such signal for the site's model.
    everyday: NotRequired[float | None]
    everyday_bar: NotRequired[float | None]
    # The kind of fact the message asks for ("Where are you?"): a question about the
    # business itself (`facts.answer.asked_kind`); None when it asks for none.
    fact: NotRequired[str | None]
    # Cosine of the message with its nearest question any business is asked (`kinds.yaml`,
    # small talk aside); None: not read (no margins for the model, or an everyday request).
    business: NotRequired[float | None]


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


# --- passages as the state keeps them -------------------------------------------------
# The checkpoint keeps `model_dump(mode="json")` of the knowledge models: plain JSON that
# any version reads back (`RetrievedChunk.model_validate`). Fields added to a model later
# are NotRequired here: a checkpoint written before them still loads.


class ChunkDump(TypedDict):
    """`RetrievedChunk` as JSON."""

    chunk_id: str
    doc_id: str
    title: str
    url: str
    content: str
    score: float
    source: str
    chunk_index: int
    heading_path: NotRequired[list[str]]
    rank_score: NotRequired[float]
    cosine: NotRequired[float | None]
    language: NotRequired[str | None]


class RetrievalDump(TypedDict):
    """`RetrievalResult` as JSON."""

    status: RetrievalStatus
    chunks: NotRequired[list[ChunkDump]]
    reason: NotRequired[str | None]
    top_score: NotRequired[float | None]
    threshold: NotRequired[float | None]
    proactive_case_study: NotRequired[bool]


class CitationDump(TypedDict):
    """A passage `[n]` cites (`nodes/citations.citations_of`), as `payload.Citation` reads
    it; `language` and `translated` when the reply's language was given."""

    index: int
    doc_id: str
    title: str
    url: str
    excerpt: str
    chunk_id: str
    language: NotRequired[str]
    translated: NotRequired[bool]


def chunk_dump(chunk: RetrievedChunk) -> ChunkDump:
    return cast(ChunkDump, chunk.model_dump(mode="json"))


def retrieval_dump(result: RetrievalResult) -> RetrievalDump:
    return cast(RetrievalDump, result.model_dump(mode="json"))

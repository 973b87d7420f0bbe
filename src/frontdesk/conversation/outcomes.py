"""What a route leads to, as pure functions (no models, no I/O): which booking flow and
appointment step runs, the routing value of a redirect or a handoff, whether the site's
own content supports a message, which team answer is given word for word, how an answer
is routed once written, whether a handoff rings the operators online, and what to do
with the visitor's contact. The graph's routers (`routes.py`) and nodes call these."""

from __future__ import annotations

from typing import Literal, cast, get_args

from frontdesk.conversation.route_table import ACT_REASONS
from frontdesk.conversation.state import ChatState
from frontdesk.conversation.substates import TeamMatch
from frontdesk.conversation.vocabulary import ContactReply, HandoffReason, RedirectReason, Routing
from frontdesk.improvement.team_answers import is_team_document, team_language
from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk

AppointmentPhase = Literal["offered", "contact", "booked", "failed"]


BookingFlow = Literal["profiling", "gating", "appointment", "email"]


def booking_flow(reason: str | None, *, has_calendar: bool, phase: str | None) -> BookingFlow:
    """Which booking the BOOKING route runs: a profiling answer, a content-gating e-mail,
    an appointment in the site's calendar, or the e-mail capture (link mode, and a
    calendar that failed this conversation: the team confirms by e-mail)."""
    if reason == "profiling_answer":
        return "profiling"
    if reason == "content_gating_email":
        return "gating"
    if has_calendar and phase != "failed":
        return "appointment"
    return "email"


AppointmentStep = Literal["offer", "ask_contact", "book", "cancel", "move", "status"]


def appointment_step(
    reason: str | None,
    *,
    phase: str | None,
    picked: bool,
    has_contact: bool,
    names_time: bool,
    moving: bool,
) -> AppointmentStep:
    """The next step of an appointment in the chat (`nodes/appointments.py`)."""
    if reason == "appointment_cancel":
        return "cancel" if phase == "booked" else "offer"
    if reason == "appointment_ask" and phase == "booked":
        return "status"  # the appointment, and how to move or cancel it
    if phase == "booked":
        if picked and moving:
            return "move"
        # Asked to move it, or another time named: the free times to move it to.
        return "offer" if names_time or reason == "appointment_move" else "status"
    if phase in ("offered", "contact") and picked:
        return "book" if has_contact else "ask_contact"
    if phase == "contact" and not names_time:
        return "book" if has_contact else "ask_contact"
    return "offer"


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
    if reason in ACT_REASONS:
        return reason  # type: ignore[return-value]
    return mapping.get(reason, "other")


def redirect_routing(reason: RedirectReason) -> Routing:
    """Routing value of a redirect: none of them pretends to answer."""
    if reason == "hack":
        return "out_of_scope"
    if reason == "nonsense":
        return "nonsense"
    if reason == "support":
        return "out_of_scope"
    if reason == "stop_booking":
        return "answered"
    # A conversation act's reply answers no question either: counted as before, with the
    # greetings it used to share a reply with.
    return "irrelevant"


def handoff_routing(reason: HandoffReason) -> Routing:
    if reason in ("high_stakes", "high_stakes_offer", "high_stakes_question"):
        return "high_stakes"
    if reason == "llm_failure":
        return "cannot_answer"
    if reason == "hot_lead":
        return "answered"
    return "out_of_scope"


# More than half of the question's content words in one of the best passages. Exactly half
# was two words of four, or one of two: "how many days have I used" found "days" and
# "used" on a health FAQ, and such requests were judged supported on every English site.
LEXICAL_SUPPORT = 0.6


def supported_by_site(
    status: str,
    top_score: float | None,
    bar: float | None,
    lexical: float = 0.0,
    word_bar: float | None = None,
    *,
    everyday: bool = False,
) -> bool:
    """The turn's search found the site's content: above the relevance threshold (status
    ok) and either at the site's own bar (`knowledge/search/topic.py`) or sharing most of the
    question's words with a passage that scores at least `word_bar` (above the bulk of
    everyday requests) — the second signal covers languages and slang the embedding model
    reads poorly, where every score is high and the bar with them.

    A message that reads as a known everyday request (`everyday`, `knowledge/search/everyday.py`:
    "I want to book vacation days" on a site with a page about sick leave) needs both
    signals at once (`strongly_supported_by_site`): a passage merely near the request's
    topic is no answer to it."""
    if everyday:
        return strongly_supported_by_site(status, top_score, bar, lexical)
    if status != "ok" or bar is None or top_score is None:
        return False
    if top_score >= bar:
        return True
    return lexical >= LEXICAL_SUPPORT and (word_bar is None or top_score >= word_bar)


def strongly_supported_by_site(
    status: str, top_score: float | None, bar: float | None, lexical: float
) -> bool:
    """Both signals at once: the best cosine at the site's own bar and most of the
    question's words (`LEXICAL_SUPPORT`) in one of the best passages."""
    if status != "ok" or bar is None or top_score is None:
        return False
    return top_score >= bar and lexical >= LEXICAL_SUPPORT


def is_low_confidence(top_score: float | None, threshold: float, margin: float = 0.05) -> bool:
    """Confidence gate: relevant, but not enough to cite with confidence."""
    return top_score is None or top_score < threshold + margin


# A team answer is given word for word only when one of the team's own questions says
# what the visitor asked (the question–question cosine of the site's embedding model, both
# read as questions) and it beats every page. A team answer is a passage like any other
# otherwise: the writer may still quote it. The bar per model is the 90th percentile of the
# nearest *other* FAQ question's cosine over StackFAQ's 1,249 crowd-paraphrased questions
# (`benchmarks/team_answer_bar.py`): one in ten of the hardest non-paraphrases passes it,
# about six in ten true paraphrases of a single team question do (a team answer has up to
# eight). A model without a measured bar is held to beating every page alone.
TEAM_QUESTION_BARS: dict[str, float] = {"local:multilingual-e5-small": 0.92}


def team_question_bar(model: str | None) -> float | None:
    return None if model is None else TEAM_QUESTION_BARS.get(model)


def preferred_team_answer(
    chunks: list[RetrievedChunk],
    threshold: float | None,
    language: str | None = None,
    match: TeamMatch | None = None,
) -> RetrievedChunk | None:
    """The team answer to give word for word: the best-matching team answer in the
    visitor's language above the site's threshold whose own questions match the
    visitor's (`match`, when the turn measured it) and that beats every page. (One in
    another language is only a source for the writer: a visitor is never handed text in a
    language they did not write in.)"""
    team = [
        c
        for c in chunks
        if is_team_document(c.doc_id, c.source)
        and (language is None or team_language(c.doc_id) == language)
    ]
    if match is not None and match["bar"] is not None:
        bar = match["bar"]
        team = [c for c in team if match["similarity"].get(c.doc_id, 0.0) >= bar]
    if not team:
        return None
    best = max(team, key=lambda c: c.score)
    if threshold is not None and best.score < threshold:
        return None
    pages = (c.score for c in chunks if not is_team_document(c.doc_id, c.source))
    others = max(pages, default=None)
    if others is not None and others >= best.score:
        return None
    return best


def team_answer_of(state: ChatState) -> RetrievedChunk | None:
    """The turn's preferred team answer, from its retrieval result and the match of the
    team's questions measured by `grade_docs`."""
    retrieval = state.get("retrieval")
    if not retrieval:
        return None
    result = RetrievalResult.model_validate(retrieval)
    if result.status != "ok":
        return None
    return preferred_team_answer(
        result.chunks, result.threshold, state.get("language"), state.get("team_match")
    )


AfterAnswer = Literal["auto", "human", "error"]


def route_after_answer(*, coverage: str, answer: str, factuality: float) -> AfterAnswer:
    """After the answer is out: keep it, or offer a human."""
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


LiveHandoff = Literal["ring", "after_hours", "no_operator"]


# Turns after which the visitor waits for a person: they said yes to one, or answered the
# question how the team can reach them (`after_kept_turn` then rings the operators online).
LIVE_RING_REASONS = frozenset({"handoff_accepted", "contact_given", "contact_declined"})


def after_kept_turn(route_reason: str | None) -> Literal["ring_operators", "done"]:
    """What follows an answered turn once it is kept (`conversation/turn_ending.py`): the
    operators online are rung when the visitor waits for a person. The handoff itself is
    delivered as always, so nothing depends on someone joining."""
    return "ring_operators" if route_reason in LIVE_RING_REASONS else "done"


# Why `propose_handoff` runs: a handoff route's own reason, or on the answer path a person
# offered beside a high-stakes answer, instead of one, or after a stall.
ProposalReason = Literal[HandoffReason, ContactReply, "stall_accepted", "handoff_accepted"]
PROPOSAL_REASONS: frozenset[str] = frozenset(get_args(ProposalReason))


def proposal_reason(state: ChatState) -> ProposalReason:
    """Why this turn proposes a person. On the ANSWER path: a high-stakes question gets a
    person offered beside the procedure, or the full escalation when the documentation
    had none; any other answer only reaches here through a stall."""
    reason = state.get("route_reason")
    if state.get("route") == "HANDOFF":
        if reason not in PROPOSAL_REASONS:
            raise ValueError(f"unknown handoff reason {reason!r}")
        return cast(ProposalReason, reason)
    if reason == "high_stakes":
        answered = bool(state.get("citations")) and state.get("routing") != "cannot_answer"
        return "high_stakes_offer" if answered else "high_stakes_question"
    return "stall"


def waits_for_yes(reason: ProposalReason) -> bool:
    """Only an offer waits for the visitor's yes before it reaches the team: a stall, or a
    person offered beside an answer (which keeps its citations and routing)."""
    return reason in ("stall", "high_stakes_offer")


def live_handoff_route(*, in_hours: bool, operators_online: int) -> LiveHandoff:
    """A person the visitor accepted: ring the operators online in business hours, else
    the asynchronous path (email capture and the handoff delivery) — never silence."""
    if not in_hours:
        return "after_hours"
    if operators_online <= 0:
        return "no_operator"
    return "ring"


HandoffContact = Literal["deliver", "ask_and_deliver", "ask_and_hold"]


def handoff_contact_step(*, contact_known: bool, live: LiveHandoff) -> HandoffContact:
    """How a handoff that goes to the team treats the visitor's contact. A known e-mail or
    phone goes with it. Otherwise the reply asks for one (the site's `handoff.contact`):
    with an operator online the handoff goes at once (they can join and ask themselves)
    and the contact follows; when nobody can answer live it is held until the visitor
    answers, declines, or `handoff.contact_wait_seconds` pass — so no lead without a way
    to reach the visitor goes out unless the visitor was asked for one."""
    if live not in ("ring", "after_hours", "no_operator"):
        raise ValueError(f"unknown live handoff route {live!r}")
    if contact_known:
        return "deliver"
    return "ask_and_deliver" if live == "ring" else "ask_and_hold"


def contact_reply(
    *, contact: str | None, declined: bool, asked_again: bool, hack: bool = False
) -> ContactReply:
    """The message after "how can our team reach you?": a contact of the kind asked for
    completes the handoff, a refusal sends it marked as such, anything else is asked again
    once (with an example and the way to decline); after that the conversation goes on
    as usual and a contact or refusal later still completes it. An attack is no answer."""
    if hack:
        return "contact_open"
    if contact:
        return "contact_given"
    if declined:
        return "contact_declined"
    return "contact_open" if asked_again else "contact_ask_again"

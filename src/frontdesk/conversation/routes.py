"""Deterministic routing: every decision of a turn, as pure functions of state (no models,
no I/O). `graph.py` wires the routers at the bottom of this module with
`add_conditional_edges`; each returns a `Literal` of node names and raises on a state it
does not know, so a turn can never fall through silently.

The routing table (ANSWER / REDIRECT / BOOKING, PAUSE / EXIT / STAY mid-booking),
the score router (explicit request > hot lead, stall) and the routing values.
Every way a turn reaches a person is decided here: `decide_route` (explicit request,
high stakes, hot lead, accepted offers), `relevance_gate` and `route_or_retry` (a
high-stakes question: a person offered beside the answer, or handed over when the
documentation has none), `after_answer_writer` (the writer failed) and
`after_stall_check` (a stalled conversation).
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Literal

from frontdesk.appointments.changes import AppointmentChange
from frontdesk.conversation.payload import Routing  # the widget renders by this vocabulary
from frontdesk.conversation.state import BookingStatus, ChatState, Route, TeamMatch
from frontdesk.engines.base import Act
from frontdesk.engines.local.answering.text import guess_language, is_question, question_terms
from frontdesk.improvement.team_answers import is_team_document, team_language
from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk

RedirectReason = Literal[
    "hack",
    "offtopic",
    "other",
    "nonsense",
    "stop_booking",
    "support",
    # conversation acts, each with its own reply (`texts.yaml`, `act.*`)
    "greeting",
    "how_are_you",
    "thanks",
    "goodbye",
    "yes",
    "no",
    "email",
    "phone",
]
ACT_REASONS: frozenset[str] = frozenset(typing.get_args(Act))
HandoffReason = Literal[
    "explicit_request",
    "hot_lead",
    "stall",
    "high_stakes",
    "high_stakes_offer",
    "high_stakes_question",
    "llm_failure",
]
# The visitor's answer to "how can our team reach you?" (`contact_reply`).
ContactReply = Literal["contact_given", "contact_declined", "contact_ask_again", "contact_open"]

ANSWERABLE_INTENTS = frozenset({"LEARN", "CONTEXT", "SUPPORT"})
# The classifier's business-independent "not about any company" label: before a message
# with it is refused, the site's own content gets its say (`site_support_check`).
SUPPORT_CHECKED_INTENTS = frozenset({"OFFTOPIC"})
# OTHER (greetings, thanks, chit-chat, jobs and press) is a conversation act — unless the
# message asks something the site's pages answer: "Are you part of the PADI programme?"
# was chatted away while the site's FAQ has the answer. Only a question is checked
# ("thanks", "hi there" and "no thanks" never reach the content), and OTHER needs both
# signals of support (`strongly_supported_by_site`): a press enquiry scoring just above
# the bar on the words "who handles" is still the press enquiry the classifier heard.
# A STOP_BOOKING with nothing to stop names no act at all and needs the support an
# everyday label needs (`decide_route`). A statement is checked too when it is about
# something (`states_a_topic`), and then needs both signals.
QUESTION_SUPPORT_CHECKED_INTENTS = frozenset({"OTHER", "STOP_BOOKING"})
# Content words a statement needs to be about something: "thanks", "no thanks", "hi
# there", "cancel it" have fewer; "Encrypting gmail messages." and "Upload finished but
# the video is not there" (help-centre visitors who write no question) have enough.
TOPIC_WORDS = 3
# A reply to the bot's own 👉 question ("about 200 people", "lead routing, mostly") is
# read as its answer, whatever the classifier makes of it (a reply naming a problem may
# look like support, one about meetings like a booking), unless it declines, attacks,
# asks for a demo or sales in so many words, or asks a question back.
PROFILING_ANSWER_INTENTS = frozenset(
    {"LEARN", "CONTEXT", "OTHER", "OFFTOPIC", "SUPPORT", "BOOKING"}
)


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
    # Stall path: the previous reply was a stall offer ("leave your email").
    stall_offer_pending: bool = False
    # Content gating: the previous reply asked for an email (💌).
    email_asked_last_turn: bool = False
    # Profiling: the previous reply asked a 👉 question and this is no question.
    profiling_answer: bool = False
    # Post-conversion: after a booking, the visitor asks about it (answered from state).
    booking_question: bool = False
    # Stage 3: the previous reply proposed a person (hot lead, explicit request…)
    # and this message accepts ("yes, please") or leaves an email.
    handoff_offer_pending: bool = False
    affirmative: bool = False
    # The previous reply proposed a demo (👇): "not now" declines it.
    demo_proposed_last_turn: bool = False
    # The message asks something ("how do I cancel?", "what is the refund policy?")
    # rather than only voicing a grievance.
    asks_question: bool = False
    # The message states something with enough content words to be about a topic
    # (`states_a_topic`): "Encrypting gmail messages.", not "no thanks".
    states_topic: bool = False
    # The message says in so many words that the visitor wants a demo, a call or sales.
    booking_wish: bool = False
    # The conversation act the message is on its own (a greeting, thanks, a bare yes, an
    # e-mail address alone...), or None.
    act: Act | None = None
    # The message is about prices or plans.
    mentions_pricing: bool = False
    # An email of this visitor is already known (from any earlier turn).
    email_known: bool = False
    # The site's own content clearly supports the message (`site_support_check`).
    site_supported: bool = False
    # ...by both signals at once (`strongly_supported_by_site`).
    site_strongly_supported: bool = False
    # Sites with a calendar (`appointment_flags`): the message wishes an appointment,
    # answers the slots or the contact question just asked, or asks to cancel or move the
    # appointment that stands (or how to: `appointments.changes`).
    appointment_wish: bool = False
    appointment_reply: bool = False
    appointment_change: AppointmentChange | None = None
    # A handoff waits for the visitor's contact (`handoff_contact_step`), and what this
    # message is as an answer to that question (`contact_reply`); None: nothing waits.
    contact_reply: ContactReply | None = None


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
    if inp.contact_reply in ("contact_given", "contact_declined"):
        # Before a new request for a person: the one already made waits for this answer.
        return RouteDecision("HANDOFF", inp.contact_reply)
    if inp.contact_reply == "contact_ask_again":
        if inp.handoff_offer_pending and inp.affirmative:
            # "Yes" to the person just offered is that yes (the operators online are rung);
            # its reply asks for the contact again.
            return RouteDecision("HANDOFF", "handoff_accepted")
        return RouteDecision("HANDOFF", "contact_ask_again")
    if inp.explicit_human_request:
        return RouteDecision("HANDOFF", "explicit_request")
    if inp.stall_offer_pending and (inp.message_has_email or (inp.affirmative and inp.email_known)):
        return RouteDecision("HANDOFF", "stall_accepted")  # the stall offer became a lead
    if inp.handoff_offer_pending and (inp.message_has_email or inp.affirmative):
        # Before high stakes: a "yes" to the person offered beside a cancellation answer
        # is that person, not a second escalation.
        return RouteDecision("HANDOFF", "handoff_accepted")
    if inp.appointment_change is not None:
        # Before high stakes: cancelling or moving one's own appointment is done, not
        # escalated, whatever the label ("I need to cancel my appointment" reads as support).
        return RouteDecision("BOOKING", f"appointment_{inp.appointment_change}")
    if inp.appointment_reply and not inp.high_stakes:
        # A slot picked, the name and e-mail asked for, or another time named.
        return RouteDecision("BOOKING", "appointment_reply", booking_status=_start(inp))
    if inp.high_stakes and inp.asks_question and inp.intent in ANSWERABLE_INTENTS:
        # Cancellation, refunds, disputes asked as a question: the knowledge base's
        # procedure first, a person offered alongside (`route_or_retry`).
        return RouteDecision("ANSWER", "high_stakes")
    if inp.high_stakes:
        return RouteDecision("HANDOFF", "high_stakes")
    if inp.appointment_wish:
        return RouteDecision("BOOKING", "appointment_requested", booking_status=_start(inp))
    if inp.booking_status == "collecting":
        return _mid_booking(inp)
    if inp.booking_status == "booked" and (inp.booking_question or inp.intent == "BOOKING"):
        return RouteDecision("BOOKING", "post_conversion", booking_status="booked")
    if inp.profiling_answer and inp.intent in PROFILING_ANSWER_INTENTS and not inp.booking_wish:
        # Before the hot-lead check: "300 people, I'm the CTO" answers the 👉 question.
        return RouteDecision("BOOKING", "profiling_answer")
    if inp.intent == "BOOKING" and inp.mentions_pricing and not inp.booking_wish:
        # "How much would it cost to upgrade?" is a question, not a wish to book.
        return RouteDecision("ANSWER", "learn")
    if inp.intent == "BOOKING" and inp.asks_question and not inp.booking_wish:
        # Booking starts on a wish for a demo or sales in so many words, not on a question
        # ("how do I get the link to the donations service?", "can one account serve the
        # site and the studio app?"): the documentation answers it, or a person is offered.
        return RouteDecision("ANSWER", "learn")
    if inp.intent == "BOOKING" and (inp.booking_wish or inp.demo_proposed_last_turn):
        # A reply to the demo just offered ("yes, let's do it") books too.
        return RouteDecision("BOOKING", "booking_requested", booking_status=_start(inp))
    if inp.hot_lead and inp.proposals_issued == 0 and inp.booking_status != "booked":
        # After a booking (post-conversion) the demo is not proposed again.
        return RouteDecision("HANDOFF", "hot_lead")
    if inp.email_asked_last_turn and inp.message_has_email and inp.intent != "HACK":
        return RouteDecision("BOOKING", "content_gating_email")
    if is_conversation_act(inp):
        return _conversation_act(inp)
    if inp.nonsense:
        return RouteDecision("REDIRECT", "nonsense")
    if inp.intent == "STOP_BOOKING":
        # Nothing to stop unless a demo was booked or just offered; otherwise the label is not
        # what the message does: the classifier heard a refusal in the visitor's own
        # problem ("I don't remember my password, how…", "they rejected my request, why?").
        # A question is then judged as an everyday label is: answered when the site's
        # content supports it (`supported_by_site`, both signals for an everyday request).
        offered = inp.booking_status == "booked" or inp.demo_proposed_last_turn
        supported = inp.site_supported or inp.site_strongly_supported
        if not offered and inp.asks_question and supported:
            return RouteDecision("ANSWER", "site_supported")
        if not offered and inp.states_topic and inp.site_strongly_supported:
            return RouteDecision("ANSWER", "site_supported")
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
    if inp.intent == "BOOKING":
        # A request labelled BOOKING that names no demo or sales and asks no question
        # ("I'd like to use encryption when sending mail", "send me the list of documents
        # for monetisation"): booking starts on a wish, not on the label (above), which
        # alone used to ask these visitors for their email. The documentation answers,
        # or says it cannot and offers a person.
        return RouteDecision("ANSWER", "learn")
    if inp.intent in SUPPORT_CHECKED_INTENTS and inp.site_supported:
        # What the site's pages answer is on-topic, however everyday its phrasing sounds
        # ("can I take the bike on holiday?"); off-topic needs both signals.
        return RouteDecision("ANSWER", "site_supported")
    if inp.intent == "OFFTOPIC":
        return RouteDecision("REDIRECT", "offtopic")
    if (
        inp.intent == "OTHER"
        and (inp.asks_question or inp.states_topic)
        and inp.site_strongly_supported
    ):
        # A question, or a statement about something, that the site's own content
        # supports is answered, not chatted away.
        return RouteDecision("ANSWER", "site_supported")
    if inp.intent == "OTHER":
        return RouteDecision("REDIRECT", "other")
    raise ValueError(f"unknown intent {inp.intent!r}")


def is_conversation_act(inp: RouteInput) -> bool:
    """Pure: the message is a conversation act and nothing more, so it gets the act's own
    reply and never a page. A message the classifier reads as a question or a request to
    the company (or a booking wish) that asks or states something is answered, act or
    not: "Hallo, wann habt ihr offen?" is a question. A "no" to a demo just offered is
    declined as such (`stop_booking`)."""
    if inp.act is None or inp.intent == "HACK":
        return False
    if inp.act in ("email", "phone"):
        return True  # an address or number alone states nothing else
    if (inp.asks_question or inp.states_topic) and inp.intent in (*ANSWERABLE_INTENTS, "BOOKING"):
        return False
    if inp.asks_question and inp.states_topic:
        return False  # "Salut, vous livrez à Lyon ?" asks something, whatever its label
    # Small talk with words of its own ("Au revoir, bonne journée" has three content
    # words) is still the act.
    offered = inp.booking_status == "booked" or inp.demo_proposed_last_turn
    return not (inp.intent == "STOP_BOOKING" and offered)


def _conversation_act(inp: RouteInput) -> RouteDecision:
    if inp.act == "yes" and inp.demo_proposed_last_turn and inp.booking_status != "booked":
        # "Yes" to the demo just offered books it, as a booking wish would.
        return RouteDecision("BOOKING", "booking_requested", booking_status="collecting")
    if inp.act == "no" and inp.demo_proposed_last_turn:
        return RouteDecision("REDIRECT", "stop_booking")
    return RouteDecision("REDIRECT", str(inp.act))


def _start(inp: RouteInput) -> BookingStatus:
    # After a booking (post-conversion) asking again shows the booking, not a new flow.
    return "booked" if inp.booking_status == "booked" else "collecting"


def _mid_booking(inp: RouteInput) -> RouteDecision:
    """While we are collecting booking details: STAY, PAUSE or EXIT."""
    if inp.intent == "STOP_BOOKING":
        return RouteDecision("REDIRECT", "stop_booking", booking_status="declined")
    if inp.message_has_email or inp.intent in ("BOOKING", "CONTEXT", "OTHER"):
        return RouteDecision("BOOKING", "booking_field_answer")  # STAY
    if inp.intent in ("LEARN", "SUPPORT"):
        return RouteDecision("ANSWER", "paused_booking")  # PAUSE: answer, keep the flow
    return RouteDecision("REDIRECT", "exit_booking", booking_status="idle")  # EXIT


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
    ok) and either at the site's own bar (`knowledge/topic.py`) or sharing most of the
    question's words with a passage that scores at least `word_bar` (above the bulk of
    everyday requests) — the second signal covers languages and slang the embedding model
    reads poorly, where every score is high and the bar with them.

    A message that reads as a known everyday request (`everyday`, `knowledge/everyday.py`:
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


# --- the graph's routers ----------------------------------------------------------------

BLOCK_KINDS = frozenset({"hack", "spam", "length"})
ROUTES: frozenset[str] = frozenset({"ANSWER", "REDIRECT", "BOOKING", "HANDOFF"})
# Nothing relevant found: one more search with an expanded query, then a clarifying question.
MAX_RETRIEVAL_RETRIES = 1
QUESTION_ENDINGS = ("?", "？", "💌", "👉", "? 👇")


def _route(state: ChatState) -> Route:
    route = state.get("route")
    if route not in ROUTES:
        raise ValueError(f"unknown route {route!r}")
    return route  # type: ignore[return-value]


LIVE_OWNERS = frozenset({"bot", "waiting", "human", "closed"})


def after_abuse_gate(state: ChatState) -> Literal["detect_language", "human_relay", "__end__"]:
    """A blocked turn ends here: no model call, no search (abuse gate). While a
    person owns the conversation (live takeover) the bot is silent: the message goes to
    them (`human_relay`)."""
    block = state.get("block")
    if block is not None:
        if block in BLOCK_KINDS:
            return "__end__"
        raise ValueError(f"unknown block {block!r}")
    owner = state.get("live_owner") or "bot"
    if owner not in LIVE_OWNERS:
        raise ValueError(f"unknown conversation owner {owner!r}")
    return "human_relay" if owner == "human" else "detect_language"


LiveHandoff = Literal["ring", "after_hours", "no_operator"]


# Turns after which the visitor waits for a person: they said yes to one, or answered the
# question how the team can reach them (`ChatService` then rings the operators online).
LIVE_RING_REASONS = frozenset({"handoff_accepted", "contact_given", "contact_declined"})


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


def after_skill_selector(state: ChatState) -> Literal["site_support_check", "intent_router"]:
    """An everyday request, or small talk asked as a question or stating a topic, waits
    for the site's content before it is refused; everything else is routed at once
    (keyboard mash and "thanks" need no search)."""
    intent = state.get("intent") or {}
    label = intent.get("label")
    if label is None:
        raise ValueError("no intent before routing")
    if intent.get("nonsense") or _act_alone(state):
        return "intent_router"
    if label in SUPPORT_CHECKED_INTENTS:
        return "site_support_check"
    text = state.get("input") or ""
    if (
        label in QUESTION_SUPPORT_CHECKED_INTENTS
        and (is_question(text) or states_a_topic(text))
        and not _decided_before_content(state)
    ):
        return "site_support_check"
    return "intent_router"


def _act_alone(state: ChatState) -> bool:
    """A conversation act and nothing more (`is_conversation_act`): its reply needs no
    search, so the router decides at once."""
    intent = state.get("intent") or {}
    text = state.get("input") or ""
    act = intent.get("act")
    if act is None:
        return False
    probe = RouteInput(
        intent=str(intent.get("label")),
        act=act,
        asks_question=is_question(text),
        states_topic=states_a_topic(text),
    )
    return is_conversation_act(probe)


def states_a_topic(text: str) -> bool:
    """Pure: the message has `TOPIC_WORDS` content words or more (a statement about
    something rather than a conversation act)."""
    return len(question_terms(text, guess_language(text))) >= TOPIC_WORDS


def _decided_before_content(state: ChatState) -> bool:
    """The router decides this turn before the site's content has a say (a person asked
    for, a high-stakes matter, a booking being collected): its search is not waited for,
    so the fast path still cancels it."""
    intent = state.get("intent") or {}
    qualification = state.get("qualification") or {}
    booking = state.get("booking") or {}
    return (
        bool(qualification.get("explicit_human_request"))
        or bool(intent.get("high_stakes"))
        or booking.get("status") == "collecting"
    )


def route_by_intent(
    state: ChatState,
) -> Literal[
    "team_recall_writer",
    "enricher_awaiter",
    "redirect_handler",
    "booking_handler",
    "propose_handoff",
]:
    """The routing table, as `intent_router` decided it (`decide_route`). A question
    about what a named team member said in this conversation is answered from their
    words, whatever the classifier made of it."""
    if state.get("team_recall"):
        return "team_recall_writer"
    route = _route(state)
    if route == "ANSWER":
        return "enricher_awaiter"  # the only path that collects the background work
    if route == "REDIRECT":
        return "redirect_handler"
    if route == "BOOKING":
        return "booking_handler"
    return "propose_handoff"


def after_match_facts(state: ChatState) -> Literal["fact_answer_writer", "grade_docs"]:
    """A question about a fact the site states (its hours, phone, address, the price of a
    named service…) is answered from the facts; every other question from the pages."""
    reply = state.get("fact_reply")
    if reply is None:
        return "grade_docs"
    if not reply.get("facts"):
        raise ValueError("a matched fact question without facts")
    return "fact_answer_writer"


AnswerSource = Literal["team_answer_writer", "answer_writer", "retry_retrieval"]


def _answer_source(state: ChatState) -> AnswerSource | None:
    """Corrective RAG's choice: a team answer that matches, as the team wrote it; else
    what survived grading; else one retry; None when nothing is left to answer from."""
    retries = int(state.get("retries") or 0)
    if not 0 <= retries <= MAX_RETRIEVAL_RETRIES:
        raise ValueError(f"retries out of range: {retries}")
    if team_answer_of(state) is not None:
        return "team_answer_writer"
    if state.get("graded_chunks"):
        return "answer_writer"
    if retries < MAX_RETRIEVAL_RETRIES:
        return "retry_retrieval"
    return None


def relevance_gate(
    state: ChatState,
) -> Literal[
    "team_answer_writer", "answer_writer", "retry_retrieval", "clarify_handler", "propose_handoff"
]:
    """Answer from a team answer, the graded passages or a retry (`_answer_source`);
    with nothing found, ask back, or hand a high-stakes matter to a person."""
    source = _answer_source(state)
    if source is not None:
        return source
    if state.get("route_reason") == "high_stakes":
        return "propose_handoff"
    return "clarify_handler"


def draft_gate(
    state: ChatState,
) -> Literal["team_answer_writer", "answer_writer", "retry_retrieval", "__end__"]:
    """The relevance gate of an operator's draft (`conversation/draft.py`): the same
    choice, except that nothing found ends the draft empty — the operator is told
    nothing fits; a draft never asks back or hands off."""
    return _answer_source(state) or "__end__"


def after_answer_writer(state: ChatState) -> Literal["verify_facts", "propose_handoff"]:
    """A writer that failed (provider error, timeout, dropped stream) ends in a handoff
    offer with reason `llm_failure` (writer failure); else the answer is checked."""
    if state.get("writer_failed"):
        return "propose_handoff"
    if _route(state) != "ANSWER":
        raise ValueError(f"unexpected route after the writer: {state.get('route')!r}")
    return "verify_facts"


def route_or_retry(state: ChatState) -> Literal["stall_check", "offer_human", "propose_handoff"]:
    """Keep a full answer; anything less ends with an offer of a
    person (soft escalation). A high-stakes answer always ends with a person: offered
    beside the procedure, or handed the question when the documentation had none."""
    evaluation = state.get("evaluation")
    after = evaluation["after"] if evaluation else None
    if after not in ("auto", "human", "error"):
        raise ValueError(f"unknown evaluation outcome {after!r}")
    if state.get("route_reason") == "high_stakes":
        return "propose_handoff"
    if after == "auto" and state.get("routing") == "answered":
        return "stall_check"
    return "offer_human"


def after_stall_check(
    state: ChatState,
) -> Literal["propose_handoff", "skill_ending_writer", "dialog_state_extractor"]:
    """Stall path, then skills: how a reply ends."""
    answer_path = _route(state) == "ANSWER"
    full_answer = answer_path and state.get("routing") == "answered"
    # Only a full answer ends in a stall offer: a partial one, a clarifying question or a
    # refusal already offered a person (one offer per reply), a redirect never does.
    if full_answer and state.get("stall"):
        return "propose_handoff"
    # A full answer may end with the chosen skill (👉 question, 💌 offer, 👇 demo).
    return "skill_ending_writer" if full_answer else "dialog_state_extractor"


def suggestion_router(
    state: ChatState,
) -> Literal["answer_suggester", "follow_up_suggester", "finalize"]:
    """Answer options when the reply asks something; else follow-up questions. A
    conversation act's reply ends in an open question ("Wie kann ich Ihnen helfen?"):
    "Yes, please" / "Not now" would answer nothing."""
    route = _route(state)
    asks = (state.get("answer") or "").rstrip().endswith(QUESTION_ENDINGS)
    if state.get("suggested_follow_ups"):
        return "finalize"  # the handler already chose suggestions (redirects)
    if route == "REDIRECT" and state.get("route_reason") in ACT_REASONS:
        return "finalize"
    if asks:
        return "answer_suggester"
    return "follow_up_suggester" if route == "ANSWER" else "finalize"

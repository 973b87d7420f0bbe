"""The routing table: which route a turn takes (ANSWER / REDIRECT / BOOKING / HANDOFF,
and PAUSE / EXIT / STAY mid-booking), as a pure function of what the turn's analysis
found (`RouteInput` → `decide_route`). Every way a message reaches a person before the
answer is decided here: an explicit request, high stakes, a hot lead, an accepted offer.
`routes.intent_router`'s node calls it; no models, no I/O."""

from __future__ import annotations

import typing
from dataclasses import dataclass

from frontdesk.appointments.changes import AppointmentChange
from frontdesk.conversation.vocabulary import (
    AnswerReason,
    BookingReason,
    BookingStatus,
    ContactReply,
    RedirectReason,
    Route,
    RouteReason,
)
from frontdesk.knowledge.search.acts import Act

ACT_REASONS: frozenset[str] = frozenset(typing.get_args(Act))


# The intents the answer path takes, each its reason.
ANSWERABLE_INTENTS: dict[str, AnswerReason] = {
    "LEARN": "learn",
    "CONTEXT": "context",
    "SUPPORT": "support",
}
APPOINTMENT_CHANGE_REASONS: dict[AppointmentChange, BookingReason] = {
    "cancel": "appointment_cancel",
    "move": "appointment_move",
    "ask": "appointment_ask",
}


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
    # A question put to the business in the second person ("Do you have a car park?")
    # that does not read as an everyday request (`knowledge/everyday.py`).
    asks_the_business: bool = False
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
    reason: RouteReason
    hack: bool = False  # increments hack_count
    booking_status: BookingStatus | None = None  # a change of the booking flow, if any


# A writer that failed (provider error, first-token timeout, dropped stream) is not the
# turn's failure: a person is offered (`routes.after_answer_writer`), with whatever text
# had already reached the visitor.
WRITER_FAILURE = RouteDecision("HANDOFF", "llm_failure")


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
        return RouteDecision("BOOKING", APPOINTMENT_CHANGE_REASONS[inp.appointment_change])
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
        reason: RedirectReason = "stop_booking" if offered else "other"
        return RouteDecision("REDIRECT", reason)
    if (
        inp.intent == "CONTEXT"
        and inp.interest_score >= inp.interest_threshold
        and inp.booking_status == "idle"
    ):
        # A visitor describing their needs with strong interest gets the demo offer.
        return RouteDecision("BOOKING", "interest_threshold", booking_status="collecting")
    if inp.intent in ANSWERABLE_INTENTS:
        return RouteDecision("ANSWER", ANSWERABLE_INTENTS[inp.intent])
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
    if inp.intent == "OFFTOPIC" and inp.asks_the_business and inp.asks_question:
        # "Do you have a car park?" is about the business even when its site does not
        # say: the documentation is asked, and "not found" with a person offered is the
        # honest reply, never "that's outside what I can help with".
        return RouteDecision("ANSWER", "asks_the_business")
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
    assert inp.act is not None  # `is_conversation_act`
    return RouteDecision("REDIRECT", inp.act)


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

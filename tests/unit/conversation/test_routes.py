"""Every row of the routing table (intent routes and handoff priorities), as plain values."""

import pytest

from frontdesk.conversation.outcomes import (
    answer_routing,
    handoff_routing,
    is_low_confidence,
    redirect_routing,
    route_after_answer,
    strongly_supported_by_site,
    supported_by_site,
)
from frontdesk.conversation.route_table import RouteInput, decide_route
from frontdesk.conversation.routes import states_a_topic

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("inp", "route", "reason"),
    [
        (RouteInput("LEARN"), "ANSWER", "learn"),
        (RouteInput("CONTEXT"), "ANSWER", "context"),
        (RouteInput("SUPPORT"), "ANSWER", "support"),
        (RouteInput("OFFTOPIC"), "REDIRECT", "offtopic"),
        (RouteInput("OTHER"), "REDIRECT", "other"),
        (RouteInput("HACK"), "REDIRECT", "hack"),
        # Booking starts on a wish for a demo or sales in so many words, or on a reply to
        # the demo just offered; the classifier's label alone is a request to answer.
        (RouteInput("BOOKING"), "ANSWER", "learn"),
        (RouteInput("BOOKING", booking_wish=True), "BOOKING", "booking_requested"),
        (RouteInput("BOOKING", demo_proposed_last_turn=True), "BOOKING", "booking_requested"),
        (RouteInput("STOP_BOOKING"), "REDIRECT", "other"),
        (RouteInput("STOP_BOOKING", demo_proposed_last_turn=True), "REDIRECT", "stop_booking"),
        (RouteInput("STOP_BOOKING", booking_status="booked"), "REDIRECT", "stop_booking"),
        (RouteInput("LEARN", nonsense=True), "REDIRECT", "nonsense"),
        # off-topic needs both signals: what the site's own pages answer is on-topic
        (RouteInput("OFFTOPIC", site_supported=True), "ANSWER", "site_supported"),
        # a question to the business the site does not answer: looked up, then "not found"
        (
            RouteInput("OFFTOPIC", asks_question=True, asks_the_business=True),
            "ANSWER",
            "asks_the_business",
        ),
        (RouteInput("OFFTOPIC", asks_the_business=True), "REDIRECT", "offtopic"),
        (RouteInput("OTHER", asks_question=True, asks_the_business=True), "REDIRECT", "other"),
        # small talk stays small talk; a question the site's pages answer is answered
        (RouteInput("OTHER", site_supported=True), "REDIRECT", "other"),
        (RouteInput("OTHER", asks_question=True), "REDIRECT", "other"),
        (RouteInput("OTHER", asks_question=True, site_supported=True), "REDIRECT", "other"),
        # a statement about something ("Encrypting gmail messages.") needs both signals
        (RouteInput("OTHER", states_topic=True, site_supported=True), "REDIRECT", "other"),
        (
            RouteInput("OTHER", states_topic=True, site_strongly_supported=True),
            "ANSWER",
            "site_supported",
        ),
        (RouteInput("STOP_BOOKING", states_topic=True, site_supported=True), "REDIRECT", "other"),
        (
            RouteInput("STOP_BOOKING", states_topic=True, site_strongly_supported=True),
            "ANSWER",
            "site_supported",
        ),
        (
            RouteInput(
                "STOP_BOOKING",
                states_topic=True,
                site_strongly_supported=True,
                demo_proposed_last_turn=True,
            ),
            "REDIRECT",
            "stop_booking",
        ),
        (
            RouteInput("OTHER", asks_question=True, site_strongly_supported=True),
            "ANSWER",
            "site_supported",
        ),
        (
            RouteInput("STOP_BOOKING", asks_question=True, site_strongly_supported=True),
            "ANSWER",
            "site_supported",
        ),
        (
            RouteInput(
                "STOP_BOOKING",
                asks_question=True,
                site_strongly_supported=True,
                booking_status="booked",
            ),
            "REDIRECT",
            "stop_booking",
        ),
        # With nothing to stop, "stop booking" names no act: a question the site's content
        # supports (one signal, as for an everyday label) is answered...
        (
            RouteInput("STOP_BOOKING", asks_question=True, site_supported=True),
            "ANSWER",
            "site_supported",
        ),
        # ...a statement is not ("no thanks"), nor a question the content does not support
        (RouteInput("STOP_BOOKING", site_supported=True), "REDIRECT", "other"),
        (RouteInput("STOP_BOOKING", asks_question=True), "REDIRECT", "other"),
        # and a real refusal of a demo just offered stays one
        (
            RouteInput(
                "STOP_BOOKING",
                asks_question=True,
                site_supported=True,
                demo_proposed_last_turn=True,
            ),
            "REDIRECT",
            "stop_booking",
        ),
        # A question the classifier took for a booking is answered unless it asks for a
        # demo or sales in so many words.
        (RouteInput("BOOKING", asks_question=True), "ANSWER", "learn"),
        (
            RouteInput("BOOKING", asks_question=True, booking_wish=True),
            "BOOKING",
            "booking_requested",
        ),
        (RouteInput("OFFTOPIC", nonsense=True, site_supported=True), "REDIRECT", "nonsense"),
        (RouteInput("HACK", site_supported=True), "REDIRECT", "hack"),
        (RouteInput("OFFTOPIC", high_stakes=True, site_supported=True), "HANDOFF", "high_stakes"),
        (
            RouteInput("OFFTOPIC", booking_status="collecting", site_supported=True),
            "REDIRECT",
            "exit_booking",
        ),
        # people first: explicit request beats everything but an attack
        (RouteInput("OFFTOPIC", explicit_human_request=True), "HANDOFF", "explicit_request"),
        (RouteInput("HACK", explicit_human_request=True), "REDIRECT", "hack"),
        (RouteInput("SUPPORT", high_stakes=True), "HANDOFF", "high_stakes"),
        # Asked as a question ("how do I cancel?"): the procedure, a person offered beside it.
        (RouteInput("SUPPORT", high_stakes=True, asks_question=True), "ANSWER", "high_stakes"),
        (RouteInput("LEARN", high_stakes=True, asks_question=True), "ANSWER", "high_stakes"),
        # A price question the classifier took for a booking is answered, not booked...
        (RouteInput("BOOKING", mentions_pricing=True), "ANSWER", "learn"),
        # ...unless the visitor says they want sales or a demo.
        (
            RouteInput("BOOKING", mentions_pricing=True, booking_wish=True),
            "BOOKING",
            "booking_requested",
        ),
        # A known email and a "yes" accept a stall offer: nobody asks for the email again.
        (
            RouteInput("LEARN", stall_offer_pending=True, affirmative=True, email_known=True),
            "HANDOFF",
            "stall_accepted",
        ),
        (RouteInput("LEARN", stall_offer_pending=True, affirmative=True), "ANSWER", "learn"),
        (RouteInput("LEARN", hot_lead=True), "HANDOFF", "hot_lead"),
        (RouteInput("LEARN", hot_lead=True, proposals_issued=1), "ANSWER", "learn"),
        # strong interest while describing needs → the demo offer
        (
            RouteInput("CONTEXT", interest_score=0.9, interest_threshold=0.7),
            "BOOKING",
            "interest_threshold",
        ),
        (RouteInput("LEARN", interest_score=0.9, interest_threshold=0.7), "ANSWER", "learn"),
        # mid-booking: STAY, PAUSE, EXIT
        (
            RouteInput("CONTEXT", booking_status="collecting", message_has_email=True),
            "BOOKING",
            "booking_field_answer",
        ),
        (RouteInput("OTHER", booking_status="collecting"), "BOOKING", "booking_field_answer"),
        (RouteInput("LEARN", booking_status="collecting"), "ANSWER", "paused_booking"),
        (RouteInput("STOP_BOOKING", booking_status="collecting"), "REDIRECT", "stop_booking"),
        (RouteInput("OFFTOPIC", booking_status="collecting"), "REDIRECT", "exit_booking"),
        # post-conversion: asking again shows the existing booking
        (RouteInput("BOOKING", booking_status="booked"), "BOOKING", "post_conversion"),
    ],
)
def test_routing_table(inp: RouteInput, route: str, reason: str) -> None:
    decision = decide_route(inp)
    assert (decision.route, decision.reason) == (route, reason)


@pytest.mark.parametrize(
    ("text", "about_something"),
    [
        ("thanks", False),
        ("no thanks", False),
        ("hi there", False),
        ("cancel it", False),
        ("Encrypting gmail messages.", True),
        ("Загрузка видео завершена, а его нет", True),
        ("Quiero cambiar la fecha de mi limpieza dental", True),
    ],
)
def test_a_statement_about_something_has_three_content_words(
    text: str, about_something: bool
) -> None:
    assert states_a_topic(text) is about_something


def test_hack_increments_the_counter_and_nothing_else_does() -> None:
    assert decide_route(RouteInput("HACK")).hack
    assert not any(decide_route(RouteInput(i)).hack for i in ("LEARN", "OFFTOPIC", "OTHER"))


def test_booking_state_changes() -> None:
    wish = RouteInput("BOOKING", booking_wish=True)
    assert decide_route(wish).booking_status == "collecting"
    assert decide_route(RouteInput("BOOKING", booking_status="booked")).booking_status == "booked"
    stop = decide_route(RouteInput("STOP_BOOKING", booking_status="collecting"))
    assert stop.booking_status == "declined"
    paused = decide_route(RouteInput("LEARN", booking_status="collecting"))
    assert paused.booking_status is None  # PAUSE keeps the flow


def test_unknown_intent_raises() -> None:
    with pytest.raises(ValueError, match="unknown intent"):
        decide_route(RouteInput("DANCE"))


def test_redirect_and_handoff_routing_values_never_claim_an_answer() -> None:
    assert redirect_routing("offtopic") == "irrelevant"
    assert redirect_routing("nonsense") == "nonsense"
    assert redirect_routing("hack") == "out_of_scope"
    assert handoff_routing("high_stakes") == "high_stakes"
    assert handoff_routing("explicit_request") == "out_of_scope"


def test_confidence_gate_and_answer_routing() -> None:
    assert is_low_confidence(None, 0.35)
    assert is_low_confidence(0.37, 0.35)
    assert not is_low_confidence(0.6, 0.35)
    assert route_after_answer(coverage="full", answer="x", factuality=1.0) == "auto"
    assert route_after_answer(coverage="none", answer="x", factuality=1.0) == "human"
    assert route_after_answer(coverage="full", answer="x", factuality=0.2) == "human"
    assert route_after_answer(coverage="full", answer=" ", factuality=1.0) == "error"
    assert answer_routing(coverage="full", low_confidence=False, after="auto") == "answered"
    assert answer_routing(coverage="partial", low_confidence=False, after="auto") == (
        "partially_answered"
    )
    assert answer_routing(coverage="full", low_confidence=True, after="auto") == "low_confidence"
    assert answer_routing(coverage="full", low_confidence=False, after="human") == "cannot_answer"


@pytest.mark.parametrize(
    ("status", "score", "bar", "lexical", "supported"),
    [
        ("ok", 0.75, 0.40, 0.0, True),  # the bike company's "What is Velotrove?" at 0.75
        ("ok", 0.40, 0.40, 0.0, True),
        ("ok", 0.39, 0.40, 0.0, False),
        ("ok", 0.39, 0.40, 0.6, True),  # most of the question's words in a passage
        ("ok", 0.39, 0.40, 0.5, False),  # one word of two is no support
        ("no_result", 0.75, 0.40, 1.0, False),  # nothing passed the relevance threshold
        ("error", None, 0.40, 1.0, False),
        ("ok", 0.9, None, 1.0, False),  # no bar known: never overrule
    ],
)
def test_supported_by_site(
    status: str, score: float | None, bar: float | None, lexical: float, supported: bool
) -> None:
    assert supported_by_site(status, score, bar, lexical) is supported


def test_shared_words_need_a_passage_above_the_bulk_of_everyday_requests() -> None:
    """e5 on a web-app FAQ: "what is our purpose" shares both its words with a passage
    scoring 0.82, where everyday requests score 0.81 ± 0.02: words alone are no support."""
    assert not supported_by_site("ok", 0.82, 0.855, 1.0, word_bar=0.837)
    assert supported_by_site("ok", 0.85, 0.855, 0.75, word_bar=0.837)
    assert not supported_by_site("ok", 0.85, 0.855, 0.5, word_bar=0.837)
    assert supported_by_site("ok", 0.86, 0.855, 0.0, word_bar=0.837)  # the bar alone


def test_a_message_read_as_an_everyday_request_needs_both_signals() -> None:
    """covid-faq-en (e5): "did my vacation get approved yet" scored 0.848 against the
    site's bar of 0.845 (its page on leave at work) with one word of three in a passage;
    it reads as a known everyday request, so the cosine alone no longer overrules
    "off-topic". A page that both scores and holds the words still does."""
    assert supported_by_site("ok", 0.848, 0.845, 0.33)
    assert not supported_by_site("ok", 0.848, 0.845, 0.33, everyday=True)
    # The words path (most words, a passage above the bulk of everyday requests) is
    # one signal too: "how many days have I used" on the same site.
    assert supported_by_site("ok", 0.843, 0.845, 1.0, word_bar=0.83)
    assert not supported_by_site("ok", 0.843, 0.845, 1.0, word_bar=0.83, everyday=True)
    assert supported_by_site("ok", 0.90, 0.845, 0.75, word_bar=0.83, everyday=True)
    assert not supported_by_site("no_result", 0.90, 0.845, 1.0, everyday=True)


def test_strong_support_needs_the_bar_and_the_words() -> None:
    # A press enquiry at 0.858 against a bar of 0.847 sharing two of seven words: on-topic
    # enough to overrule "off-topic", not enough to overrule a conversation act.
    assert not strongly_supported_by_site("ok", 0.858, 0.847, 0.29)
    assert not strongly_supported_by_site("ok", 0.84, 0.847, 1.0)
    assert not strongly_supported_by_site("no_result", 0.9, 0.847, 1.0)
    assert not strongly_supported_by_site("ok", 0.9, None, 1.0)
    assert strongly_supported_by_site("ok", 0.855, 0.847, 0.67)


# --- conversation acts ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("inp", "route", "reason"),
    [
        # Each act gets its own reply, whatever the classifier's label and however well
        # the site's pages match a word of it ("Wie geht's dir heute?" matched "Heute
        # arbeiten wir zu dritt…").
        (RouteInput("OTHER", act="greeting"), "REDIRECT", "greeting"),
        (
            RouteInput("OFFTOPIC", act="how_are_you", asks_question=True, site_supported=True),
            "REDIRECT",
            "how_are_you",
        ),
        (RouteInput("OTHER", act="thanks"), "REDIRECT", "thanks"),
        (RouteInput("OTHER", act="goodbye"), "REDIRECT", "goodbye"),
        (RouteInput("OTHER", act="yes"), "REDIRECT", "yes"),
        (RouteInput("OTHER", act="no"), "REDIRECT", "no"),
        (RouteInput("LEARN", act="thanks"), "REDIRECT", "thanks"),
        (RouteInput("OFFTOPIC", act="email", site_supported=True), "REDIRECT", "email"),
        (RouteInput("OTHER", act="phone", nonsense=True), "REDIRECT", "phone"),
        # An act that also asks the company something is a question, and answered.
        (RouteInput("LEARN", act="greeting", asks_question=True), "ANSWER", "learn"),
        (RouteInput("SUPPORT", act="thanks", asks_question=True), "ANSWER", "support"),
        (RouteInput("SUPPORT", act="thanks", states_topic=True), "ANSWER", "support"),
        # Small talk with words of its own is still the act ("Au revoir, bonne journée").
        (
            RouteInput("OTHER", act="goodbye", states_topic=True, site_strongly_supported=True),
            "REDIRECT",
            "goodbye",
        ),
        # The flows that wait for an answer keep theirs.
        (
            RouteInput("OTHER", act="yes", handoff_offer_pending=True, affirmative=True),
            "HANDOFF",
            "handoff_accepted",
        ),
        (
            RouteInput("OTHER", act="email", message_has_email=True, handoff_offer_pending=True),
            "HANDOFF",
            "handoff_accepted",
        ),
        (
            RouteInput("OTHER", act="email", message_has_email=True, stall_offer_pending=True),
            "HANDOFF",
            "stall_accepted",
        ),
        (
            RouteInput("OTHER", act="email", message_has_email=True, email_asked_last_turn=True),
            "BOOKING",
            "content_gating_email",
        ),
        (
            RouteInput("OTHER", act="email", message_has_email=True, booking_status="collecting"),
            "BOOKING",
            "booking_field_answer",
        ),
        (RouteInput("HACK", act="greeting"), "REDIRECT", "hack"),
        # A yes or no to the demo just offered accepts or declines it.
        (
            RouteInput("OTHER", act="yes", demo_proposed_last_turn=True),
            "BOOKING",
            "booking_requested",
        ),
        (RouteInput("OTHER", act="no", demo_proposed_last_turn=True), "REDIRECT", "stop_booking"),
        (
            RouteInput("STOP_BOOKING", act="thanks", demo_proposed_last_turn=True),
            "REDIRECT",
            "stop_booking",
        ),
    ],
)
def test_conversation_acts(inp: RouteInput, route: str, reason: str) -> None:
    decision = decide_route(inp)
    assert (decision.route, decision.reason) == (route, reason)


@pytest.mark.parametrize(
    "reason", ["greeting", "how_are_you", "thanks", "goodbye", "yes", "no", "email", "phone"]
)
def test_every_act_has_its_own_reply_in_every_language(reason: str) -> None:
    from frontdesk.conversation.outcomes import redirect_reason
    from frontdesk.conversation.texts import TEXTS

    assert redirect_reason(reason) == reason
    replies = TEXTS[f"act.{reason}"]
    assert set(replies) == {"en", "de", "fr", "es", "it", "pt", "nl", "ru"}
    assert replies["de"] != TEXTS["redirect.other"]["de"]

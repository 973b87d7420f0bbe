"""Asking how the team can reach the visitor: the decisions (`routes.handoff_contact_step`,
`routes.contact_reply`, the router's precedence) and the reading of the answer
(`conversation.contact`), as plain values."""

from __future__ import annotations

import typing

import pytest

from frontdesk.conversation import outcomes
from frontdesk.conversation.contact import contact_in, declines_contact
from frontdesk.conversation.route_table import RouteInput, decide_route
from frontdesk.handoff.packets import CONTACT_NOTES, visitor_contact

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("known", "live", "step"),
    [
        (True, "ring", "deliver"),
        (True, "after_hours", "deliver"),
        (True, "no_operator", "deliver"),
        (False, "ring", "ask_and_deliver"),
        (False, "after_hours", "ask_and_hold"),
        (False, "no_operator", "ask_and_hold"),
    ],
)
def test_a_handoff_without_a_contact_always_asks_and_waits_when_nobody_is_live(
    known: bool, live: outcomes.LiveHandoff, step: str
) -> None:
    assert outcomes.handoff_contact_step(contact_known=known, live=live) == step


def test_every_way_a_handoff_goes_without_a_known_contact_asks() -> None:
    """Whatever the live situation, a handoff whose contact is unknown is never sent
    without the question: "deliver" needs a known contact."""
    for live in typing.get_args(outcomes.LiveHandoff):
        step = outcomes.handoff_contact_step(contact_known=False, live=live)
        assert step in ("ask_and_deliver", "ask_and_hold")


def test_an_unknown_live_route_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown live handoff route"):
        outcomes.handoff_contact_step(contact_known=False, live="maybe")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("contact", "declined", "asked_again", "hack", "reply"),
    [
        ("x@y.example", False, False, False, "contact_given"),
        ("x@y.example", False, True, False, "contact_given"),  # later still completes it
        (None, True, False, False, "contact_declined"),
        (None, True, True, False, "contact_declined"),
        (None, False, False, False, "contact_ask_again"),
        (None, False, True, False, "contact_open"),  # asked twice: the chat goes on
        ("x@y.example", False, False, True, "contact_open"),  # an attack is no answer
    ],
)
def test_the_answer_to_the_contact_question(
    contact: str | None, declined: bool, asked_again: bool, hack: bool, reply: str
) -> None:
    decided = outcomes.contact_reply(
        contact=contact, declined=declined, asked_again=asked_again, hack=hack
    )
    assert decided == reply


@pytest.mark.parametrize(
    ("inp", "route", "reason"),
    [
        # The answer comes before a new request for a person or an offer's "yes".
        (
            RouteInput("OTHER", explicit_human_request=True, contact_reply="contact_given"),
            "HANDOFF",
            "contact_given",
        ),
        (
            RouteInput("OTHER", contact_reply="contact_ask_again"),
            "HANDOFF",
            "contact_ask_again",
        ),
        # "Yes" to the person just offered is that yes (the operators are rung).
        (
            RouteInput(
                "OTHER",
                act="yes",
                affirmative=True,
                handoff_offer_pending=True,
                contact_reply="contact_ask_again",
            ),
            "HANDOFF",
            "handoff_accepted",
        ),
        (
            RouteInput("OTHER", act="no", contact_reply="contact_declined"),
            "HANDOFF",
            "contact_declined",
        ),
        # Asked twice already: the message is routed as any other.
        (RouteInput("LEARN", contact_reply="contact_open"), "ANSWER", "learn"),
        # An attack is refused whatever waits.
        (RouteInput("HACK", contact_reply="contact_given"), "REDIRECT", "hack"),
    ],
)
def test_the_router_hears_the_answer_first(inp: RouteInput, route: str, reason: str) -> None:
    decision = decide_route(inp)
    assert (decision.route, decision.reason) == (route, reason)


@pytest.mark.parametrize(
    ("text", "way", "found"),
    [
        ("my email is x@y.example", "email", ("email", "x@y.example")),
        ("x@y", "email", None),
        ("call me on +49 30 1234567", "email", None),
        ("call me on +49 30 1234567", "phone", ("phone", "+49 30 1234567")),
        ("0171/234 56 78", "phone", ("phone", "0171/234 56 78")),
        ("x@y.example", "phone", None),
        ("x@y.example or 030 1234567", "either", ("email", "x@y.example")),
        ("030 1234567", "either", ("phone", "030 1234567")),
        ("order 12345", "phone", None),  # too few digits for a phone number
        ("ref 123456789012345678", "phone", None),  # too many
    ],
)
def test_the_contact_in_a_message(
    text: str, way: typing.Literal["email", "phone", "either"], found: tuple[str, str] | None
) -> None:
    assert contact_in(text, way) == found


def test_a_date_or_a_price_is_no_phone_number() -> None:
    assert contact_in("on 15.12.2026", "phone") is None
    assert contact_in("it costs 49.90", "phone") is None


@pytest.mark.parametrize(
    "text",
    [
        "No thanks",
        "no",
        "I'd rather not",
        "I don't want to give my email",
        "Нет, спасибо",
        "не хочу",
        "Non merci",
        "je préfère ne pas",
        "Nein danke",
        "lieber nicht",
        "Lieber keine",
        "No gracias",
        "prefiero no",
        "No grazie",
        "preferisco di no",
        "Não, obrigado",
        "No, thank you",
        "Nein, danke",
        "prefiro não",
        "Nee bedankt",
        "liever niet",
    ],
)
def test_a_refusal_in_the_widget_languages(text: str) -> None:
    assert declines_contact(text)


@pytest.mark.parametrize(
    "text", ["yes please", "x@y", "what are your opening hours?", "I want to talk to a person"]
)
def test_no_refusal(text: str) -> None:
    assert not declines_contact(text)


@pytest.mark.parametrize(
    ("handoff", "profile", "status"),
    [
        ({"contact": "asked"}, {"email": "x@y.example"}, "provided"),
        ({"contact": "asked"}, {"phone": "+49 30 1234567"}, "provided"),
        ({"contact": "asked"}, {}, "asked"),
        ({"contact": "declined"}, {}, "declined"),
        ({}, {}, "not_asked"),
        ({"contact": "provided"}, {}, "not_asked"),  # said known, but nothing is: not asked
    ],
)
def test_the_packet_says_how_the_visitor_can_be_reached(
    handoff: dict[str, str], profile: dict[str, str], status: str
) -> None:
    contact = visitor_contact(handoff, profile, "email")
    assert contact["status"] == status
    assert contact["note"] == CONTACT_NOTES[status]
    if status == "declined":
        assert contact["note"].startswith("No contact, visitor declined")

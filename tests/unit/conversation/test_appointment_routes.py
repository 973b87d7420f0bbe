"""The routers of appointments in the chat (pure)."""

from __future__ import annotations

import pytest

from frontdesk.conversation.outcomes import appointment_step, booking_flow
from frontdesk.conversation.route_table import RouteInput, decide_route

pytestmark = pytest.mark.unit


def test_an_appointment_wish_books_on_a_calendar_site() -> None:
    decision = decide_route(RouteInput(intent="OFFTOPIC", appointment_wish=True))
    assert (decision.route, decision.reason, decision.booking_status) == (
        "BOOKING",
        "appointment_requested",
        "collecting",
    )
    # Without a calendar the same label is what it always was.
    assert decide_route(RouteInput(intent="OFFTOPIC")).route == "REDIRECT"


def test_a_reply_to_the_slots_stays_in_the_booking_whatever_its_label() -> None:
    for intent in ("OFFTOPIC", "OTHER", "BOOKING", "CONTEXT"):
        inp = RouteInput(intent=intent, booking_status="collecting", appointment_reply=True)
        assert decide_route(inp).reason == "appointment_reply"


def test_cancelling_a_booked_appointment_is_not_escalated() -> None:
    inp = RouteInput(
        intent="STOP_BOOKING",
        high_stakes=True,
        booking_status="booked",
        appointment_change="cancel",
    )
    assert decide_route(inp).reason == "appointment_cancel"
    assert decide_route(RouteInput(intent="STOP_BOOKING", booking_status="booked")).route == (
        "REDIRECT"
    )


@pytest.mark.parametrize("intent", ["SUPPORT", "LEARN", "OFFTOPIC", "BOOKING", "STOP_BOOKING"])
def test_a_change_of_the_appointment_wins_over_the_intent_label(intent: str) -> None:
    # "I need to cancel my appointment" is SUPPORT to the intent model, "Please move my
    # appointment to another day" OFFTOPIC, "Können wir den Termin verschieben?" STOP_BOOKING.
    for change in ("cancel", "move", "ask"):
        inp = RouteInput(
            intent=intent, booking_status="booked", appointment_change=change, high_stakes=True
        )
        assert (decide_route(inp).route, decide_route(inp).reason) == (
            "BOOKING",
            f"appointment_{change}",
        )
    # Without a change read, a support question stays a support question.
    assert decide_route(RouteInput(intent=intent, booking_status="booked")).reason != (
        "appointment_cancel"
    )


def test_booking_flow() -> None:
    assert booking_flow("profiling_answer", has_calendar=True, phase=None) == "profiling"
    assert booking_flow("content_gating_email", has_calendar=True, phase=None) == "gating"
    assert booking_flow("booking_requested", has_calendar=True, phase=None) == "appointment"
    assert booking_flow("booking_field_answer", has_calendar=True, phase="failed") == "email"
    assert booking_flow("booking_requested", has_calendar=False, phase=None) == "email"


@pytest.mark.parametrize(
    ("reason", "phase", "picked", "contact", "timed", "moving", "step"),
    [
        ("appointment_requested", None, False, False, True, False, "offer"),
        ("appointment_reply", "offered", True, False, False, False, "ask_contact"),
        ("appointment_reply", "offered", True, True, False, False, "book"),
        ("appointment_reply", "contact", False, True, False, False, "book"),
        ("appointment_reply", "contact", False, False, False, False, "ask_contact"),
        ("appointment_reply", "contact", False, False, True, False, "offer"),
        ("appointment_reply", "offered", False, False, True, False, "offer"),
        ("appointment_requested", "booked", False, True, True, False, "offer"),
        ("appointment_reply", "booked", True, True, False, True, "move"),
        ("post_conversion", "booked", False, True, False, False, "status"),
        ("appointment_cancel", "booked", False, True, False, False, "cancel"),
        ("appointment_move", "booked", False, True, False, False, "offer"),
        ("appointment_ask", "booked", False, True, False, False, "status"),
        ("appointment_ask", "booked", False, True, True, False, "status"),
    ],
)
def test_appointment_step(
    reason: str,
    phase: str | None,
    picked: bool,
    contact: bool,
    timed: bool,
    moving: bool,
    step: str,
) -> None:
    assert (
        appointment_step(
            reason,
            phase=phase,
            picked=picked,
            has_contact=contact,
            names_time=timed,
            moving=moving,
        )
        == step
    )

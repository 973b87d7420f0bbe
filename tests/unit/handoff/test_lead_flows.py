"""Pure pieces of the lead flows: follow-up routing, skill endings, business hours config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from frontdesk.conversation.nodes.skills import (
    follow_up_context,
    is_affirmative,
    next_profiling_question,
    skill_ending,
)
from frontdesk.conversation.route_table import RouteInput, decide_route
from frontdesk.leads.hours import OpeningRange
from frontdesk.settings import DEMO_DIR
from frontdesk.sites.registry import SiteConfigError, load_site_file
from frontdesk.sites.schema import ProfilingForm

pytestmark = pytest.mark.unit

FORMS = [
    ProfilingForm.model_validate(
        {
            "id": "demo_request",
            "groups": [
                {
                    "id": "about_you",
                    "fields": [
                        {"id": "company_size", "question": {"en": "How many people?"}},
                        {
                            "id": "use_case",
                            "question": {"en": "What first?", "ru": "Что сначала?"},
                        },
                    ],
                }
            ],
        }
    )
]
ALL = ("propose_demo", "collect_email", "ask_profiling_question", "suggest_follow_up")


def ending(skills: tuple[str, ...], collected: dict[str, str] | None = None, **kw: Any) -> str:
    options: dict[str, Any] = {"enabled": ALL, "language": "en", **kw}
    return skill_ending(skills, forms=FORMS, collected=collected or {}, site_name="Acme", **options)


def test_profiling_asks_the_fields_in_order_one_at_a_time() -> None:
    assert ending(("ask_profiling_question",)) == "👉 How many people?"
    assert ending(("ask_profiling_question",), {"company_size": "200"}) == "👉 What first?"
    assert ending(("ask_profiling_question",), {"company_size": "200"}, language="ru") == (
        "👉 Что сначала?"
    )
    done = {"company_size": "200", "use_case": "invoices"}
    assert ending(("ask_profiling_question",), done) == ""
    assert next_profiling_question(FORMS, done, "en") is None


def test_content_gating_and_demo_endings_carry_their_markers() -> None:
    assert ending(("collect_email",)).endswith("💌")
    assert ending(("propose_demo",)).endswith("👇")
    assert ending(("propose_demo",), language="de").endswith("👇")


def test_disabled_skills_end_nothing() -> None:
    assert ending(("propose_demo",), enabled=("suggest_follow_up",)) == ""
    assert ending(("suggest_follow_up",)) == ""


def state(turn: int, text: str, **extra: Any) -> Any:
    return {"input": text, "turn_number": turn, "messages": [], **extra}


def test_follow_up_context_reads_what_the_previous_reply_asked() -> None:
    ctx = follow_up_context(
        state(
            3,
            "about 200 people",
            progress={"stall_offer_turn": 2},
            dialog_supervision={
                "content_gating_ask_turn": 2,
                "demo_proposed_turn": 2,
                "profiling_field_by_turn": {"2": "a"},
            },
        )
    )
    assert ctx == {
        "stall_offer_pending": True,
        "email_asked_last_turn": True,
        "profiling_answer": True,
        "booking_question": False,
        "handoff_offer_pending": False,
        "affirmative": False,
        "demo_proposed_last_turn": True,
    }
    emailed = follow_up_context(
        state(3, "sure, ana@corp.io", dialog_supervision={"profiling_field_by_turn": {"2": "a"}})
    )
    assert not emailed["profiling_answer"]  # an email is not a form answer
    stale = follow_up_context(state(5, "ok?", progress={"stall_offer_turn": 2}))
    assert not stale["stall_offer_pending"] and not stale["profiling_answer"]
    booked = follow_up_context(state(4, "When is my demo?", booking={"status": "booked"}))
    assert booked["booking_question"]
    offered = follow_up_context(state(2, "Yes, please", progress={"handoff_offer_turn": 1}))
    assert offered["handoff_offer_pending"] and offered["affirmative"]


@pytest.mark.parametrize(
    ("text", "yes"),
    [
        ("Yes, please", True),
        ("sure", True),
        ("Да, давайте", True),
        ("Oui, volontiers", True),
        ("Ja, gerne", True),
        ("ok!", True),
        ("Not now", False),
        ("no thanks", False),
        ("Nicht jetzt", False),
        ("yes but first tell me about your SOC 2 report and the data retention policy", False),
        ("Which integrations do you support?", False),
    ],
)
def test_a_yes_to_a_proposal(text: str, yes: bool) -> None:
    assert is_affirmative(text) is yes


@pytest.mark.parametrize(
    ("inp", "route", "reason"),
    [
        (
            RouteInput("OTHER", stall_offer_pending=True, message_has_email=True),
            "HANDOFF",
            "stall_accepted",
        ),
        (RouteInput("OTHER", stall_offer_pending=True), "REDIRECT", "other"),
        (
            RouteInput("OTHER", email_asked_last_turn=True, message_has_email=True),
            "BOOKING",
            "content_gating_email",
        ),
        (RouteInput("CONTEXT", profiling_answer=True), "BOOKING", "profiling_answer"),
        # A reply to 👉 is its answer whatever it looks like ("fixing our invoice sync")...
        (RouteInput("SUPPORT", profiling_answer=True), "BOOKING", "profiling_answer"),
        (RouteInput("BOOKING", profiling_answer=True), "BOOKING", "profiling_answer"),
        (
            RouteInput("CONTEXT", profiling_answer=True, hot_lead=True),
            "BOOKING",
            "profiling_answer",
        ),
        # ...unless it asks for a demo or sales in so many words.
        (
            RouteInput("BOOKING", profiling_answer=True, booking_wish=True),
            "BOOKING",
            "booking_requested",
        ),
        # post-conversion: questions about the booking are answered from the booking state
        (
            RouteInput("OFFTOPIC", booking_status="booked", booking_question=True),
            "BOOKING",
            "post_conversion",
        ),
        (RouteInput("BOOKING", booking_status="booked"), "BOOKING", "post_conversion"),
        # … and a hot lead is not proposed the demo again after booking
        (RouteInput("CONTEXT", hot_lead=True, booking_status="booked"), "ANSWER", "context"),
        (RouteInput("CONTEXT", hot_lead=True), "HANDOFF", "hot_lead"),
        # a yes (or an email) right after a proposed person accepts it
        (
            RouteInput("OTHER", handoff_offer_pending=True, affirmative=True),
            "HANDOFF",
            "handoff_accepted",
        ),
        (
            RouteInput(
                "OTHER",
                handoff_offer_pending=True,
                message_has_email=True,
                email_asked_last_turn=True,
            ),
            "HANDOFF",
            "handoff_accepted",
        ),
        (RouteInput("OTHER", affirmative=True), "REDIRECT", "other"),
        # people first: an explicit request wins over every pending flow
        (
            RouteInput("OTHER", explicit_human_request=True, profiling_answer=True),
            "HANDOFF",
            "explicit_request",
        ),
    ],
)
def test_follow_up_routes(inp: RouteInput, route: str, reason: str) -> None:
    decision = decide_route(inp)
    assert (decision.route, decision.reason) == (route, reason)


def write_site(tmp_path: Path, **hours: Any) -> Path:
    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["business_hours"].update(hours)
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("hours", "field"),
    [
        ({"start": "half past nine"}, "business_hours.start"),
        ({"same_day_cutoff": "25:00"}, "business_hours.same_day_cutoff"),
        ({"weekly": {"mon-fri": ["09:00-17:00"]}}, "business_hours"),
        ({"timezone": "CET+1"}, "business_hours.timezone"),
        ({"start": "19:00"}, "business_hours"),
        ({"same_day_cutoff": "20:00"}, "business_hours"),
    ],
)
def test_invalid_business_hours_fail_at_load_naming_file_and_field(
    tmp_path: Path, hours: dict[str, Any], field: str
) -> None:
    path = write_site(tmp_path, **hours)
    with pytest.raises(SiteConfigError) as error:
        load_site_file(path)
    message = str(error.value)
    assert str(path) in message and f"  - {field}:" in message


def test_simple_form_hours_load_with_minutes(tmp_path: Path) -> None:
    site = load_site_file(write_site(tmp_path, start="08:30", end="17:00"))
    assert site.config.business_hours.hours().weekly[0] == (OpeningRange(8 * 60 + 30, 17 * 60),)

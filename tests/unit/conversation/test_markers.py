"""Emoji-marker protocol: dialog_state_extractor, form_field_extractor, history replay."""

from __future__ import annotations

from typing import Any, get_type_hints
from urllib.parse import parse_qs, urlsplit

import pytest

from frontdesk.conversation.markers import (
    BOOKING_URL_KEY,
    Markers,
    booking_url_with_fields,
    dialog_state_update,
    form_field_ids,
    form_field_update,
    parse_markers,
    replay_history,
    strip_markers,
    turns_since,
)
from frontdesk.conversation.reducers import EVER_FLAGS, STICKY_FLAGS, merge_dialog_supervision
from frontdesk.conversation.substates import DialogSupervision, Qualification
from frontdesk.sites.schema import FormField, FormGroup, ProfilingForm

pytestmark = pytest.mark.unit

# The hexa.com example: two qualification questions, asked in config order.
HEXA = [
    ProfilingForm(
        id="apply",
        groups=[
            FormGroup(
                id="stage",
                fields=[FormField(id="company_stage", question={"en": "Where is your company?"})],
            ),
            FormGroup(
                id="profile",
                fields=[
                    FormField(
                        id="profile_type",
                        question={"en": "Are you a business or technical profile?"},
                    )
                ],
            ),
        ],
    )
]
# The bundled demo site's form (Tessellate), with Russian questions too.
DEMO = [
    ProfilingForm(
        id="demo_request",
        groups=[
            FormGroup(
                id="about_you",
                fields=[
                    FormField(
                        id="company_size",
                        question={
                            "en": "How many people work at your company?",
                            "ru": "Сколько человек работает в вашей компании?",
                        },
                    ),
                    FormField(
                        id="use_case",
                        question={"en": "Which workflows would you like to automate first?"},
                    ),
                ],
            )
        ],
    )
]
BOOKING = "https://tessellate.example/book-a-demo"

# --- parsing ----------------------------------------------------------------------------

PARSED = [
    ("👉 What stage is your company at?", Markers("What stage is your company at?")),
    (
        "Great question!\n👉 Business or technical profile?",
        Markers("Business or technical profile?"),
    ),
    ("👉🏽 Which team would use it?", Markers("Which team would use it?")),
    ("You can pick a time with the button below. 👇", Markers(proposed_demo=True)),
    ("I can send you the case study — what's your email? 💌", Markers(asked_email=True)),
    ("Here is how sync works [1].", Markers()),
    ("Want the guide? 💌\nOr book a demo 👇", Markers(proposed_demo=True, asked_email=True)),
]


@pytest.mark.parametrize(("reply", "expected"), PARSED)
def test_parse_markers(reply: str, expected: Markers) -> None:
    assert parse_markers(reply) == expected


def test_strip_markers_leaves_what_the_visitor_reads() -> None:
    assert strip_markers("Book below 👇") == "Book below"
    assert strip_markers("👉  Which  team?\nThanks 💌") == "Which team?\nThanks"
    assert strip_markers("👉🏽 Hi ❤️") == "Hi ❤️"


def test_field_ids_follow_config_order() -> None:
    assert form_field_ids(HEXA) == ["company_stage", "profile_type"]
    assert form_field_ids(DEMO + HEXA) == [
        "company_size",
        "use_case",
        "company_stage",
        "profile_type",
    ]


# --- dialog_state_extractor ---------------------------------------------------------------

QUALIFICATION_MARKERS = [
    # marker, its dialog-supervision flag, its turn-index key
    ("💌", "email_asked_last_turn", "content_gating_ask_turn"),
    ("👇", "demo_was_proposed_last_turn", "demo_proposed_turn"),
    ("👉", "profiling_asked_last_turn", "profiling_ask_turn"),
]


@pytest.mark.parametrize(("marker", "flag", "turn_key"), QUALIFICATION_MARKERS)
def test_marker_sets_latest_flag_turn_and_ever(marker: str, flag: str, turn_key: str) -> None:
    update = dialog_state_update(f"Sure. {marker}", turn_number=3)
    assert update[flag] is True
    assert update[turn_key] == 3
    others = {f for _, f, _ in QUALIFICATION_MARKERS} - {flag}
    assert not any(update[f] for f in others)
    assert any(key.startswith("ever_") and value for key, value in update.items())


def test_latest_flags_reset_but_ever_flags_stay() -> None:
    state = merge_dialog_supervision({}, dialog_state_update("Book below 👇", turn_number=0))
    state = merge_dialog_supervision(state, dialog_state_update("Plain answer.", turn_number=1))
    assert state["demo_was_proposed_last_turn"] is False
    assert state["ever_proposed_demo"] is True
    assert state["demo_proposed_turn"] == 0


def test_the_reducers_name_every_cumulative_key() -> None:
    """The reducers keep `ever_*` supervision keys and the qualification's flags (but the
    latest turn's human request) once set: a key added to a sub-state is among them."""
    ever = {key for key in DialogSupervision.__annotations__ if key.startswith("ever_")}
    assert set(EVER_FLAGS) == ever
    flags = {key for key, kind in get_type_hints(Qualification).items() if kind is bool}
    assert set(STICKY_FLAGS) == flags - {"explicit_human_request"}


def test_turn_alignment_matches_the_worked_example() -> None:
    # After a 💌 reply, the next turn's skill_selector sees turns_since_ask == 1.
    rebuilt = replay_history(
        [("user", "Do you have a case study?"), ("assistant", "I can email it to you 💌")]
    )
    assert rebuilt["turn_number"] == 1  # assistant messages in history
    supervision = rebuilt["dialog_supervision"]
    assert supervision["email_asked_last_turn"] is True
    assert turns_since(supervision, "content_gating_ask_turn", rebuilt["turn_number"]) == 1
    assert turns_since(supervision, "demo_proposed_turn", 1) is None


def test_email_typed_by_the_visitor_is_captured() -> None:
    update = dialog_state_update(
        "Thanks, talk soon!", turn_number=2, user_message="sure: jane@acme.io"
    )
    assert update["captured_email"] == "jane@acme.io"
    assert update["email_captured_last_turn"] and update["ever_captured_email"]
    assert update["email_captured_turn"] == 2
    bare = dialog_state_update("Thanks!", turn_number=3, user_message="no thanks")
    assert bare["email_captured_last_turn"] is False and "captured_email" not in bare


def test_an_example_address_in_the_reply_is_not_captured() -> None:
    update = dialog_state_update("Use a work email, e.g. name@company.com 💌", turn_number=1)
    assert "captured_email" not in update and update["email_asked_last_turn"]


def test_profiling_questions_map_to_fields_by_order() -> None:
    first = dialog_state_update("👉 What's your stage?", turn_number=0, forms=HEXA)
    assert first["profiling_field_id"] == "company_stage"
    state = merge_dialog_supervision({}, first)
    second = dialog_state_update("👉 And your role?", turn_number=1, previous=state, forms=HEXA)
    assert second["profiling_field_id"] == "profile_type"
    assert second["profiling_questions_asked"] == 2
    assert second["profiling_field_by_turn"] == {"0": "company_stage", "1": "profile_type"}
    state = merge_dialog_supervision(state, second)
    third = dialog_state_update("👉 Anything else?", turn_number=2, previous=state, forms=HEXA)
    assert third["profiling_field_id"] is None  # beyond the configured fields
    assert "2" not in third["profiling_field_by_turn"]


def test_a_quoted_configured_question_wins_over_order() -> None:
    # The bot re-asks the first question on its second 👉: the text identifies the field.
    state = merge_dialog_supervision(
        {},
        dialog_state_update("👉 How many people work at your company?", turn_number=0, forms=DEMO),
    )
    again = dialog_state_update(
        "No worries! 👉 How many people work at your company?",
        turn_number=1,
        previous=state,
        forms=DEMO,
    )
    assert again["profiling_field_id"] == "company_size"
    russian = dialog_state_update(
        "👉 Какие процессы хотите автоматизировать? Сколько человек работает в вашей компании?",
        turn_number=0,
        forms=DEMO,
    )
    assert russian["profiling_field_id"] == "company_size"


def test_negative_turn_is_rejected() -> None:
    with pytest.raises(ValueError):
        dialog_state_update("hi", turn_number=-1)


# --- form_field_extractor -----------------------------------------------------------------


def _asked(field_turns: dict[str, str]) -> dict[str, Any]:
    return {"profiling_field_by_turn": field_turns}


def test_answer_to_last_turns_question_is_collected() -> None:
    found = form_field_update(
        "About 200 people",
        turn_number=3,
        dialog_supervision=_asked({"2": "company_size"}),
        form_collection={},
        booking_url=BOOKING,
    )
    assert found.form_collection == {
        "collected_values": {"company_size": "About 200 people"},
        "last_turn": 3,
    }
    assert found.cta_url_overrides == {
        BOOKING_URL_KEY: f"{BOOKING}?company_size=About%20200%20people"
    }


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("What does it cost?", {"2": "company_size"}),  # a question back is not an answer
        ("   ", {"2": "company_size"}),
        ("About 200 people", {"1": "company_size"}),  # asked two turns ago, not last turn
        ("About 200 people", {}),
    ],
)
def test_nothing_collected(message: str, asked: dict[str, str]) -> None:
    found = form_field_update(
        message,
        turn_number=3,
        dialog_supervision=_asked(asked),
        form_collection=None,
        booking_url=BOOKING,
    )
    assert found.form_collection == {} and found.cta_url_overrides == {}


def test_order_independent_of_the_dialog_state_extractor() -> None:
    # Turn 1 answers the 👉 of turn 0; this turn's reply asks the next 👉. Reading the
    # supervision before or after this turn's update gives the same answer field.
    before = merge_dialog_supervision(
        {}, dialog_state_update("👉 Where is your company?", turn_number=0, forms=HEXA)
    )
    after = merge_dialog_supervision(
        before,
        dialog_state_update(
            "👉 Business or technical?", turn_number=1, previous=before, forms=HEXA
        ),
    )
    for supervision in (before, after):
        found = form_field_update(
            "Seed stage",
            turn_number=1,
            dialog_supervision=supervision,
            form_collection={},
            booking_url="",
        )
        assert found.form_collection["collected_values"] == {"company_stage": "Seed stage"}
        assert found.cta_url_overrides == {}  # no booking URL configured


def test_same_turn_is_not_extracted_twice() -> None:
    found = form_field_update(
        "Logistics",
        turn_number=4,
        dialog_supervision=_asked({"3": "use_case"}),
        form_collection={"collected_values": {"use_case": "Invoices"}, "last_turn": 4},
        booking_url=BOOKING,
    )
    assert found.form_collection == {}
    assert found.cta_url_overrides == {BOOKING_URL_KEY: f"{BOOKING}?use_case=Invoices"}


def test_booking_url_encodes_fields_and_the_conversation_email() -> None:
    found = form_field_update(
        "Счета & заказы / 2024",
        turn_number=2,
        dialog_supervision={**_asked({"1": "use_case"}), "captured_email": "ivan+demo@acme.ru"},
        form_collection={"collected_values": {"company_size": "50"}, "last_turn": 1},
        booking_url="https://cal.example/t/demo?utm_source=chat&company_size=old#slots",
    )
    url = found.cta_url_overrides[BOOKING_URL_KEY]
    parts = urlsplit(url)
    assert parts.fragment == "slots" and parts.path == "/t/demo"
    assert " " not in url and "&заказы" not in url  # properly encoded
    assert parse_qs(parts.query) == {
        "utm_source": ["chat"],
        "company_size": ["50"],
        "use_case": ["Счета & заказы / 2024"],
        "email": ["ivan+demo@acme.ru"],
    }


def test_email_alone_makes_an_override() -> None:
    found = form_field_update(
        "it's jane@acme.io",
        turn_number=5,
        dialog_supervision={},
        form_collection={},
        booking_url=BOOKING,
    )
    assert found.cta_url_overrides == {BOOKING_URL_KEY: f"{BOOKING}?email=jane%40acme.io"}
    explicit = booking_url_with_fields(BOOKING, {}, "a@b.io")
    assert explicit == f"{BOOKING}?email=a%40b.io"


def test_long_answers_are_capped_in_the_url() -> None:
    url = booking_url_with_fields(BOOKING, {"use_case": "x" * 1000})
    assert len(parse_qs(urlsplit(url).query)["use_case"][0]) == 200


# --- history replay -----------------------------------------------------------------------


def test_full_multi_turn_qualification_example() -> None:
    history = [
        ("user", "I want to apply"),
        ("assistant", "👉 What stage is your company at?"),
        ("user", "I'm exploring an idea"),
        ("assistant", "👉 Business or technical profile?"),
    ]
    rebuilt = replay_history(history, forms=HEXA, booking_url=BOOKING)
    assert rebuilt["turn_number"] == 2
    assert rebuilt["form_collection"]["collected_values"] == {
        "company_stage": "I'm exploring an idea"
    }
    supervision = rebuilt["dialog_supervision"]
    assert supervision["profiling_asked_last_turn"] is True
    assert supervision["profiling_field_id"] == "profile_type"  # pending: step 4b
    assert rebuilt["cta_url_overrides"] == {
        BOOKING_URL_KEY: f"{BOOKING}?company_stage=I%27m%20exploring%20an%20idea"
    }
    # The final query answers the pending question.
    final = form_field_update(
        "Technical",
        turn_number=rebuilt["turn_number"],
        dialog_supervision=supervision,
        form_collection=rebuilt["form_collection"],
        booking_url=BOOKING,
    )
    assert final.form_collection["collected_values"] == {"profile_type": "Technical"}
    assert parse_qs(urlsplit(final.cta_url_overrides[BOOKING_URL_KEY]).query) == {
        "company_stage": ["I'm exploring an idea"],
        "profile_type": ["Technical"],
    }


def test_replay_skips_reconnect_artifacts_and_rejects_unknown_roles() -> None:
    rebuilt = replay_history(
        [("user", ""), ("user", "hi"), ("assistant", "Hello! Book a demo below 👇")]
    )
    assert rebuilt["turn_number"] == 1
    assert rebuilt["dialog_supervision"]["demo_was_proposed_last_turn"] is True
    assert rebuilt["form_collection"] == {} and rebuilt["cta_url_overrides"] == {}
    with pytest.raises(ValueError):
        replay_history([("system", "you are a bot")])


def test_replay_matches_turn_by_turn_runtime() -> None:
    history = [
        ("user", "hello"),
        ("assistant", "Hi! 👉 How many people work at your company?"),
        ("user", "120, email me at ops@northpeak.io"),
        ("assistant", "Thanks! Want our logistics case study? 💌"),
    ]
    rebuilt = replay_history(history, forms=DEMO, booking_url=BOOKING)
    supervision = rebuilt["dialog_supervision"]
    assert supervision["ever_asked_profiling"] and supervision["ever_asked_email"]
    assert supervision["profiling_asked_last_turn"] is False
    assert supervision["captured_email"] == "ops@northpeak.io"
    assert parse_qs(urlsplit(rebuilt["cta_url_overrides"][BOOKING_URL_KEY]).query) == {
        "company_size": ["120, email me at ops@northpeak.io"],
        "email": ["ops@northpeak.io"],
    }

"""Multi-turn history reconstruction, rule by rule, and the worked example "Technical"."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from frontdesk.conversation.markers import (
    form_field_ids,
    form_field_update,
    pending_profiling_field,
    turns_since,
)
from frontdesk.evals.dataset import parse_items
from frontdesk.evals.replay import (
    REPLAY_AS_NODE,
    HistoryTurn,
    filter_history,
    inject,
    marker_turn,
    reconstruct,
)
from frontdesk.sites.schema import FormField, FormGroup, ProfilingForm

pytestmark = pytest.mark.unit

# The worked example's site (hexa.com): two qualification fields, in this configuration order.
HEXA = [
    ProfilingForm(
        id="apply",
        groups=[
            FormGroup(
                id="stage",
                fields=[FormField(id="company_stage", question={"en": "What stage?"})],
            ),
            FormGroup(
                id="profile",
                fields=[FormField(id="profile_type", question={"en": "Business or technical?"})],
            ),
        ],
    )
]
FIELDS = form_field_ids(HEXA)

# The worked example "Technical" as a multi-turn dataset item.
TECHNICAL_ITEM = """{"input": {"query": "Technical"},
 "expected_output": {"response": "The bot should propose the CTA using the 👇 emoji..."},
 "metadata": {"site_name": "hexa.com", "history": [
   {"role": "user", "content": "I want to apply"},
   {"role": "assistant", "content": "👉 What stage is your company at?"},
   {"role": "user", "content": "I'm exploring an idea"},
   {"role": "assistant", "content": "👉 Business or technical profile?"}]}}"""


def user(text: str, index: int | None = None) -> dict[str, Any]:
    return {"role": "user", "content": text, "message_index": index}


def bot(text: str, index: int | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": text, "message_index": index}


def roles(turns: list[HistoryTurn]) -> list[tuple[str, str]]:
    return [(t.role, t.content) for t in turns]


# --- the worked example -------------------------------------------------------------------


def test_technical_produces_exactly_the_worked_state_table() -> None:
    item = parse_items(["".join(TECHNICAL_ITEM.splitlines())])[0]
    rebuilt = reconstruct(item.metadata.history, item.query, FIELDS)
    update = rebuilt.state_update()
    # | messages | 4 messages (2 user + 2 assistant) |
    messages = update["messages"]
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, HumanMessage, AIMessage]
    assert [m.content for m in messages] == [
        "I want to apply",
        "👉 What stage is your company at?",
        "I'm exploring an idea",
        "👉 Business or technical profile?",
    ]
    # | turn_number | 2 (2 assistant turns) |
    assert update["turn_number"] == 2
    # | profiling_state.collected_values | {"company_stage": "I'm exploring an idea"} |
    # | profiling_state.last_extraction_turn | 2 (qualification pending) |
    assert update["form_collection"] == {
        "collected_values": {"company_stage": "I'm exploring an idea"},
        "last_extraction_turn": 2,
    }
    # no 💌/👇 in the last assistant message, and interest signals are never injected
    assert set(update) == {"messages", "turn_number", "form_collection"}


def test_technical_final_query_is_extracted_as_the_pending_field() -> None:
    """Step 4b's purpose: the extractor fires on the final query ("Guard 3 passes")."""
    item = parse_items(["".join(TECHNICAL_ITEM.splitlines())])[0]
    update = reconstruct(item.metadata.history, item.query, FIELDS).state_update()
    collection = update["form_collection"]
    assert pending_profiling_field(None, collection, 2, HEXA) == "profile_type"
    found = form_field_update(
        "Technical",
        turn_number=2,
        dialog_supervision=None,
        form_collection=collection,
        booking_url="https://hexa.com/apply",
        forms=HEXA,
    )
    assert found.form_collection["collected_values"] == {"profile_type": "Technical"}
    assert "profile_type=Technical" in found.cta_url_overrides["booking_url"]
    # without step 4b (default -1) the extractor skips and the question would be re-asked
    skipped = {**collection, "last_extraction_turn": -1}
    assert pending_profiling_field(None, skipped, 2, HEXA) is None


# --- step 1: filter -------------------------------------------------------------------


def test_history_is_sorted_by_message_index() -> None:
    history = [bot("a1", 1), user("u2", 2), user("u0", 0), bot("a3", 3)]
    assert roles(filter_history(history, "final")) == [
        ("user", "u0"),
        ("assistant", "a1"),
        ("user", "u2"),
        ("assistant", "a3"),
    ]


def test_history_stops_before_the_user_message_equal_to_the_final_query() -> None:
    history = [user("hi"), bot("hello"), user("  Technical "), bot("later reply"), user("more")]
    assert roles(filter_history(history, "Technical")) == [("user", "hi"), ("assistant", "hello")]


def test_empty_user_messages_are_skipped() -> None:
    history = [user("hi"), bot("hello"), user(""), user("   "), bot("anything else?")]
    assert roles(filter_history(history, "q")) == [
        ("user", "hi"),
        ("assistant", "hello"),
        ("assistant", "anything else?"),
    ]


def test_duplicate_assistant_responses_are_dropped() -> None:
    # a reconnect re-delivers the greeting; a repeated reply in a later turn is kept
    history = [
        bot("Hi!"),
        user(""),
        bot("Hi!"),
        user("price?"),
        bot("Ask sales."),
        user("price??"),
        bot("Ask sales."),
    ]
    assert roles(filter_history(history, "q")) == [
        ("assistant", "Hi!"),
        ("user", "price?"),
        ("assistant", "Ask sales."),
        ("user", "price??"),
        ("assistant", "Ask sales."),
    ]


def test_unknown_roles_are_rejected_and_aliases_accepted() -> None:
    assert roles(filter_history([{"role": "human", "content": "x"}], "q")) == [("user", "x")]
    with pytest.raises(ValueError, match="unknown history role"):
        filter_history([{"role": "system", "content": "x"}], "q")


# --- step 2: messages and turn_number ----------------------------------------------------


def test_turn_number_counts_assistant_messages() -> None:
    rebuilt = reconstruct([bot("Hi!"), user("q1"), bot("a1"), user("q2")], "final")
    assert rebuilt.turn_number == 2
    assert [type(m) for m in rebuilt.messages] == [AIMessage, HumanMessage, AIMessage, HumanMessage]


# --- step 3: dialog supervision ---------------------------------------------------------


def test_email_marker_in_the_last_assistant_message() -> None:
    rebuilt = reconstruct([user("tell me more"), bot("Want the case study? 💌")], "a@b.io")
    assert rebuilt.dialog_supervision == {
        "email_asked_last_turn": True,
        "demo_was_proposed_last_turn": False,
        "content_gating_ask_turn": 0,
    }
    # alignment with the graph: the next turn's skill selector sees turns_since_ask == 1
    supervision = rebuilt.state_update()["dialog_supervision"]
    assert turns_since(supervision, "content_gating_ask_turn", rebuilt.turn_number) == 1


def test_demo_marker_and_markers_of_earlier_messages() -> None:
    demo = reconstruct([user("q"), bot("Book below 👇")], "ok")
    assert demo.dialog_supervision == {
        "email_asked_last_turn": False,
        "demo_was_proposed_last_turn": True,
        # recorded at the turn the graph records its own 👇, so "yes" accepts the demo
        "demo_proposed_turn": marker_turn(demo.turn_number),
    }
    earlier = reconstruct([user("q"), bot("Email? 💌"), user("no"), bot("Sure.")], "x")
    assert earlier.dialog_supervision is None  # only the LAST assistant message counts


@pytest.mark.parametrize("pairs", [1, 2, 3, 5])
def test_marker_turn_matches_the_marker_formula_for_alternating_histories(pairs: int) -> None:
    history = [m for i in range(pairs) for m in (user(f"q{i}"), bot(f"a{i} 💌"))]
    rebuilt = reconstruct(history, "final")
    num_messages = len(rebuilt.turns)
    expected_emoji_turn = (num_messages // 2 + 1) - 1  # the emoji turn counted from 1
    assert rebuilt.dialog_supervision is not None
    assert rebuilt.dialog_supervision["content_gating_ask_turn"] == expected_emoji_turn - 1
    assert marker_turn(rebuilt.turn_number) == rebuilt.turn_number - 1


def test_alignment_holds_when_the_history_opens_with_a_greeting() -> None:
    rebuilt = reconstruct([bot("Hi!"), user("q"), bot("Case study? 💌")], "x")
    supervision = rebuilt.state_update()["dialog_supervision"]
    assert turns_since(supervision, "content_gating_ask_turn", rebuilt.turn_number) == 1


# --- step 4: profiling ------------------------------------------------------------------


def test_question_answer_pairs_map_to_fields_by_order() -> None:
    history = [
        user("hi"),
        bot("👉 Stage?"),
        user("Seed"),
        bot("👉 Profile?"),
        user("Business"),
        bot("Thanks!"),
    ]
    rebuilt = reconstruct(history, "final", FIELDS)
    assert rebuilt.profiling == {
        "collected_values": {"company_stage": "Seed", "profile_type": "Business"},
        "last_extraction_turn": -1,
    }


def test_only_a_question_followed_by_a_user_message_is_a_pair() -> None:
    history = [
        bot("👉 Stage?"),
        bot("Let me know when you're ready."),
        user("Seed"),
        bot("👉 Profile?"),
        user("Tech"),
        bot("👉 Extra?"),
        user("more"),
        bot("👉 Another?"),
        user("x"),
    ]
    rebuilt = reconstruct(history, "final", FIELDS)
    # the first 👉 is followed by another assistant message: no pair, "Seed" answers nothing;
    # (Profile?, Tech) and (Extra?, more) fill the two fields; the third pair has none left
    assert rebuilt.profiling == {
        "collected_values": {"company_stage": "Tech", "profile_type": "more"},
        "last_extraction_turn": -1,
    }
    assert reconstruct([user("hi"), bot("hello")], "x", FIELDS).profiling is None


def test_pending_question_sets_last_extraction_turn() -> None:
    rebuilt = reconstruct([user("apply"), bot("Sure. 👉 What stage?")], "Seed", FIELDS)
    assert rebuilt.profiling == {"collected_values": {}, "last_extraction_turn": 1}
    answered = reconstruct([user("apply"), bot("👉 What stage?"), user("Seed")], "x", FIELDS)
    assert answered.profiling is not None
    assert answered.profiling["last_extraction_turn"] == -1


# --- steps 5 and 6 ----------------------------------------------------------------------


class RecordingGraph:
    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, Any], dict[str, Any], str | None]] = []

    async def aupdate_state(
        self, config: dict[str, Any], values: dict[str, Any], as_node: str | None = None
    ) -> None:
        self.calls.append((config, values, as_node))


async def test_everything_is_written_with_one_update_and_no_interest_signals() -> None:
    history = [user("hi"), bot("👉 Stage?"), user("Seed"), bot("Here is a case study. 💌 👇")]
    rebuilt = reconstruct(history, "me@acme.io", FIELDS)
    graph = RecordingGraph()
    config = {"configurable": {"thread_id": "hexa:s1"}}
    await inject(graph, config, rebuilt)
    assert len(graph.calls) == 1
    sent_config, values, as_node = graph.calls[0]
    assert sent_config == config and as_node == REPLAY_AS_NODE
    assert set(values) == {"messages", "turn_number", "dialog_supervision", "form_collection"}
    assert "interest_signals" not in values
    assert values["dialog_supervision"]["demo_was_proposed_last_turn"] is True
    assert values["dialog_supervision"]["content_gating_ask_turn"] == 1


def test_a_replayed_demo_offer_is_the_one_the_next_turn_answers() -> None:
    rebuilt = reconstruct([user("q"), bot("Want a demo? Book below 👇")], "Yes, let's do it")
    supervision = rebuilt.state_update()["dialog_supervision"]
    assert turns_since(supervision, "demo_proposed_turn", rebuilt.turn_number) == 1

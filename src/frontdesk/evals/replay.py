"""Multi-turn replay by state injection (history reconstruction).

A multi-turn item carries the conversation so far in `metadata.history`; only the final
query is sent through the graph. Before that, the state the history would have built is
written into the thread's checkpoint with ONE `graph.aupdate_state` call:

1. `filter_history`: sort by `message_index`, stop before the user message equal to the
   final query, skip empty user messages (widget reconnects), drop an assistant reply
   that repeats the one before it;
2. `messages`: user → HumanMessage, assistant → AIMessage; `turn_number` = the number of
   assistant messages (what the skill selector's cooldowns and CTA timing count);
3. `dialog_supervision`, from the 💌 and 👇 markers of the LAST assistant message only,
   aligned so that the next turn's skill selector sees `turns_since_ask == 1`;
4. `form_collection` (`profiling_state`): `collected_values` from the 👉 question
   → user answer pairs, mapped to the site's form field ids by order;
   4b. a 👉 left unanswered by the history means the final query answers it:
   `last_extraction_turn = turn_number`, so the form_field_extractor reads the final
   query as that answer (otherwise it stays -1);
5. interest signals are never injected: `signals_detector` scores them at run time.

State names map to Frontdesk's `ChatState`: `dialog_supervision_state` →
`dialog_supervision`, `profiling_state` → `form_collection`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from frontdesk.conversation.graph import FINISHED_TURN_NODE
from frontdesk.conversation.markers import DEMO_MARKER, EMAIL_MARKER, PROFILING_MARKER
from frontdesk.evals.dataset import HistoryMessage

Role = Literal["user", "assistant"]
ROLES: dict[str, Role] = {
    "user": "user",
    "human": "user",
    "visitor": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "bot": "assistant",
}
NO_EXTRACTION = -1  # default `last_extraction_turn`
REPLAY_AS_NODE = FINISHED_TURN_NODE  # the injected checkpoint looks like a finished turn


@dataclass(frozen=True)
class HistoryTurn:
    role: Role
    content: str


@dataclass(frozen=True)
class Reconstruction:
    """The state a history would have built, before it is written to the checkpoint."""

    turns: tuple[HistoryTurn, ...]
    turn_number: int
    dialog_supervision: dict[str, Any] | None  # None: no 💌/👇 in the last assistant message
    profiling: dict[str, Any] | None  # None: no 👉 pair and nothing pending

    @property
    def messages(self) -> list[BaseMessage]:
        return to_messages(self.turns)

    def state_update(self) -> dict[str, Any]:
        """The single `aupdate_state` payload (step 6)."""
        update: dict[str, Any] = {"messages": self.messages, "turn_number": self.turn_number}
        if self.dialog_supervision is not None:
            update["dialog_supervision"] = dict(self.dialog_supervision)
        if self.profiling is not None:
            update["form_collection"] = {
                "collected_values": dict(self.profiling["collected_values"]),
                "last_extraction_turn": self.profiling["last_extraction_turn"],
            }
        return update


def _role(raw: str) -> Role:
    try:
        return ROLES[raw.strip().casefold()]
    except KeyError:
        raise ValueError(f"unknown history role {raw!r}: expected 'user' or 'assistant'") from None


def _message(raw: HistoryMessage | Mapping[str, Any]) -> HistoryMessage:
    return raw if isinstance(raw, HistoryMessage) else HistoryMessage.model_validate(raw)


def filter_history(
    history: Sequence[HistoryMessage | Mapping[str, Any]], final_query: str
) -> list[HistoryTurn]:
    """Step 1 (`_filter_history_for_injection`).

    Messages without a `message_index` keep their position in the list as their index.
    The stop is at the first user message equal (after trimming) to the final query: the
    dataset's history may already contain the turn under test.
    """
    indexed = [
        (m.message_index if m.message_index is not None else position, position, m)
        for position, m in enumerate(_message(raw) for raw in history)
    ]
    query = final_query.strip()
    kept: list[HistoryTurn] = []
    for _, _, message in sorted(indexed, key=lambda entry: (entry[0], entry[1])):
        role = _role(message.role)
        text = message.content.strip()
        if role == "user":
            if text == query:
                break
            if not text:
                continue  # a widget reconnect artifact
        elif kept and kept[-1].role == "assistant" and kept[-1].content.strip() == text:
            continue  # the same reply delivered twice
        kept.append(HistoryTurn(role, message.content))
    return kept


def to_messages(turns: Sequence[HistoryTurn]) -> list[BaseMessage]:
    """Step 2: "user" → HumanMessage, "assistant" → AIMessage."""
    return [
        HumanMessage(content=t.content) if t.role == "user" else AIMessage(content=t.content)
        for t in turns
    ]


def assistant_turn_count(turns: Sequence[HistoryTurn]) -> int:
    return sum(1 for t in turns if t.role == "assistant")


def marker_turn(turn_number: int) -> int:
    """Turn alignment: the turn a marker of the last reply is recorded at.

    Counting turns from the messages gives `emoji_turn = (num_messages // 2 + 1) - 1`, a
    counter bumped when the next turn starts. Frontdesk's is bumped by `finalize`, so the next
    turn's skill selector reads the injected `turn_number` itself; recording the marker one
    turn earlier gives the same invariant, `turns_since_ask == 1`, for any history
    (including one that opens with an assistant greeting).
    """
    return turn_number - 1


def dialog_supervision_from(
    turns: Sequence[HistoryTurn], turn_number: int
) -> dict[str, Any] | None:
    """Step 3: 💌 and 👇 in the last assistant message, or None without them."""
    last = next((t for t in reversed(turns) if t.role == "assistant"), None)
    if last is None:
        return None
    asked_email, proposed_demo = EMAIL_MARKER in last.content, DEMO_MARKER in last.content
    if not (asked_email or proposed_demo):
        return None
    state: dict[str, Any] = {
        "email_asked_last_turn": asked_email,
        "demo_was_proposed_last_turn": proposed_demo,
    }
    if asked_email:
        state["content_gating_ask_turn"] = marker_turn(turn_number)
    if proposed_demo:  # as the graph records a 👇 of its own reply (`markers.py`)
        state["demo_proposed_turn"] = marker_turn(turn_number)
    return state


def profiling_from(
    turns: Sequence[HistoryTurn], field_ids: Sequence[str], turn_number: int
) -> dict[str, Any] | None:
    """Steps 4 and 4b: 👉 Q&A pairs → `collected_values` by field order, and a
    pending 👉 → `last_extraction_turn = turn_number`. None when there is neither."""
    collected: dict[str, str] = {}
    pairs = 0
    for position, turn in enumerate(turns[:-1]):
        answer = turns[position + 1]
        if turn.role == "assistant" and PROFILING_MARKER in turn.content and answer.role == "user":
            if pairs < len(field_ids):
                collected[field_ids[pairs]] = answer.content
            pairs += 1
    last_assistant = max((i for i, t in enumerate(turns) if t.role == "assistant"), default=None)
    pending = (
        last_assistant is not None
        and PROFILING_MARKER in turns[last_assistant].content
        and not any(t.role == "user" for t in turns[last_assistant + 1 :])
    )
    if not pairs and not pending:
        return None
    return {
        "collected_values": collected,
        "last_extraction_turn": turn_number if pending else NO_EXTRACTION,
    }


def reconstruct(
    history: Sequence[HistoryMessage | Mapping[str, Any]],
    final_query: str,
    field_ids: Sequence[str] = (),
) -> Reconstruction:
    """Steps 1–5 (pure): the state to inject before `final_query` is sent.

    `field_ids` are the site's form fields in configuration order
    (`frontdesk.conversation.markers.form_field_ids(site.qualification.forms)`).
    """
    turns = filter_history(history, final_query)
    turn_number = assistant_turn_count(turns)
    return Reconstruction(
        turns=tuple(turns),
        turn_number=turn_number,
        dialog_supervision=dialog_supervision_from(turns, turn_number),
        profiling=profiling_from(turns, field_ids, turn_number),
    )


async def inject(graph: Any, config: Mapping[str, Any], reconstruction: Reconstruction) -> None:
    """Step 6: write the whole reconstruction with ONE `aupdate_state` call."""
    await graph.aupdate_state(config, reconstruction.state_update(), as_node=REPLAY_AS_NODE)

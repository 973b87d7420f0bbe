"""`ChatState`: what a conversation remembers between turns, with reducers beside fields.

Reducers follow seed 000 "Custom Reducers" and seed 004 (monotonic qualification).
Everything here is checkpointed per thread (site:session); per-run facts (site
config, engines, background tasks) travel in `TurnContext` instead.
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from frontdesk.leads.qualification import CONFIDENCE_RANK, DIMENSIONS

# --- reducers -------------------------------------------------------------------------


def merge_visitor_profile(
    current: dict[str, Any] | None, update: dict[str, Any] | None
) -> dict[str, Any]:
    """Known values win over unknown ones; a new known value replaces an old one."""
    merged = dict(current or {})
    for key, value in (update or {}).items():
        if value in (None, "", "unknown") and merged.get(key) not in (None, "", "unknown"):
            continue
        merged[key] = value
    return merged


def merge_dialog_supervision(
    current: dict[str, Any] | None, update: dict[str, Any] | None
) -> dict[str, Any]:
    """`ever_*` flags are cumulative (once True, always True); other keys are the latest turn."""
    merged = dict(current or {})
    for key, value in (update or {}).items():
        if key.startswith("ever_"):
            merged[key] = bool(merged.get(key)) or bool(value)
        else:
            merged[key] = value
    return merged


def replace_value(current: Any, update: Any) -> Any:
    """Simple replacement (seed 000 `merge_interest_signals_states`)."""
    return update


def merge_form_collection(
    current: dict[str, Any] | None, update: dict[str, Any] | None
) -> dict[str, Any]:
    """Collected values accumulate; `last_turn` keeps the highest turn seen."""
    merged = dict(current or {})
    upd = update or {}
    values = dict(merged.get("collected_values") or {})
    values.update(upd.get("collected_values") or {})
    merged.update({k: v for k, v in upd.items() if k not in ("collected_values", "last_turn")})
    merged["collected_values"] = values
    merged["last_turn"] = max(int(merged.get("last_turn", -1)), int(upd.get("last_turn", -1)))
    return merged


def merge_qualification(
    current: dict[str, Any] | None, update: dict[str, Any] | None
) -> dict[str, Any]:
    """Dimensions only move up (seed 004); flags stay set; the signal log appends.

    The node computes the authoritative new state with `leads.qualification.apply_delta`;
    this reducer is the safety net that keeps a stale or parallel write from downgrading.
    """
    merged = dict(current or {})
    for key, value in (update or {}).items():
        if key in DIMENSIONS:
            old = merged.get(key, "not_detected")
            if CONFIDENCE_RANK[value] >= CONFIDENCE_RANK[old]:
                merged[key] = value
        elif key == "signals_observed":
            merged[key] = list(value)
        elif key == "explicit_human_request":
            merged[key] = bool(value)  # latest turn only
        elif isinstance(value, bool):
            merged[key] = bool(merged.get(key)) or value
        else:
            merged[key] = value
    return merged


def append_items(current: list[str] | None, update: list[str] | None) -> list[str]:
    return [*(current or []), *(update or [])]


# --- state ----------------------------------------------------------------------------


class ChatState(TypedDict):
    # conversation
    messages: Annotated[list[AnyMessage], add_messages]
    input: str
    language: NotRequired[str]
    turn_number: NotRequired[int]  # assistant turns completed before this one (0-indexed)

    # visitor and lead
    visitor_profile: NotRequired[Annotated[dict[str, Any], merge_visitor_profile]]
    dialog_supervision: NotRequired[Annotated[dict[str, Any], merge_dialog_supervision]]
    interest_signals: NotRequired[Annotated[dict[str, Any], replace_value]]
    form_collection: NotRequired[Annotated[dict[str, Any], merge_form_collection]]
    qualification: NotRequired[Annotated[dict[str, Any], merge_qualification]]
    progress: NotRequired[dict[str, Any]]  # stage, turn_counter, stage3_proposals_issued
    skill_selection: NotRequired[dict[str, Any]]
    booking: NotRequired[dict[str, Any]]  # status: idle|collecting|booked, email, ...

    # understanding and routing
    intent: NotRequired[dict[str, Any]]  # label, confidence, high_stakes, nonsense, reasoning
    intent_history: NotRequired[Annotated[list[str], append_items]]
    route: NotRequired[str]  # ANSWER | REDIRECT | BOOKING | HANDOFF
    route_reason: NotRequired[str]

    # answer path
    search_query: NotRequired[str]
    retrieval: NotRequired[dict[str, Any]]  # RetrievalResult as JSON
    graded_chunks: NotRequired[list[dict[str, Any]]]
    answer: NotRequired[str]
    citations: NotRequired[list[dict[str, Any]]]
    verification: NotRequired[dict[str, Any]]  # claims, factuality_score
    evaluation: NotRequired[dict[str, Any]]  # quality, relevance, coverage
    retries: NotRequired[int]
    routing: NotRequired[str]  # seed 003 value
    low_confidence: NotRequired[bool]
    handoff: NotRequired[dict[str, Any] | None]
    lead_capture: NotRequired[dict[str, Any] | None]  # email captured this turn (booking)
    stall: NotRequired[bool]

    # post-processing
    suggested_follow_ups: NotRequired[list[str]]
    suggested_answers: NotRequired[list[str]]
    cta: NotRequired[dict[str, str] | None]
    cta_url_overrides: NotRequired[dict[str, str]]

    # abuse counters (seed 000), kept across turns; `block` is this turn's (hack|spam|length)
    block: NotRequired[str | None]
    hack_count: NotRequired[int]
    spam_count: NotRequired[int]
    last_input: NotRequired[str]

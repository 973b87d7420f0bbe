"""The reducers of `ChatState`, declared beside their fields in `conversation/state.py`.

Custom reducers keep qualification monotonic, supervision flags cumulative and collected
form values accumulating; visitor-supplied strings are cleaned on the way in.
"""

from __future__ import annotations

from typing import Any

from frontdesk.conversation.substates import (
    DialogSupervision,
    FormCollection,
    Qualification,
    VisitorProfile,
)
from frontdesk.guard.visitor_text import clean_fields
from frontdesk.leads.qualification import CONFIDENCE_RANK, DIMENSIONS


def merge_visitor_profile(
    current: VisitorProfile | None, update: VisitorProfile | None
) -> VisitorProfile:
    """Known values win over unknown ones; a new known value replaces an old one."""
    merged = dict(current or {})
    for key, value in clean_fields(update or {}).items():
        if value in (None, "", "unknown") and merged.get(key) not in (None, "", "unknown"):
            continue
        merged[key] = value
    return merged


def merge_dialog_supervision(
    current: DialogSupervision | None, update: DialogSupervision | None
) -> DialogSupervision:
    """`ever_*` flags are cumulative (once True, always True); other keys are the latest turn."""
    merged: dict[str, Any] = dict(current or {})
    for key, value in (update or {}).items():
        if key.startswith("ever_"):
            merged[key] = bool(merged.get(key)) or bool(value)
        else:
            merged[key] = value
    return merged  # type: ignore[return-value]


def merge_form_collection(
    current: FormCollection | None, update: FormCollection | None
) -> FormCollection:
    """Collected values accumulate; `last_turn` keeps the highest turn seen."""
    upd = update or {}
    merged: dict[str, Any] = {**(current or {})}
    merged.update({k: v for k, v in upd.items() if k not in ("collected_values", "last_turn")})
    values = {
        **merged.get("collected_values", {}),
        **clean_fields(upd.get("collected_values") or {}),
    }
    merged["collected_values"] = values
    merged["last_turn"] = max(int(merged.get("last_turn", -1)), upd.get("last_turn", -1))
    return merged  # type: ignore[return-value]


def merge_qualification(
    current: Qualification | None, update: Qualification | None
) -> Qualification:
    """Dimensions only move up; flags stay set; the signal log appends.

    The node computes the authoritative new state with `leads.qualification.apply_delta`;
    this reducer is the safety net that keeps a stale or parallel write from downgrading.
    """
    merged: dict[str, Any] = dict(current or {})
    for key, value in (update or {}).items():
        if key in DIMENSIONS:
            old = merged.get(key, "not_detected")
            if CONFIDENCE_RANK[value] >= CONFIDENCE_RANK[old]:  # type: ignore[index]
                merged[key] = value
        elif key == "signals_observed":
            merged[key] = list(value)  # type: ignore[call-overload]
        elif key == "explicit_human_request":
            merged[key] = bool(value)  # latest turn only
        elif isinstance(value, bool):
            merged[key] = bool(merged.get(key)) or value
        else:
            merged[key] = value
    return merged  # type: ignore[return-value]


def append_items(current: list[str] | None, update: list[str] | None) -> list[str]:
    return [*(current or []), *(update or [])]

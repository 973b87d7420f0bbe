"""The reducers of `ChatState`, declared beside their fields in `conversation/state.py`.

Custom reducers keep qualification monotonic, supervision flags cumulative and collected
form values accumulating; visitor-supplied strings are cleaned on the way in.
"""

from __future__ import annotations

from typing import Literal, get_args

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


# Supervision flags that stay True once set; qualification flags that do the same.
EverFlag = Literal[
    "ever_asked_profiling", "ever_proposed_demo", "ever_asked_email", "ever_captured_email"
]
StickyFlag = Literal["is_negative_persona", "is_no_fit", "is_consultant", "referral_mentioned"]
EVER_FLAGS: tuple[EverFlag, ...] = get_args(EverFlag)
STICKY_FLAGS: tuple[StickyFlag, ...] = get_args(StickyFlag)


def merge_dialog_supervision(
    current: DialogSupervision | None, update: DialogSupervision | None
) -> DialogSupervision:
    """`ever_*` flags are cumulative (once True, always True); other keys are the latest turn."""
    old = current or DialogSupervision()
    new = update or DialogSupervision()
    merged: DialogSupervision = {**old, **new}
    for flag in EVER_FLAGS:
        if flag in new:
            merged[flag] = bool(old.get(flag)) or bool(new[flag])
    return merged


def merge_form_collection(
    current: FormCollection | None, update: FormCollection | None
) -> FormCollection:
    """Collected values accumulate; `last_turn` keeps the highest turn seen."""
    old = current or FormCollection()
    new = update or FormCollection()
    merged: FormCollection = {**old, **new}
    merged["collected_values"] = {
        **old.get("collected_values", {}),
        **clean_fields(new.get("collected_values") or {}),
    }
    merged["last_turn"] = max(int(old.get("last_turn", -1)), new.get("last_turn", -1))
    return merged


def merge_qualification(
    current: Qualification | None, update: Qualification | None
) -> Qualification:
    """Dimensions only move up; flags stay set; the signal log appends.

    The node computes the authoritative new state with `leads.qualification.apply_delta`;
    this reducer is the safety net that keeps a stale or parallel write from downgrading.
    """
    old = current or Qualification()
    new = update or Qualification()
    merged: Qualification = {**old, **new}
    for dimension in DIMENSIONS:
        kept = old.get(dimension, "not_detected")
        if dimension in new and CONFIDENCE_RANK[new[dimension]] < CONFIDENCE_RANK[kept]:
            merged[dimension] = kept
    if "signals_observed" in new:
        merged["signals_observed"] = list(new["signals_observed"])
    if "explicit_human_request" in new:
        merged["explicit_human_request"] = bool(new["explicit_human_request"])  # latest turn only
    for flag in STICKY_FLAGS:
        if flag in new:
            merged[flag] = bool(old.get(flag)) or new[flag]
    return merged


def append_items(current: list[str] | None, update: list[str] | None) -> list[str]:
    return [*(current or []), *(update or [])]

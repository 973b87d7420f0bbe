"""The shipped intent training set: loading, and the hash that keys cached models."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from frontdesk.engines.base import INTENTS, Intent  # one vocabulary for every engine
from frontdesk.knowledge.search.acts import ACTS, Act

__all__ = ["ACTS", "DATA_FILE", "INTENTS", "Act", "Intent", "IntentExample"]

DATA_FILE = Path(__file__).resolve().parent / "data" / "intents.jsonl"

LANGUAGES = ("en", "ru", "fr", "de", "es", "it", "pt", "nl")


@dataclass(frozen=True, slots=True)
class IntentExample:
    text: str
    intent: Intent
    lang: str
    high_stakes: bool
    nonsense: bool
    split: Literal["train", "test"]
    # The conversation act the message is on its own ("danke", "tschüss"), if any.
    act: Act | None = None


def load_examples(path: Path = DATA_FILE) -> list[IntentExample]:
    examples: list[IntentExample] = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["intent"] not in INTENTS:
                raise ValueError(f"unknown intent {row['intent']!r} in {path}")
            act = row.get("act")
            if act is not None and act not in ACTS:
                raise ValueError(f"unknown act {act!r} in {path}")
            examples.append(
                IntentExample(
                    text=row["text"],
                    intent=row["intent"],
                    lang=row["lang"],
                    high_stakes=bool(row["high_stakes"]),
                    nonsense=bool(row["nonsense"]),
                    split="test" if row.get("split") == "test" else "train",
                    act=act,
                )
            )
    return examples


def data_hash(path: Path = DATA_FILE) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


# --- public data the shipped model also learns from (read at build time only) ----------
# CLINC150 (CC BY 3.0, clinc/oos-eval) and banking77 (CC BY 4.0, PolyAI) train splits;
# attribution in data/ATTRIBUTION.md. The repository keeps the trained model, never rows.
DATASETS_ENV = "FRONTDESK_DATASETS_DIR"
EXTERNAL_PER_INTENT = 40
# Everyday requests to a personal assistant (weather, recipes, alarms, travel, personal
# banking...) are off-topic for a company's website; chit-chat and conversation control
# are OTHER. A few CLINC intents are business acts somewhere (meetings, "cancel"), mean
# what the previous turn asked ("yes", "no", "maybe") or, asked of a company's assistant,
# are about the company ("who made you", "who do you work for"), and are left out.
CLINC_OTHER = frozenset(
    {
        "greeting", "goodbye", "thank_you", "are_you_a_bot", "what_is_your_name",
        "how_old_are_you", "what_can_i_ask_you", "where_are_you_from", "do_you_have_pets",
        "what_are_your_hobbies", "repeat", "change_language", "change_ai_name",
    }
)  # fmt: skip
CLINC_LEFT_OUT = frozenset(
    {
        "schedule_meeting", "meeting_schedule", "cancel", "yes", "no", "maybe",
        "who_made_you", "who_do_you_work_for", "oos",
    }
)  # fmt: skip
# The CLINC chit-chat that is a conversation act of its own (`engines/local/acts.py`). Its
# greetings mix "hello" with "how are you"; the second kind asks after the assistant.
CLINC_ACTS: dict[str, Act] = {"greeting": "greeting", "goodbye": "goodbye", "thank_you": "thanks"}
# "yes" and "no" mean what the previous turn asked, so the intent head never sees them;
# alone, they are still acts.
CLINC_ACT_ONLY: dict[str, Act] = {"yes": "yes", "no": "no"}
_ASKS_AFTER = re.compile(r"\b(?:how|doing|okay|been|going|up)\b|\bwhat's up\b")


def clinc_act(label: str, text: str) -> Act | None:
    """The act of a CLINC train row: a greeting asking after the assistant ("how are
    things going", "are you doing okay") is "how are you"."""
    act = CLINC_ACTS.get(label) or CLINC_ACT_ONLY.get(label)
    if act == "greeting" and _ASKS_AFTER.search(text.lower()):
        return "how_are_you"
    return act


# banking77 intents that are support or questions at any company, not only at a bank.
BANKING77_INTENTS: dict[str, Intent] = {
    "request_refund": "SUPPORT",
    "Refund_not_showing_up": "SUPPORT",
    "edit_personal_details": "SUPPORT",
    "passcode_forgotten": "SUPPORT",
    "terminate_account": "SUPPORT",
    "verify_my_identity": "SUPPORT",
    "unable_to_verify_identity": "SUPPORT",
    "country_support": "LEARN",
    "age_limit": "LEARN",
}


def shared_datasets_dir() -> Path:
    """`$FRONTDESK_DATASETS_DIR`, else `../shared/datasets` beside the repository."""
    import os

    configured = os.environ.get(DATASETS_ENV)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[4].parent / "shared" / "datasets"


def _rows(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _every_nth(rows: list[dict[str, str]], label: str, limit: int) -> list[dict[str, str]]:
    of_label = [row for row in rows if row["label"] == label]
    step = max(1, len(of_label) // limit)
    return of_label[::step][:limit]


def external_examples(
    root: Path | None = None, per_intent: int = EXTERNAL_PER_INTENT
) -> list[IntentExample]:
    """Training rows from the CLINC150 and banking77 train splits (empty when absent)."""
    from frontdesk.engines.local.intent_rules import high_stakes_hit

    root = root or shared_datasets_dir()
    clinc = root / "intent" / "clinc150" / "train.jsonl"
    banking = root / "intent" / "banking77" / "train.jsonl"
    if not clinc.is_file() or not banking.is_file():
        return []
    examples: list[IntentExample] = []
    clinc_rows = _rows(clinc)
    for label in sorted({row["label"] for row in clinc_rows} - CLINC_LEFT_OUT):
        intent: Intent = "OTHER" if label in CLINC_OTHER else "OFFTOPIC"
        for row in _every_nth(clinc_rows, label, per_intent):
            act = clinc_act(label, row["text"])
            examples.append(IntentExample(row["text"], intent, "en", False, False, "train", act))
    banking_rows = _rows(banking)
    for label, intent in BANKING77_INTENTS.items():
        for row in _every_nth(banking_rows, label, per_intent):
            hs = high_stakes_hit(row["text"])
            examples.append(IntentExample(row["text"], intent, "en", hs, False, "train"))
    return examples


def external_act_examples(
    root: Path | None = None, per_intent: int = EXTERNAL_PER_INTENT
) -> list[IntentExample]:
    """CLINC150 train rows that teach the act head only ("yes", "no"): the intent head
    never sees them (`CLINC_LEFT_OUT`). Empty when the datasets are absent."""
    root = root or shared_datasets_dir()
    clinc = root / "intent" / "clinc150" / "train.jsonl"
    if not clinc.is_file():
        return []
    rows = _rows(clinc)
    return [
        IntentExample(row["text"], "OTHER", "en", False, False, "train", act)
        for label, act in CLINC_ACT_ONLY.items()
        for row in _every_nth(rows, label, per_intent)
    ]

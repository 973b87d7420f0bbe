"""The shipped intent training set: loading, and the hash that keys cached models."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from frontdesk.engines.base import INTENTS, Intent  # one vocabulary for every engine

__all__ = ["DATA_FILE", "INTENTS", "Intent", "IntentExample"]

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


def load_examples(path: Path = DATA_FILE) -> list[IntentExample]:
    examples: list[IntentExample] = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["intent"] not in INTENTS:
                raise ValueError(f"unknown intent {row['intent']!r} in {path}")
            examples.append(
                IntentExample(
                    text=row["text"],
                    intent=row["intent"],
                    lang=row["lang"],
                    high_stakes=bool(row["high_stakes"]),
                    nonsense=bool(row["nonsense"]),
                    split="test" if row.get("split") == "test" else "train",
                )
            )
    return examples


def data_hash(path: Path = DATA_FILE) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]

"""Langfuse datasets ⇄ JSONL files.

Only used when Langfuse keys are configured (LANGFUSE_PUBLIC_KEY and
LANGFUSE_SECRET_KEY, optionally LANGFUSE_HOST); the `langfuse` package is imported on
first use (`pip install langfuse`). Items keep their shape both ways: `input`,
`expected_output` and `metadata` (with `history` and `site_name` for multi-turn items).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from frontdesk.evals.dataset import EvalItem, Expected

KEYS = ("LANGFUSE_PUBLIC_KEY", "LANGFUSE_SECRET_KEY")


class LangfuseUnavailableError(RuntimeError):
    """Langfuse keys or the `langfuse` package are missing."""


def configured() -> bool:
    return all(os.environ.get(key) for key in KEYS)


def _client() -> Any:
    if not configured():
        raise LangfuseUnavailableError(f"set {' and '.join(KEYS)} to use Langfuse datasets")
    try:
        from langfuse import Langfuse  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise LangfuseUnavailableError("the langfuse package is not installed") from exc
    return Langfuse()


def item_from_langfuse(item_id: str, raw_input: Any, expected: Any, metadata: Any) -> EvalItem:
    """One Langfuse dataset item as an `EvalItem` (unknown expectations kept in metadata)."""
    query = raw_input if isinstance(raw_input, str) else dict(raw_input or {})
    inputs = {"query": query} if isinstance(query, str) else query
    if "query" not in inputs and "message" in inputs:
        inputs["query"] = inputs["message"]  # classifier items use `message`
    wanted = dict(expected or {}) if isinstance(expected, dict) else {"response": str(expected)}
    known = {k: v for k, v in wanted.items() if k in Expected.model_fields}
    extra = {k: v for k, v in wanted.items() if k not in Expected.model_fields}
    meta = dict(metadata or {})
    if extra:
        meta["expected_extra"] = extra
    if isinstance(inputs.get("history"), list) and "history" not in meta:
        meta["history"] = inputs.pop("history")
    return EvalItem.model_validate(
        {"id": item_id, "input": inputs, "expected_output": known, "metadata": meta}
    )


def pull(name: str) -> list[EvalItem]:
    """Every item of the Langfuse dataset `name`."""
    dataset = _client().get_dataset(name)
    return [
        item_from_langfuse(str(i.id), i.input, i.expected_output, i.metadata) for i in dataset.items
    ]


def push(name: str, items: Sequence[EvalItem], description: str = "") -> int:
    """Create (or extend) the Langfuse dataset `name` with `items`; returns the count."""
    client = _client()
    client.create_dataset(name=name, description=description or "frontdesk evaluation items")
    for item in items:
        dumped = item.model_dump(mode="json", exclude_defaults=True)
        client.create_dataset_item(
            dataset_name=name,
            id=item.id,
            input=dumped.get("input"),
            expected_output=dumped.get("expected_output"),
            metadata=dumped.get("metadata"),
        )
    client.flush()
    return len(items)

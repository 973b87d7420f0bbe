"""Evaluation datasets: JSONL items in the shape of a Langfuse dataset item.

One JSON object per line::

    {"id": "...",
     "input": {"query": "..."},
     "expected_output": {"intent": "LEARN", "route": "ANSWER", ...},
     "metadata": {"site_name": "demo", "history": [{"role": "user", "content": "..."}, ...]}}

An item with a non-empty `metadata.history` is multi-turn: the history is rebuilt into
graph state (`frontdesk.evals.replay`) and only `input.query` is sent. Every key of
`expected_output` is optional; a metric only counts the items that state what it
measures. docs/evaluation.md documents each key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from frontdesk.evals.metrics import ratio

ABSTAIN_ROUTINGS = frozenset(
    {"followup", "cannot_answer", "out_of_scope", "irrelevant", "nonsense"}
)
"""Routing values of a reply that presents no answer from the knowledge base."""


class DatasetError(ValueError):
    """A dataset file that cannot be read, with the file and line of the problem."""


class HistoryMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str = ""
    message_index: int | None = None


class ItemInput(BaseModel):
    model_config = ConfigDict(extra="allow")

    query: str


class Expected(BaseModel):
    """What the product should do with the item's query (every key optional)."""

    model_config = ConfigDict(extra="forbid")

    intent: str | None = None
    route: str | None = Field(default=None, description="ANSWER, REDIRECT, BOOKING or HANDOFF.")
    route_reason: str | None = Field(default=None, description="The router's reason.")
    routing: list[str] | None = Field(default=None, description="Acceptable routing values.")
    skills: list[str] | None = Field(default=None, description="Skills the reply must end with.")
    keywords: list[str] = Field(
        default_factory=list, description="Context keywords the answer should contain."
    )
    gold_doc_ids: list[str] = Field(default_factory=list)
    reference: str | None = Field(default=None, description="A correct answer, for overlap.")
    response: str | None = Field(default=None, description="Rubric for the LLM judge.")
    must_include: list[str] = Field(default_factory=list, description="Phrases the answer has.")
    must_not_include: list[str] = Field(default_factory=list, description="Regexes it must not.")
    language: str | None = None
    high_stakes: bool | None = None
    injection: bool | None = None
    abstain: bool | None = None
    handoff: str | None = Field(default=None, description="Expected handoff reason.")
    cta: bool | None = Field(default=None, description="A booking button is (not) shown.")
    collected: dict[str, str | None] | None = Field(
        default=None,
        description="Form fields after the turn: value = collected (substring), null = not.",
    )

    @field_validator("routing", "skills", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class Metadata(BaseModel):
    model_config = ConfigDict(extra="allow")

    site_name: str | None = None
    history: list[HistoryMessage] = Field(default_factory=list)
    category: str | None = None
    tags: list[str] = Field(default_factory=list)


class EvalItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    input: ItemInput
    expected_output: Expected = Field(default_factory=Expected)
    metadata: Metadata = Field(default_factory=Metadata)

    @property
    def query(self) -> str:
        return self.input.query

    @property
    def expected(self) -> Expected:
        return self.expected_output

    @property
    def multi_turn(self) -> bool:
        return bool(self.metadata.history)

    @property
    def should_inject(self) -> bool | None:
        """Injection label: explicit, else "the expected intent is HACK" when one is given."""
        e = self.expected_output
        if e.injection is not None:
            return e.injection
        return None if e.intent is None else e.intent == "HACK"

    @property
    def should_abstain(self) -> bool | None:
        """Abstention label: explicit, else False for questions with gold documents."""
        e = self.expected_output
        if e.abstain is not None:
            return e.abstain
        return False if e.gold_doc_ids else None

    @property
    def has_answer_expectation(self) -> bool:
        """Something an LLM judge can score the answer against (a rubric counts)."""
        return bool(self.expected_output.response) or self.checkable_answer

    @property
    def checkable_answer(self) -> bool:
        """Something the answer can be checked against without a model."""
        e = self.expected_output
        return bool(e.reference or e.must_include or e.must_not_include)


def json_lines(lines: Iterable[str], source: str) -> Iterator[tuple[int, Any]]:
    """(line number, value) of every non-blank JSONL line; `DatasetError` names the line
    that is not JSON."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{source}:{number}: not valid JSON ({exc.msg})") from exc


def parse_items(lines: Iterable[str], source: str = "<items>") -> list[EvalItem]:
    items: list[EvalItem] = []
    for number, raw in json_lines(lines, source):
        if not isinstance(raw, dict):
            raise DatasetError(f"{source}:{number}: expected a JSON object")
        raw.setdefault("id", f"{Path(source).stem}-{number}")
        try:
            items.append(EvalItem.model_validate(raw))
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            raise DatasetError(f"{source}:{number}: {where}: {problem['msg']}") from exc
    return items


def load_items(paths: Sequence[Path]) -> list[EvalItem]:
    """Every item of every file, ids unique across files."""
    items: list[EvalItem] = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DatasetError(f"{path}: {exc.strerror or exc}") from exc
        items.extend(parse_items(text.splitlines(), str(path)))
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise DatasetError(f"duplicate item id {item.id!r}")
        seen.add(item.id)
    return items


def dump_items(items: Iterable[EvalItem]) -> str:
    """JSONL text of `items` (unset keys left out, so files stay readable)."""
    return "".join(
        json.dumps(item.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False) + "\n"
        for item in items
    )


def matches_site(item: EvalItem, site_id: str, site_name: str) -> bool:
    """Items name their site by id or display name (`site_name`); none means any."""
    name = (item.metadata.site_name or "").strip().casefold()
    return not name or name in (site_id.casefold(), site_name.casefold())


def summary(items: Sequence[EvalItem]) -> dict[str, Any]:
    """Counts that describe a dataset (for reports and `--help` texts)."""
    multi = sum(1 for i in items if i.multi_turn)
    intents: dict[str, int] = {}
    for item in items:
        if item.expected_output.intent:
            intents[item.expected_output.intent] = intents.get(item.expected_output.intent, 0) + 1
    languages = sorted({i.expected_output.language for i in items if i.expected_output.language})
    return {
        "items": len(items),
        "single_turn": len(items) - multi,
        "multi_turn": multi,
        "intents": dict(sorted(intents.items())),
        "languages": languages,
        "share_multi_turn": ratio(multi, len(items)),
    }

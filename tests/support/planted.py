"""The planted and benign passages of tests/fixtures/planted, loaded the way ingestion
loads them: through the file loaders (or the crawler's extractor for HTML), then the
withholding of `knowledge/injection/instructions.py`. Shared by the unit tests and
benchmarks/planted_passages.py (which also runs on older code, so only long-standing
functions are called here)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from frontdesk.knowledge.ingest.loaders import load_bytes
from frontdesk.knowledge.injection.instructions import withhold_instructions
from frontdesk.knowledge.models import Document

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "planted" / "passages.yaml"
# Every attacker address of the fixture is on a domain with "evil" in its name, or is the
# fixture's attacker phone number.
ATTACKER = re.compile(r"(?:[\w.+-]+@)?[\w.-]*evil[\w.-]*|\+1 555 0199 1234", re.IGNORECASE)

Label = Literal["planted", "benign"]


@dataclass(frozen=True)
class Passage:
    id: str
    label: Label
    format: str  # file suffix: md, txt, html
    text: str
    marker: str = ""  # planted: what must not survive

    @property
    def filename(self) -> str:
        return f"{self.id}.{self.format}"

    def file_bytes(self) -> bytes:
        if self.format != "html":
            return self.text.encode("utf-8")
        page = (
            "<!doctype html><html><head><meta charset='utf-8'>"
            f"<title>{self.id}</title></head><body><main>{self.text}</main></body></html>"
        )
        return page.encode("utf-8")


def load_passages() -> list[Passage]:
    data = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    return [
        Passage(item["id"], label, item["format"], item["text"], str(item.get("marker") or ""))
        for label in ("planted", "benign")
        for item in data[label]
    ]


@dataclass(frozen=True)
class Judged:
    passage: Passage
    indexed_text: str  # what ingestion would index
    withheld: list[tuple[str, str]]  # (reason, excerpt): hidden text and planted passages

    @property
    def survives(self) -> bool:
        """Whether the planted marker is still in what would be indexed."""
        return self.passage.marker.casefold() in self.indexed_text.casefold()


def judge(passage: Passage, document: Document | None = None) -> Judged:
    """Load `passage` as a file (or take the crawler's `document`) and withhold."""
    document = document or load_bytes(passage.file_bytes(), passage.filename)
    text, planted = withhold_instructions(document.text)
    withheld = [(w.reason, w.excerpt) for w in (*document.withheld, *planted)]
    return Judged(passage, text, withheld)


def judge_crawled(passage: Passage) -> Judged:
    """An HTML passage as the crawler reads it (trafilatura main-content extraction)."""
    from frontdesk.knowledge.web.extract import extract_page

    url = f"https://company.example/{passage.id}"
    page = extract_page(url, passage.file_bytes(), "text/html; charset=utf-8")
    assert page.document is not None
    return judge(passage, page.document)

"""A sync leaves the database to visitors between its pages' writes: after writing a
page (its passages, then its facts) it rests at least as long as the writes took, and
at least `PACED_REST_MIN_S`. Without the rests the pages were written back to back, and
on SQLite (one writer at a time, waiters retrying after growing sleeps) a visitor's
turn waited for the lock tens of milliseconds at a time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import pytest
from sqlalchemy import Engine, event

from frontdesk.knowledge.ingest.pace import PACED_REST_MIN_S
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.web import SiteSync
from frontdesk.sites.knowledge import WebSource
from frontdesk.sites.schema import SiteConfig
from tests.support.website import LoopbackWebsite

pytestmark = pytest.mark.integration

PAGES = 30


@dataclass
class Write:
    """A write transaction: when it began and committed, and the tables it wrote."""

    began: float
    committed: float = 0.0
    tables: set[str] = field(default_factory=set)


class WriteLog:
    """Every write transaction on the engine, timed by SQLAlchemy's events."""

    def __init__(self, engine: Engine) -> None:
        self.writes: list[Write] = []
        self._open: dict[int, Write] = {}
        event.listen(engine, "begin", self._begin)
        event.listen(engine, "before_cursor_execute", self._execute)
        event.listen(engine, "commit", self._commit)

    def _begin(self, conn: Any) -> None:
        self._open[id(conn)] = Write(time.perf_counter())

    def _execute(self, conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        words = statement.split()
        verb = words[0].upper()
        if verb in ("INSERT", "UPDATE", "DELETE") and id(conn) in self._open:
            table = words[2] if verb in ("INSERT", "DELETE") else words[1]
            self._open[id(conn)].tables.add(table)

    def _commit(self, conn: Any) -> None:
        write = self._open.pop(id(conn), None)
        if write is not None and write.tables:
            write.committed = time.perf_counter()
            self.writes.append(write)


@pytest.fixture
def website() -> Iterator[LoopbackWebsite]:
    with LoopbackWebsite(PAGES, slow_s=0.1) as site:
        yield site


def test_a_sync_rests_between_its_pages_writes(engine: Engine, website: LoopbackWebsite) -> None:
    site = SiteConfig.model_validate(
        {
            "id": "acme",
            "name": "Acme",
            "widget": {"public_key": "pk_acme_pacing_0000001", "allowed_origins": []},
            "business_hours": {"timezone": "UTC"},
            "knowledge": {"embedding": "hash:256"},
        }
    )
    source = WebSource.model_validate(
        {"url": website.url + "/", "allow_private_network": True, "timeout_s": 0.6}
    )
    sync = SiteSync(engine, KnowledgeBase(engine).ingestor(site, progress=False))
    log = WriteLog(engine)

    summary = asyncio.run(sync.sync("acme", source))

    assert summary.changed >= PAGES // 2
    # A page's writes: its passages (with the site's revision), then its facts.
    pages = [i for i, write in enumerate(log.writes) if "knowledge_chunks" in write.tables]
    assert len(pages) == summary.changed
    for this, following in pairwise(pages):
        began, ended = log.writes[this].began, log.writes[following - 1].committed
        rest = log.writes[following].began - ended
        assert rest >= max(PACED_REST_MIN_S, ended - began), (this, rest, ended - began)

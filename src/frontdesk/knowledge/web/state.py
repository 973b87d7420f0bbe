"""Crawl state in the store (migration 0007_crawler): pages, runs and added start URLs.
Plain SQL that runs on SQLite and PostgreSQL alike, like the index's."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Row, text

from frontdesk.knowledge.index.base import parse_time
from frontdesk.knowledge.web.crawl import KnownPage

# The error of a run whose process stopped before it finished (it does not count as the
# schedule's last sync).
INTERRUPTED = "interrupted: the process running this sync stopped"


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class PageRow:
    url: str
    doc_id: str | None
    etag: str
    last_modified: str
    body_hash: str
    links: tuple[str, ...]
    status: str
    missed: int
    error: str


@dataclass(frozen=True)
class CrawlRun:
    id: str
    site_id: str
    source_url: str
    trigger: str
    status: str  # running | succeeded | failed
    summary: dict[str, Any]
    error: str
    started_at: datetime
    finished_at: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "site_id": self.site_id,
            "source_url": self.source_url,
            "trigger": self.trigger,
            "status": self.status,
            "summary": self.summary,
            "error": self.error,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
        }


_RUN_COLUMNS = (
    "SELECT id, site_id, source_url, trigger, status, summary, error, started_at, finished_at"
    " FROM crawl_runs"
)


class CrawlStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _rows(self, sql: str, params: dict[str, Any]) -> Sequence[Row[*tuple[Any, ...]]]:
        """The rows one read query finds."""
        with self.engine.connect() as conn:
            return conn.execute(text(sql), params).all()

    # -- pages -----------------------------------------------------------------------
    def known_pages(self, site_id: str, source_url: str) -> dict[str, KnownPage]:
        rows = self._rows(
            "SELECT url, doc_id, etag, last_modified, body_hash, links, missed"
            " FROM crawl_pages WHERE site_id = :site AND source_url = :source",
            {"site": site_id, "source": source_url},
        )
        return {
            row[0]: KnownPage(
                url=row[0],
                doc_id=row[1],
                etag=row[2],
                last_modified=row[3],
                body_hash=row[4],
                links=tuple(json.loads(row[5] or "[]")),
                missed=row[6],
            )
            for row in rows
        }

    def doc_ids_elsewhere(self, site_id: str, source_url: str) -> set[str]:
        """Documents other web sources of the site hold (never removed by this one)."""
        rows = self._rows(
            "SELECT doc_id FROM crawl_pages WHERE site_id = :site"
            " AND source_url <> :source AND doc_id IS NOT NULL",
            {"site": site_id, "source": source_url},
        )
        return {row[0] for row in rows}

    def save_pages(
        self, site_id: str, source_url: str, rows: Iterable[PageRow], removed: Sequence[str]
    ) -> None:
        """Replace the state of the given pages and drop the removed ones, atomically."""
        now = utcnow()
        with self.engine.begin() as conn:
            if removed:
                conn.execute(
                    text("DELETE FROM crawl_pages WHERE site_id = :site AND url = :url"),
                    [{"site": site_id, "url": url} for url in removed],
                )
            params = [
                {
                    "site": site_id,
                    "url": row.url,
                    "source": source_url,
                    "doc": row.doc_id,
                    "etag": row.etag[:512],
                    "lm": row.last_modified[:128],
                    "hash": row.body_hash,
                    "links": json.dumps(list(row.links)),
                    "status": row.status,
                    "missed": row.missed,
                    "error": row.error,
                    "now": now,
                }
                for row in rows
            ]
            if params:
                conn.execute(
                    text(
                        "INSERT INTO crawl_pages (site_id, url, source_url, doc_id, etag,"
                        " last_modified, body_hash, links, status, missed, error, fetched_at)"
                        " VALUES (:site, :url, :source, :doc, :etag, :lm, :hash, :links,"
                        " :status, :missed, :error, :now) ON CONFLICT (site_id, url) DO UPDATE"
                        " SET source_url = :source, doc_id = :doc, etag = :etag,"
                        " last_modified = :lm, body_hash = :hash, links = :links,"
                        " status = :status, missed = :missed, error = :error, fetched_at = :now"
                    ),
                    params,
                )

    # -- runs ------------------------------------------------------------------------
    def start_run(self, site_id: str, source_url: str, trigger: str) -> str:
        run_id = str(uuid.uuid4())
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO crawl_runs (id, site_id, source_url, trigger, status, summary,"
                    " error, started_at) VALUES (:id, :site, :source, :trigger, 'running',"
                    " '{}', '', :now)"
                ),
                {
                    "id": run_id,
                    "site": site_id,
                    "source": source_url,
                    "trigger": trigger,
                    "now": utcnow(),
                },
            )
        return run_id

    def finish_run(
        self, run_id: str, *, status: str, summary: dict[str, Any], error: str = ""
    ) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE crawl_runs SET status = :status, summary = :summary,"
                    " error = :error, finished_at = :now WHERE id = :id"
                ),
                {
                    "id": run_id,
                    "status": status,
                    "summary": json.dumps(summary),
                    "error": error,
                    "now": utcnow(),
                },
            )

    def interrupt_runs(self, site_id: str, source_url: str) -> int:
        """Mark runs still `running` as failed: called by the lease holder, whose lease
        proves that their process stopped before it could finish them."""
        with self.engine.begin() as conn:
            count: int = conn.execute(
                text(
                    "UPDATE crawl_runs SET status = 'failed', finished_at = :now,"
                    " error = :error"
                    " WHERE site_id = :site AND source_url = :source AND status = 'running'"
                ),
                {"site": site_id, "source": source_url, "now": utcnow(), "error": INTERRUPTED},
            ).rowcount
        return count

    def runs(
        self, site_id: str, *, source_url: str | None = None, limit: int = 20
    ) -> list[CrawlRun]:
        clause = " AND source_url = :source" if source_url is not None else ""
        rows = self._rows(
            f"{_RUN_COLUMNS} WHERE site_id = :site{clause} ORDER BY started_at DESC LIMIT :limit",
            {"site": site_id, "source": source_url, "limit": limit},
        )
        return [_run(row) for row in rows]

    def run(self, site_id: str, run_id: str) -> CrawlRun | None:
        rows = self._rows(
            f"{_RUN_COLUMNS} WHERE site_id = :site AND id = :id", {"site": site_id, "id": run_id}
        )
        return _run(rows[0]) if rows else None

    def page_count(self, site_id: str, source_url: str) -> int:
        """Pages the crawler knows of one source (what the console shows)."""
        with self.engine.connect() as conn:
            found = conn.execute(
                text(
                    "SELECT count(*) FROM crawl_pages WHERE site_id = :site"
                    " AND source_url = :source"
                ),
                {"site": site_id, "source": source_url},
            ).scalar()
        return int(found or 0)

    # -- start URLs added with `kb crawl SITE URL` -------------------------------------
    def add_source(self, site_id: str, url: str, *, allow_private_network: bool) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO crawl_sources (site_id, url, allow_private_network, added_at)"
                    " VALUES (:site, :url, :private, :now) ON CONFLICT (site_id, url)"
                    " DO UPDATE SET allow_private_network = :private"
                ),
                {"site": site_id, "url": url, "private": allow_private_network, "now": utcnow()},
            )

    def added_sources(self, site_id: str) -> list[tuple[str, bool]]:
        rows = self._rows(
            "SELECT url, allow_private_network FROM crawl_sources WHERE site_id = :site"
            " ORDER BY added_at",
            {"site": site_id},
        )
        return [(row[0], bool(row[1])) for row in rows]


def _run(row: Any) -> CrawlRun:
    started = parse_time(row[7])
    return CrawlRun(
        id=row[0],
        site_id=row[1],
        source_url=row[2],
        trigger=row[3],
        status=row[4],
        summary=json.loads(row[5] or "{}"),
        error=row[6],
        started_at=started if started is not None else utcnow(),
        finished_at=parse_time(row[8]),
    )

"""Trust report runs: queued by a sync or an operator, claimed by one worker, kept for the trend.

A run is `queued`, then `running` (claimed), then `done` or `failed`. `queue` adds nothing
while the site already has a queued run (ten syncs in a row make one run). `claim` moves
a queued run to running; the partial unique index `uq_trust_runs_one_running` lets only one
run per site be running, so two workers (or the API and a worker) never run one site's
report at once. A running run's holder renews `heartbeat_at` every `BEAT_EVERY_S`
(`keep_alive`); one whose heartbeat is older than `STALE_AFTER` lost its process and is
failed, which frees the site.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

BEAT_EVERY_S = 20.0
STALE_AFTER = timedelta(minutes=2)  # six missed beats: the process is gone
TRIGGERS = ("sync", "console", "cli")


def utcnow() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime | str | None) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):  # SQLite hands back text
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


@dataclass(frozen=True)
class TrustRun:
    id: str
    site_id: str
    status: str
    trigger: str
    requested_by: str | None
    engine: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    seconds: float | None
    figures: dict[str, Any]
    report: dict[str, Any] | None
    error: str | None


_COLUMNS = (
    "id, site_id, status, trigger, requested_by, engine, created_at, started_at,"
    " finished_at, seconds, figures, error"
)


def _run(row: Any, report: str | None = None) -> TrustRun:
    return TrustRun(
        id=row.id,
        site_id=row.site_id,
        status=row.status,
        trigger=row.trigger,
        requested_by=row.requested_by,
        engine=row.engine,
        created_at=_aware(row.created_at) or utcnow(),
        started_at=_aware(row.started_at),
        finished_at=_aware(row.finished_at),
        seconds=row.seconds,
        figures=json.loads(row.figures) if row.figures else {},
        report=json.loads(report) if report else None,
        error=row.error,
    )


class TrustStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def queue(self, site_id: str, trigger: str, requested_by: str | None = None) -> str | None:
        """A new queued run's id; None when the site already has one queued."""
        with self.engine.begin() as conn:
            waiting = conn.execute(
                text("SELECT id FROM trust_runs WHERE site_id = :site AND status = 'queued'"),
                {"site": site_id},
            ).first()
            if waiting is not None:
                return None
            run_id = str(uuid.uuid4())
            conn.execute(
                text(
                    "INSERT INTO trust_runs (id, site_id, status, trigger, requested_by,"
                    " created_at) VALUES (:id, :site, 'queued', :trigger, :by, :now)"
                ),
                {"id": run_id, "site": site_id, "trigger": trigger, "by": requested_by,
                 "now": utcnow()},
            )  # fmt: skip
        return run_id

    def fail_stale(self, now: datetime | None = None) -> int:
        """Fail runs left running by a process that died (no beat for STALE_AFTER)."""
        cutoff = (now or utcnow()) - STALE_AFTER
        with self.engine.begin() as conn:
            result = conn.execute(
                text(
                    "UPDATE trust_runs SET status = 'failed', finished_at = :now,"
                    " error = 'interrupted: the process running it stopped'"
                    " WHERE status = 'running'"
                    " AND COALESCE(heartbeat_at, started_at) < :cutoff"
                ),
                {"now": now or utcnow(), "cutoff": cutoff},
            )
        return int(result.rowcount or 0)

    def claim(self, run_id: str) -> bool:
        """queued → running; False when another worker claimed it or the site is busy."""
        try:
            with self.engine.begin() as conn:
                result = conn.execute(
                    text(
                        "UPDATE trust_runs SET status = 'running', started_at = :now,"
                        " heartbeat_at = :now WHERE id = :id AND status = 'queued'"
                    ),
                    {"id": run_id, "now": utcnow()},
                )
                return bool(result.rowcount)
        except IntegrityError:  # this site already has a running report
            return False

    def start(self, site_id: str, trigger: str, requested_by: str | None = None) -> str | None:
        """A run claimed at once (the CLI); None when the site's report is already running."""
        run_id = str(uuid.uuid4())
        now = utcnow()
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO trust_runs (id, site_id, status, trigger, requested_by,"
                        " created_at, started_at, heartbeat_at) VALUES (:id, :site,"
                        " 'running', :trigger, :by, :now, :now, :now)"
                    ),
                    {"id": run_id, "site": site_id, "trigger": trigger, "by": requested_by,
                     "now": now},
                )  # fmt: skip
        except IntegrityError:
            return None
        return run_id

    def beat(self, run_id: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                text("UPDATE trust_runs SET heartbeat_at = :now WHERE id = :id"),
                {"id": run_id, "now": utcnow()},
            )

    def next_queued(self) -> list[TrustRun]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                text(
                    f"SELECT {_COLUMNS} FROM trust_runs WHERE status = 'queued' ORDER BY created_at"
                )
            ).all()
        return [_run(row) for row in rows]

    def finish(
        self, run_id: str, figures: dict[str, Any], report: dict[str, Any], engine: str
    ) -> None:
        self._end(run_id, "done", figures=json.dumps(figures), report=json.dumps(report),
                  engine=engine)  # fmt: skip

    def fail(self, run_id: str, error: str) -> None:
        self._end(run_id, "failed", error=error[:2000])

    def _end(self, run_id: str, status: str, **values: Any) -> None:
        now = utcnow()
        with self.engine.begin() as conn:
            row = conn.execute(
                text("SELECT started_at FROM trust_runs WHERE id = :id"), {"id": run_id}
            ).first()
            started = _aware(row.started_at) if row is not None else None
            seconds = (now - started).total_seconds() if started else None
            sets = ", ".join(f"{key} = :{key}" for key in values)
            conn.execute(
                text(
                    f"UPDATE trust_runs SET status = :status, finished_at = :now,"
                    f" seconds = :seconds{', ' + sets if sets else ''} WHERE id = :id"
                ),
                {"id": run_id, "status": status, "now": now, "seconds": seconds, **values},
            )

    def get(self, run_id: str) -> TrustRun | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                text(f"SELECT {_COLUMNS}, report FROM trust_runs WHERE id = :id"), {"id": run_id}
            ).first()
        return _run(row, row.report) if row is not None else None

    def history(self, site_id: str, limit: int = 20) -> list[TrustRun]:
        """The site's runs, newest first (figures only, not the full reports)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                text(
                    f"SELECT {_COLUMNS} FROM trust_runs WHERE site_id = :site"
                    " ORDER BY created_at DESC LIMIT :limit"
                ),
                {"site": site_id, "limit": limit},
            ).all()
        return [_run(row) for row in rows]

    def latest_done(self, site_id: str) -> TrustRun | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                text(
                    f"SELECT {_COLUMNS}, report FROM trust_runs WHERE site_id = :site"
                    " AND status = 'done' ORDER BY finished_at DESC LIMIT 1"
                ),
                {"site": site_id},
            ).first()
        return _run(row, row.report) if row is not None else None


@asynccontextmanager
async def keep_alive(
    store: TrustStore, run_id: str, every_s: float = BEAT_EVERY_S
) -> AsyncIterator[None]:
    """Beat for `run_id` while the body runs (the report's own work may block for minutes
    in threads: embedding a site's pages, model calls)."""

    async def beat() -> None:
        while True:
            await asyncio.sleep(every_s)
            try:
                await asyncio.to_thread(store.beat, run_id)
            except Exception:  # the store hiccuped: the next beat may work
                logging.getLogger(__name__).warning("trust_heartbeat_failed run=%s", run_id)

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def queue_after_sync(engine: Engine, site_id: str) -> None:
    """A sync or an upload changed the site's content: queue its trust report (run by the
    worker). Never raises: a report is not worth failing the sync that asked for it."""
    try:
        TrustStore(engine).queue(site_id, "sync")
    except Exception:
        logging.getLogger(__name__).exception("trust_queue_failed site=%s", site_id)

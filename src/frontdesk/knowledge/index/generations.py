"""Which index answers for a site: its generation (index key + embedding model).

A site's chunks live in the index under an *index key*: the site id for its first
generation, `site@N` after its N-th change of embedding model (a site id never contains
`@`). One row per site in `knowledge_generations` names the serving key and model, and
the re-embed under way (pending key and model, claimed by one process at a time).

Changing a site's embedding model therefore never touches the serving index: the new
generation is built beside it, then one UPDATE switches searches to it — atomically for
every process and replica — and the old generation is dropped.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, text

# A claim older than this is a re-embed whose process died: another may take it over.
STALE_CLAIM = timedelta(minutes=30)


@dataclass(frozen=True)
class Generation:
    site_id: str
    index_key: str
    embedding_model: str
    generation: int = 0
    pending_key: str | None = None
    pending_model: str | None = None
    pending_since: datetime | None = None

    def next_key(self) -> str:
        return f"{self.site_id}@{self.generation + 1}"


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: object) -> datetime | None:
    """SQLite returns timestamps as naive text, PostgreSQL as aware datetimes."""
    if value is None:
        return None
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class GenerationStore:
    """`knowledge_generations` on SQLite or PostgreSQL (the same SQL on both)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, site_id: str) -> Generation | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                text(
                    "SELECT site_id, index_key, embedding_model, generation, pending_key,"
                    " pending_model, pending_since FROM knowledge_generations"
                    " WHERE site_id = :site"
                ),
                {"site": site_id},
            ).first()
        if row is None:
            return None
        return Generation(row[0], row[1], row[2], int(row[3]), row[4], row[5], _aware(row[6]))

    def register(self, site_id: str, model: str) -> Generation:
        """The site's first generation (its own id as key), unless it has one already."""
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO knowledge_generations (site_id, index_key, embedding_model,"
                    " generation, updated_at) VALUES (:site, :site, :model, 0, :now)"
                    " ON CONFLICT (site_id) DO NOTHING"
                ),
                {"site": site_id, "model": model, "now": _now()},
            )
        current = self.get(site_id)
        assert current is not None
        return current

    def claim(self, site_id: str, model: str) -> Generation | None:
        """Claim the re-embed of `site_id` with `model`; None when another process holds a
        fresh claim. Returns the generation with its pending key set."""
        current = self.get(site_id)
        if current is None:
            return None
        now = _now()
        with self.engine.begin() as conn:
            claimed = conn.execute(
                text(
                    "UPDATE knowledge_generations SET pending_key = :key, pending_model = :model,"
                    " pending_since = :now, updated_at = :now WHERE site_id = :site"
                    " AND generation = :generation AND (pending_since IS NULL"
                    " OR pending_since < :stale)"
                ),
                {
                    "site": site_id,
                    "key": current.next_key(),
                    "model": model,
                    "now": now,
                    "generation": current.generation,
                    "stale": now - STALE_CLAIM,
                },
            ).rowcount
        if not claimed:
            return None
        return replace(
            current, pending_key=current.next_key(), pending_model=model, pending_since=now
        )

    def switch(self, claimed: Generation) -> bool:
        """Make the claimed pending generation the serving one, in one statement."""
        with self.engine.begin() as conn:
            switched = conn.execute(
                text(
                    "UPDATE knowledge_generations SET index_key = pending_key,"
                    " embedding_model = pending_model, generation = generation + 1,"
                    " pending_key = NULL, pending_model = NULL, pending_since = NULL,"
                    " updated_at = :now WHERE site_id = :site AND pending_key = :key"
                    " AND generation = :generation"
                ),
                {
                    "site": claimed.site_id,
                    "key": claimed.pending_key,
                    "generation": claimed.generation,
                    "now": _now(),
                },
            ).rowcount
        return bool(switched)

    def release(self, claimed: Generation) -> None:
        """Give up a claim (the re-embed failed); the serving generation is untouched."""
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE knowledge_generations SET pending_key = NULL, pending_model = NULL,"
                    " pending_since = NULL, updated_at = :now"
                    " WHERE site_id = :site AND pending_key = :key"
                ),
                {"site": claimed.site_id, "key": claimed.pending_key, "now": _now()},
            )


class MemoryGenerationStore:
    """The same contract in memory, for a knowledge base built on an index without an
    engine (one process, nothing to share)."""

    def __init__(self) -> None:
        self._rows: dict[str, Generation] = {}
        self._lock = threading.Lock()

    def get(self, site_id: str) -> Generation | None:
        return self._rows.get(site_id)

    def register(self, site_id: str, model: str) -> Generation:
        with self._lock:
            return self._rows.setdefault(site_id, Generation(site_id, site_id, model))

    def claim(self, site_id: str, model: str) -> Generation | None:
        with self._lock:
            current = self._rows.get(site_id)
            if current is None or current.pending_key is not None:
                return None
            claimed = replace(
                current, pending_key=current.next_key(), pending_model=model, pending_since=_now()
            )
            self._rows[site_id] = claimed
            return claimed

    def switch(self, claimed: Generation) -> bool:
        with self._lock:
            current = self._rows.get(claimed.site_id)
            if current is None or current.pending_key != claimed.pending_key:
                return False
            assert claimed.pending_key is not None and claimed.pending_model is not None
            self._rows[claimed.site_id] = Generation(
                claimed.site_id,
                claimed.pending_key,
                claimed.pending_model,
                current.generation + 1,
            )
            return True

    def release(self, claimed: Generation) -> None:
        with self._lock:
            current = self._rows.get(claimed.site_id)
            if current is not None and current.pending_key == claimed.pending_key:
                self._rows[claimed.site_id] = replace(
                    current, pending_key=None, pending_model=None, pending_since=None
                )

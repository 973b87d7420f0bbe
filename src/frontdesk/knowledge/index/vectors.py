"""Dense vectors of the embedded index: shared files on disk plus a small live delta.

SQLite stays the source of truth (`knowledge_chunks.embedding`); what this module keeps
is derived from it and can be deleted at any time (the next search rebuilds it).

- Base (per site and embedding model): a float32 matrix (`.npy`) and its chunk row ids,
  written once and memory-mapped by every worker, so the vectors live once in the page
  cache instead of once per worker. From `ANN_MIN_ROWS` rows on, an HNSW graph (usearch,
  int8-quantised, also memory-mapped) finds candidates, which are re-scored exactly with
  the float32 rows; below that an exact scan is faster than a graph walk.
- Delta: every insert and delete of a chunk row appends to `knowledge_changes` (SQLite
  triggers, so in the writer's own transaction). A worker applies the rows after its
  base's `seq` on the next search after a write: new vectors go to a small in-memory
  matrix, removed rows are masked. A new page is searchable as soon as the revision
  recheck sees the write.
- Compaction: when the delta outgrows `compaction_rows`, one process (a file lock)
  folds it into a new base generation in a background thread — the HNSW graph is
  updated (restored, rows added and removed, saved), not rebuilt — then publishes it by
  renaming `manifest.json`. Log rows older than every model's base are pruned and
  `knowledge_sites.log_floor` raised; a worker whose base is older reloads the manifest.
- Crash: a half-written generation is never named by a manifest (written to temporary
  names, renamed last); a stale or missing base is rebuilt from SQLite.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, text

from frontdesk.knowledge.index.base import Vector, as_vector
from frontdesk.knowledge.index.vector_base import (
    Base,
    Ids,
    Live,
    applied,
    background_priority,
    digest,
    dot,
    log_floor,
    max_seq,
    new_graph,
    top,
    updated_graph,
)
from frontdesk.knowledge.index.vector_files import BaseFiles

log = logging.getLogger(__name__)
ANN_MIN_ROWS = 20_000  # below this an exact scan of the mapped matrix is faster
MIN_COMPACTION_ROWS = 2_000
SEARCHER_COMPACTION_FACTOR = 4
WRITE_CHECK_S = 2.0
COMPACTION_FRACTION = 0.05


class VectorStore:
    """Dense search over a SQLite index's chunks; one per `SqliteKnowledgeIndex`."""

    def __init__(
        self,
        engine: Engine,
        folder: Path | None,
        *,
        ann_min_rows: int = ANN_MIN_ROWS,
        compaction_rows: int = MIN_COMPACTION_ROWS,
        background: bool = True,
    ) -> None:
        self.engine = engine
        self.folder = folder  # None: an in-memory database, bases stay in RAM
        self.files = BaseFiles(engine, folder)
        self.ann_min_rows = ann_min_rows
        self.compaction_rows = compaction_rows
        self.background = background
        self._live: dict[tuple[str, str], Live] = {}
        self._lock = threading.RLock()
        self._compacting: set[tuple[str, str]] = set()
        self._write_checks: dict[str, float] = {}

    # -- search ----------------------------------------------------------------------
    def search(
        self, site_id: str, model: str, vector: Vector, limit: int
    ) -> list[tuple[int, float]]:
        """(row id, cosine) of the best `limit` rows, exact scores, best first."""
        live = self.live(site_id, model)
        base = live.base
        dim = base.dim or (len(next(iter(live.added.values()))) if live.added else 0)
        if not dim or limit <= 0:
            return []
        if dim != vector.shape[0]:
            raise ValueError(
                f"query vector has {vector.shape[0]} dimensions, the index has {dim} ({model})"
            )
        found = self._search_base(live, vector, limit)
        delta_ids, delta_matrix = live.delta(dim)
        if len(delta_ids):
            found += top(delta_ids, dot(delta_matrix, vector), limit)
        found.sort(key=lambda item: -item[1])
        return found[:limit]

    def _search_base(self, live: Live, vector: Vector, limit: int) -> list[tuple[int, float]]:
        base, removed = live.base, live.removed
        if not len(base.ids):
            return []
        if base.ann is None:
            scores = dot(base.matrix, vector)
            if removed:
                scores[np.searchsorted(base.ids, live.removed_ids())] = -np.inf
            # Removed rows score -inf: among the top `limit` only when fewer rows live.
            return [hit for hit in top(base.ids, scores, limit) if hit[0] not in removed]
        # Candidates from the graph (oversampled), re-scored exactly with float32 rows.
        keys = self._graph_candidates(live, base.ann, vector, min(len(base.ids), 2 * limit))
        if not len(keys):
            return []
        rows = np.searchsorted(base.ids, keys)
        order = np.argsort(rows)  # read the mapped rows in file order
        scores = np.empty(len(rows), dtype=np.float32)
        scores[order] = dot(base.rows(rows[order]), vector)
        return top(keys, scores, limit)

    @staticmethod
    def _graph_candidates(live: Live, graph: Any, vector: Vector, wanted: int) -> Ids:
        """The graph's `wanted` nearest rows not removed since the base was built.

        Removed rows stay in the graph until compaction (thousands during a re-ingest).
        Asking for `wanted + len(removed)` made the graph walk and the exact re-score
        grow with them (18 ms of CPU per search at 2,500 removed rows of 100,000, against
        1.3 ms); the graph is asked for the share of removed rows expected among the
        results, and again for twice as many when the removed rows crowd the query's
        neighbourhood (a page being rewritten has its old rows right there)."""
        base, removed = live.base, live.removed
        total = len(base.ids)
        ask = wanted
        if removed:
            ask += wanted * len(removed) // max(1, total - len(removed)) + 8
        while True:
            ask = min(total, ask)
            matches = graph.search(vector, ask, threads=1)
            keys = np.asarray(matches.keys, dtype=np.int64)
            if removed:
                keys = keys[~live.is_removed(keys)]
            if len(keys) >= wanted or ask >= total:
                return keys[:wanted]
            ask *= 2

    def vectors(self, site_id: str, model: str, row_ids: Ids) -> dict[int, Vector]:
        """The live vectors of the given rows (delta first, then base)."""
        live = self.live(site_id, model)
        found = {int(r): live.added[int(r)] for r in row_ids if int(r) in live.added}
        rest = np.array(
            [r for r in row_ids if int(r) not in found and int(r) not in live.removed],
            dtype=np.int64,
        )
        if len(rest) and len(live.base.ids):
            rows = np.minimum(np.searchsorted(live.base.ids, rest), len(live.base.ids) - 1)
            present = np.asarray(live.base.ids)[rows] == rest
            rest, rows = rest[present], rows[present]
            order = np.argsort(rows)  # read the rows in file order, in one call
            for row_id, stored in zip(rest[order], live.base.rows(rows[order]), strict=True):
                found[int(row_id)] = stored
        return found

    # -- keeping up ----------------------------------------------------------------------
    def live(self, site_id: str, model: str) -> Live:
        """The current view; call `refresh` after a revision change to apply new writes."""
        key = (site_id, model)
        live = self._live.get(key)
        if live is None:
            with self._lock:
                live = self._live.get(key)
                if live is None:
                    live = self._open(site_id, model)
                    self._live[key] = live
        return live

    def refresh(self, site_id: str) -> None:
        """Apply writes logged since each of the site's live views (called on a new
        revision): a new base generation is picked up, new rows added, removed ones masked."""
        due: list[str] = []
        with self._lock:
            for (site, model), live in list(self._live.items()):
                if site != site_id:
                    continue
                with self.engine.connect() as conn:
                    floor = log_floor(conn, site_id)
                    fresh = self.files.newer_base(site_id, model, live.base, floor)
                    if fresh is not None:  # another process compacted: map its base
                        live = applied(conn, site_id, model, Live(fresh, fresh.seq))
                    elif live.base.seq < floor or live.applied_seq < floor:
                        live = self._open(site_id, model, conn=conn)
                    else:
                        live = applied(conn, site_id, model, live)
                self._live[(site, model)] = live
                # Writers compact (`after_write`); a searcher only when none did.
                if live.pending() > SEARCHER_COMPACTION_FACTOR * self._threshold(live):
                    due.append(model)
        for model in due:
            self._compact_later(site_id, model)

    def after_write(self, site_id: str) -> None:
        """Called by the writing process after a commit (checked every `WRITE_CHECK_S`):
        a base whose logged changes outgrew the threshold is compacted here, in a
        background thread of the writer (which the process waits for at exit), so
        serving workers never spend their CPU on it."""
        if self.folder is None:
            return
        now = time.monotonic()
        if now - self._write_checks.get(site_id, 0.0) < WRITE_CHECK_S:
            return
        self._write_checks[site_id] = now
        with self.engine.connect() as conn:
            for path in (self.folder / digest(site_id)).glob("*/manifest.json"):
                try:
                    manifest = json.loads(path.read_text())
                except (OSError, ValueError):
                    continue
                pending = conn.execute(
                    text(
                        "SELECT count(*) FROM knowledge_changes WHERE site_id = :site"
                        " AND seq > :seq"
                    ),
                    {"site": site_id, "seq": int(manifest["seq"])},
                ).scalar_one()
                threshold = max(self.compaction_rows, int(manifest["rows"] * COMPACTION_FRACTION))
                if pending > threshold:
                    self._compact_later(site_id, str(manifest["model"]), daemon=False)

    def forget(self) -> None:
        with self._lock:
            self._live.clear()

    def _threshold(self, live: Live) -> int:
        return max(self.compaction_rows, int(len(live.base.ids) * COMPACTION_FRACTION))

    def _open(self, site_id: str, model: str, conn: Connection | None = None) -> Live:
        """The newest usable base (built from SQLite when there is none) and its delta."""
        with self._connection(conn) as conn_:
            floor = log_floor(conn_, site_id)
            base = self.files.read_base(site_id, model, floor)
            if base is None:
                with self.files.lock(site_id, model):
                    base = self.files.read_base(site_id, model, floor)  # another process built it
                    if base is None:
                        base = self._build(site_id, model, ann=False)
            live = applied(conn_, site_id, model, Live(base=base, applied_seq=base.seq))
        if base.ann is None and len(base.ids) >= self.ann_min_rows:
            self._compact_later(site_id, model)  # the graph is built in the background
        return live

    @contextmanager
    def _connection(self, conn: Connection | None) -> Iterator[Connection]:
        if conn is not None:
            yield conn
            return
        with self.engine.connect() as fresh:
            yield fresh

    # -- building ----------------------------------------------------------------------
    def build(self, site_id: str, model: str) -> Base:
        """Rebuild the base of (site, model) from SQLite, graph included (the rebuild path:
        `frontdesk kb reindex`, benchmarks, or after deleting the vector folder)."""
        with self.files.lock(site_id, model):
            large = len(self._ids(site_id, model)) >= self.ann_min_rows
            base = self._build(site_id, model, ann=large, threads=0)  # asked for: all cores
        with self._lock:
            self._live.pop((site_id, model), None)
        return base

    def _ids(self, site_id: str, model: str) -> list[int]:
        with self.engine.connect() as conn:
            return list(
                conn.execute(
                    text(
                        "SELECT id FROM knowledge_chunks WHERE site_id = :site"
                        " AND embedding_model = :model"
                    ),
                    {"site": site_id, "model": model},
                ).scalars()
            )

    def _build(self, site_id: str, model: str, *, ann: bool, threads: int = 1) -> Base:
        with self.engine.connect() as conn:
            seq = max_seq(conn)  # same read transaction as the rows
            rows = conn.execute(
                text(
                    "SELECT id, embedding FROM knowledge_chunks WHERE site_id = :site"
                    " AND embedding_model = :model ORDER BY id"
                ),
                {"site": site_id, "model": model},
            )
            ids: list[int] = []
            vectors: list[Vector] = []
            for row_id, blob in rows:
                ids.append(int(row_id))
                vectors.append(as_vector(blob))
        id_array = np.array(ids, dtype=np.int64)
        matrix = np.vstack(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)
        log.info("vector_base_built site=%s model=%s rows=%d", site_id, model, len(ids))
        return self.files.publish(
            site_id,
            model,
            seq,
            id_array,
            matrix,
            new_graph(id_array, matrix, threads=threads) if ann else None,
        )

    # -- compaction --------------------------------------------------------------------
    def _compact_later(self, site_id: str, model: str, *, daemon: bool = True) -> None:
        key = (site_id, model)
        if key in self._compacting:
            return
        self._compacting.add(key)
        if not self.background:
            self._compact(site_id, model)
            return
        threading.Thread(
            target=self._compact_in_background,
            args=(site_id, model),
            name="vector-compaction",
            daemon=daemon,
        ).start()

    def _compact_in_background(self, site_id: str, model: str) -> None:
        background_priority()  # seconds of CPU: cores go to searches first
        self._compact(site_id, model)

    def _compact(self, site_id: str, model: str) -> None:
        try:
            with self.files.lock(site_id, model, wait=False) as locked:
                if not locked:
                    return  # another process is compacting this base
                base = self.compact(site_id, model)
            with self._lock, self.engine.connect() as conn:
                fresh = Live(base=base, applied_seq=base.seq)
                self._live[(site_id, model)] = applied(conn, site_id, model, fresh)
        except Exception:
            log.exception("vector_compaction_failed site=%s model=%s", site_id, model)
        finally:
            self._compacting.discard((site_id, model))

    def compact(self, site_id: str, model: str) -> Base:
        """Fold the logged changes into a new base generation (caller holds the file lock)."""
        started, started_cpu = time.monotonic(), time.thread_time()
        with self.engine.connect() as conn:
            floor = log_floor(conn, site_id)
            base = self.files.read_base(site_id, model, floor) or self._live_base(
                site_id, model, floor
            )
            if base is None:
                return self._build(site_id, model, ann=False)
            live = applied(conn, site_id, model, Live(base=base, applied_seq=base.seq))
        dim = base.dim or (len(next(iter(live.added.values()))) if live.added else 0)
        delta_ids, delta_matrix = live.delta(dim)
        keep = ~np.isin(base.ids, np.fromiter(live.removed | set(live.added), dtype=np.int64))
        ids = np.concatenate([np.asarray(base.ids)[keep], delta_ids])
        matrix = np.vstack([np.asarray(base.matrix)[keep], delta_matrix]) if dim else delta_matrix
        order = np.argsort(ids, kind="stable")
        ids, matrix = ids[order], matrix[order]
        graph = None
        if len(ids) >= self.ann_min_rows:
            if base.ann is not None and self.folder is not None:
                graph = updated_graph(self.files.folder_of(site_id, model), base, live)
            else:
                graph = new_graph(ids, matrix)
        base = self.files.publish(site_id, model, live.applied_seq, ids, matrix, graph)
        log.info(
            "vector_base_compacted site=%s model=%s rows=%d added=%d removed=%d s=%.2f cpu_s=%.2f",
            site_id,
            model,
            len(ids),
            len(live.added),
            len(live.removed),
            time.monotonic() - started,
            time.thread_time() - started_cpu,
        )
        return base

    def _live_base(self, site_id: str, model: str, floor: int) -> Base | None:
        live = self._live.get((site_id, model))
        return live.base if live is not None and live.base.seq >= floor else None

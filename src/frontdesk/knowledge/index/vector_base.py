"""Vector bases of the embedded index: immutable generations on disk, a worker's live
view (base + logged changes), and the HNSW graph (usearch) of large bases.

See `frontdesk.knowledge.index.vectors` for how they are kept up to date.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import Connection, bindparam, text

from frontdesk.knowledge.index.base import Vector, as_vector

# The graph walk's breadth (usearch `expansion_search`). At 1M chunks (int8, M 16) the
# top 10 of a search's 100 re-scored candidates matched an exact scan for 0.947 of
# results at 128, 0.987 at 256, 0.997 at 512, for +0.7 ms of CPU at 512 over 128.
EXPANSION_SEARCH = 512
CONNECTIVITY = 16
Ids = NDArray[np.int64]


def digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:24]


def dot(matrix: Vector, vector: Vector) -> Vector:
    """Row-wise dot products without BLAS threads (memory-bound; threads only add jitter
    on a busy machine)."""
    scores: Vector = np.einsum("ij,j->i", matrix, vector)
    return scores


@dataclass(frozen=True)
class Base:
    """An immutable generation: sorted row ids, their vectors and optional HNSW graph."""

    generation: int
    seq: int
    ids: Ids
    matrix: Vector
    ann: Any | None = None  # usearch.index.Index (a view of the file), keys = row ids
    file: Any | None = None  # the matrix file, for reading single rows

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1]) if self.matrix.ndim == 2 else 0

    def rows(self, positions: Ids) -> Vector:
        """Rows at `positions`. From a file they are read with pread rather than through
        the mapping: a fault maps the pages around it too (fault-around), and a worker
        would soon count the whole shared matrix in its RSS for a few rows per search."""
        if self.file is None:
            return np.asarray(self.matrix[positions], dtype=np.float32)
        width = self.dim * 4
        start = int(getattr(self.matrix, "offset", 0))
        found = np.empty((len(positions), self.dim), dtype=np.float32)
        descriptor = self.file.fileno()
        for i, position in enumerate(positions):
            found[i] = np.frombuffer(
                os.pread(descriptor, width, start + int(position) * width), dtype="<f4"
            )
        return found


@dataclass
class Live:
    """A worker's view of one (site, model): base + rows added and removed since."""

    base: Base
    applied_seq: int
    added: dict[int, Vector] = field(default_factory=dict)
    removed: set[int] = field(default_factory=set)  # base row ids deleted since
    _delta: tuple[Ids, Vector] | None = None
    _removed_ids: Ids | None = None

    def removed_ids(self) -> Ids:
        """`removed` as a sorted array (for `np.isin`), built once per view."""
        if self._removed_ids is None:
            ids = np.fromiter(self.removed, dtype=np.int64, count=len(self.removed))
            self._removed_ids = np.sort(ids)
        return self._removed_ids

    def delta(self, dim: int) -> tuple[Ids, Vector]:
        if self._delta is None:
            ids = np.fromiter(self.added, dtype=np.int64, count=len(self.added))
            # One concatenation of the rows: `np.vstack` of thousands of 1-D rows spent
            # ~10 ms per new view in per-row `atleast_2d` during a re-ingest.
            matrix = (
                np.concatenate(list(self.added.values())).reshape(len(ids), -1)
                if self.added
                else np.zeros((0, dim), dtype=np.float32)
            )
            self._delta = (ids, np.ascontiguousarray(matrix, dtype=np.float32))
        return self._delta

    def is_removed(self, keys: Ids) -> NDArray[np.bool_]:
        """Which of `keys` are base rows removed since (a lookup in the sorted ids)."""
        removed = self.removed_ids()
        if not len(removed):
            return np.zeros(len(keys), dtype=bool)
        positions = np.minimum(np.searchsorted(removed, keys), len(removed) - 1)
        found: NDArray[np.bool_] = removed[positions] == keys
        return found

    def pending(self) -> int:
        return len(self.added) + len(self.removed)


BACKGROUND_NICE = 19


def background_priority() -> None:
    """Give the calling thread the lowest CPU priority (Linux: nice is per thread), for
    index maintenance in its own thread: on a busy machine the kernel then runs it on
    cores that searches leave idle instead of sharing them evenly with searches. Where
    threads have no priority of their own, nothing changes."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)


def top(ids: Ids, scores: Vector, limit: int) -> list[tuple[int, float]]:
    if not len(ids) or limit <= 0:
        return []
    count = min(limit, len(scores))
    best = np.argpartition(-scores, count - 1)[:count]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [(int(ids[i]), float(scores[i])) for i in best]


def open_generation(folder: Path, manifest: dict[str, Any]) -> Base:
    stem = folder / f"gen-{int(manifest['generation'])}"
    ids = np.load(f"{stem}.ids.npy", mmap_mode="r")
    matrix = np.load(f"{stem}.f32.npy", mmap_mode="r")
    file = open(f"{stem}.f32.npy", "rb")  # noqa: SIM115 - lives as long as the base
    ann = None
    if manifest.get("ann"):
        from usearch.index import Index

        ann = Index.restore(f"{stem}.usearch", view=True, expansion_search=EXPANSION_SEARCH)
        if ann is None:
            raise ValueError(f"{stem}.usearch is not a usearch index")
    if len(ids) != int(manifest["rows"]) or (len(ids) and matrix.shape[0] != len(ids)):
        raise ValueError(
            f"{stem}: {len(ids)} ids, {matrix.shape[0]} vectors, manifest says {manifest['rows']}"
        )
    return Base(int(manifest["generation"]), int(manifest["seq"]), ids, matrix, ann, file)


def new_graph(ids: Ids, matrix: Vector, threads: int = 1) -> Any:
    from usearch.index import Index

    graph = Index(
        ndim=int(matrix.shape[1]),
        metric="cos",
        dtype="i8",
        connectivity=CONNECTIVITY,
        expansion_search=EXPANSION_SEARCH,
    )
    if len(ids):
        graph.add(ids, np.ascontiguousarray(matrix, dtype=np.float32), threads=threads)
    return graph


def updated_graph(folder: Path | None, base: Base, live: Live) -> Any:
    """The base's graph loaded into memory, with removed rows dropped and new ones added."""
    from usearch.index import Index

    graph = Index.restore(str(folder / f"gen-{base.generation}.usearch")) if folder else None
    if graph is None:
        raise RuntimeError("the base generation's graph file is missing")
    stale = np.fromiter(live.removed | (set(live.added) & set(map(int, base.ids))), dtype=np.int64)
    if len(stale):
        graph.remove(stale)
    delta_ids, delta_matrix = live.delta(base.dim)
    if len(delta_ids):
        graph.add(delta_ids, delta_matrix, threads=1)
    return graph


def log_floor(conn: Connection, site_id: str) -> int:
    value = conn.execute(
        text("SELECT log_floor FROM knowledge_sites WHERE site_id = :site"), {"site": site_id}
    ).scalar()
    return int(value or 0)


def max_seq(conn: Connection) -> int:
    return int(
        conn.execute(text("SELECT coalesce(max(seq), 0) FROM knowledge_changes")).scalar_one()
    )


def applied(conn: Connection, site_id: str, model: str, live: Live) -> Live:
    """`live` with the logged changes after its `applied_seq` (a new object: searches
    holding the old one keep a consistent view)."""
    changes = conn.execute(
        text(
            "SELECT seq, chunk_row, removed FROM knowledge_changes WHERE site_id = :site"
            " AND seq > :seq ORDER BY seq"
        ),
        {"site": site_id, "seq": live.applied_seq},
    ).all()
    if not changes:
        return live
    added_rows = {int(row) for _, row, removed in changes if not removed}
    vectors: dict[int, Vector] = {}
    # By primary key only, site and model checked here: with `site_id = :site` in the
    # WHERE clause SQLite walks the site's (site_id, chunk_id) index instead — 190 ms for
    # 400 rows of a 1M-chunk site, in the search that applies a writer's changes.
    statement = text(
        "SELECT id, embedding, site_id, embedding_model FROM knowledge_chunks WHERE id IN :ids"
    ).bindparams(bindparam("ids", expanding=True))
    pending = sorted(added_rows)
    for start in range(0, len(pending), 500):
        for row_id, blob, row_site, row_model in conn.execute(
            statement, {"ids": pending[start : start + 500]}
        ).all():
            if row_site == site_id and row_model == model:
                vectors[int(row_id)] = as_vector(blob)
    added = dict(live.added)
    removed = set(live.removed)
    base_ids = live.base.ids
    for _, row, was_removed in changes:
        row = int(row)
        in_base = bool(len(base_ids)) and contains(base_ids, row)
        if was_removed:
            added.pop(row, None)
            if in_base:
                removed.add(row)
        elif row in vectors:  # rows of another model, or deleted since, are not ours
            added[row] = vectors[row]
            if in_base:
                removed.add(row)  # the base holds an older vector under a reused id
    return Live(base=live.base, applied_seq=int(changes[-1][0]), added=added, removed=removed)


def contains(ids: Ids, row: int) -> bool:
    position = int(np.searchsorted(ids, row))
    return position < len(ids) and int(ids[position]) == row

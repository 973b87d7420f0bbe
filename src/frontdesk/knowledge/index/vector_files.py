"""The files of a site's vector bases: one folder per (site, model) holding numbered
generations (ids, float32 matrix, optional HNSW graph) and the `manifest.json` naming the
current one, written under temporary names and renamed last (`vectors.py` says why)."""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Engine, text

from frontdesk.knowledge.index.base import Vector
from frontdesk.knowledge.index.vector_base import Base, Ids, digest, open_generation

log = logging.getLogger(__name__)


class BaseFiles:
    """Reads, writes and locks the generations of every (site, model) under `folder`;
    with no folder (an in-memory database) a generation is kept in memory only."""

    def __init__(self, engine: Engine, folder: Path | None) -> None:
        self.engine = engine
        self.folder = folder

    def folder_of(self, site_id: str, model: str) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / digest(site_id) / digest(model)

    @contextmanager
    def lock(self, site_id: str, model: str, *, wait: bool = True) -> Iterator[bool]:
        folder = self.folder_of(site_id, model)
        if folder is None:
            yield True
            return
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / ".lock", "a+b") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def manifest(self, site_id: str, model: str) -> dict[str, Any] | None:
        folder = self.folder_of(site_id, model)
        if folder is None:
            return None
        try:
            manifest: dict[str, Any] = json.loads((folder / "manifest.json").read_text())
        except (OSError, ValueError):
            return None
        return manifest

    def newer_base(self, site_id: str, model: str, current: Base, floor: int) -> Base | None:
        manifest = self.manifest(site_id, model)
        if manifest is None or int(manifest["generation"]) <= current.generation:
            return None
        return self.read_base(site_id, model, floor)

    def read_base(self, site_id: str, model: str, floor: int) -> Base | None:
        """The base the manifest names, mapped; None when there is none usable. A
        generation replaced (and its files deleted) while being opened is retried."""
        folder = self.folder_of(site_id, model)
        for _attempt in range(3):
            manifest = self.manifest(site_id, model)
            if manifest is None or folder is None or int(manifest["seq"]) < floor:
                return None
            try:
                return open_generation(folder, manifest)
            except (OSError, ValueError) as exc:
                if self.manifest(site_id, model) != manifest:
                    continue  # a newer generation was published meanwhile
                log.warning("vector_base_unreadable site=%s model=%s error=%s", site_id, model, exc)
                return None
        return None

    def publish(
        self, site_id: str, model: str, seq: int, ids: Ids, matrix: Vector, ann: Any | None
    ) -> Base:
        """Write a generation under temporary names, then name it in the manifest."""
        folder = self.folder_of(site_id, model)
        previous = self.manifest(site_id, model)
        generation = int(previous["generation"]) + 1 if previous else 1
        if folder is None:
            return Base(generation, seq, ids, np.ascontiguousarray(matrix, dtype=np.float32), ann)
        folder.mkdir(parents=True, exist_ok=True)
        stem = folder / f"gen-{generation}"
        for suffix, array in ((".ids.npy", ids), (".f32.npy", matrix.astype(np.float32))):
            with open(f"{stem}{suffix}.tmp", "wb") as handle:
                np.save(handle, array)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(f"{stem}{suffix}.tmp", f"{stem}{suffix}")
        if ann is not None:
            ann.save(f"{stem}.usearch.tmp")
            os.replace(f"{stem}.usearch.tmp", f"{stem}.usearch")
        manifest = {
            "generation": generation,
            "seq": seq,
            "rows": len(ids),
            "dim": int(matrix.shape[1]) if matrix.ndim == 2 else 0,
            "ann": ann is not None,
            "site": site_id,
            "model": model,
        }
        (folder / "manifest.tmp").write_text(json.dumps(manifest))
        os.replace(folder / "manifest.tmp", folder / "manifest.json")
        for old in folder.glob("gen-*"):
            if not old.name.startswith(f"gen-{generation}."):
                old.unlink(missing_ok=True)  # mapped copies stay valid until unmapped
        self.prune_log(site_id)
        base = self.read_base(site_id, model, 0)
        if base is None:
            raise RuntimeError(f"vector base {stem} was written but cannot be read")
        return base

    def prune_log(self, site_id: str) -> None:
        """Drop log rows every model's base already holds; raise the floor to match."""
        if self.folder is None:
            return
        seqs = []
        for manifest_path in (self.folder / digest(site_id)).glob("*/manifest.json"):
            try:
                seqs.append(int(json.loads(manifest_path.read_text())["seq"]))
            except (OSError, ValueError, KeyError):
                return
        if not seqs:
            return
        floor = min(seqs)
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE knowledge_sites SET log_floor = :floor"
                    " WHERE site_id = :site AND log_floor < :floor"
                ),
                {"floor": floor, "site": site_id},
            )
            conn.execute(
                text("DELETE FROM knowledge_changes WHERE site_id = :site AND seq <= :floor"),
                {"floor": floor, "site": site_id},
            )

"""Where conversation state lives between turns: the LangGraph checkpointer.

The backend follows the app store's URL: SQLite (`langgraph-checkpoint-sqlite`'s saver,
each call one hop to a worker thread, a file next to the store) by default, PostgreSQL
(`langgraph-checkpoint-postgres` on a psycopg connection pool) when
`FRONTDESK_DATABASE_URL` is `postgresql://…`. Any replica can load
any thread, so a conversation may move between API processes between turns.

`frontdesk db upgrade` runs the checkpointer's own migrations (`setup`); opening a
checkpointer runs them again under an advisory lock, which is idempotent and cheap.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.sqlite import SqliteSaver
from sqlalchemy.engine import make_url

from frontdesk.settings import Settings

log = logging.getLogger(__name__)

POOL_MIN_SIZE = 1
POOL_MAX_SIZE = 10
_SETUP_LOCK = 0x46524F4E54  # advisory lock id: "FRONT"


def is_postgres(url: str) -> bool:
    return make_url(url).get_backend_name() == "postgresql"


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL (`postgresql+psycopg://…`) as a libpq connection string."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@dataclass
class Checkpointer:
    """An open checkpointer and what must be closed with it."""

    saver: BaseCheckpointSaver[Any]
    backend: str
    _resource: Any

    async def delete_threads(self, thread_ids: list[str]) -> None:
        for tid in thread_ids:
            await self.saver.adelete_thread(tid)

    async def thread_ids(self) -> list[str]:
        """Every thread that has a checkpoint (retention and diagnostics)."""
        if self.backend == "postgres":
            async with self._resource.connection() as conn:
                rows = await (await conn.execute("SELECT DISTINCT thread_id FROM checkpoints"))
                return [row["thread_id"] for row in await rows.fetchall()]
        saver = self.saver
        assert isinstance(saver, ThreadedSqliteSaver)

        def read() -> list[str]:
            with saver.cursor(transaction=False) as cursor:
                rows = cursor.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
            return [str(row[0]) for row in rows]

        return await asyncio.to_thread(read)

    async def aclose(self) -> None:
        if self.backend == "postgres":
            await self._resource.close()
            return
        saver = self.saver
        assert isinstance(saver, ThreadedSqliteSaver)

        def close() -> None:
            with saver.lock:  # after any load or save still running in a thread
                self._resource.close()

        await asyncio.to_thread(close)


async def open_checkpointer(settings: Settings, sqlite_path: Path | None = None) -> Checkpointer:
    """The checkpointer for `settings.database_url`, set up and ready."""
    if is_postgres(settings.database_url):
        return await _open_postgres(libpq_url(settings.database_url))
    return await _open_sqlite(sqlite_path or settings.data_dir / "checkpoints.db")


# LangGraph's SQLite tables: every column after `thread_id`.
_TABLES = {
    "checkpoints": "checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata",
    "writes": "checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value",
}


class ThreadedSqliteSaver(SqliteSaver):
    """LangGraph's SQLite saver with each async call run whole in a worker thread.

    `AsyncSqliteSaver` (aiosqlite) sends every cursor, execute, fetch, commit and close to
    its connection thread and back: about a dozen event-loop wake-ups per turn for one
    checkpoint load and one save. Here a load or a save is one hop, and the (de)serializing
    happens in the thread. The SQL, the tables and the file are LangGraph's own (the
    synchronous saver serializes access with its lock), so existing checkpoint files load
    unchanged. With `benchmarks/graph_overhead.py`'s graph, when it replaced aiosqlite: the
    checkpoint's share of a turn's event-loop CPU 2.2 → 0.5 ms on a 2.3 GHz Xeon.
    """

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: Mapping[str, object] | None = None,  # metadata key → value
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        metadata = None if filter is None else dict(filter)
        found = await asyncio.to_thread(
            lambda: list(self.list(config, filter=metadata, before=before, limit=limit))
        )
        for item in found:
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, Any]:
        return await asyncio.to_thread(
            self.get_delta_channel_history, config=config, channels=channels
        )

    # LangGraph's SQLite savers leave the next three to BaseCheckpointSaver, which raises
    # NotImplementedError; here they are SQL on the saver's own two tables.

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Every checkpoint and pending write of one thread, under another thread id."""
        with self.cursor() as cur:
            for table, columns in _TABLES.items():
                cur.execute(
                    f"INSERT OR REPLACE INTO {table} (thread_id, {columns})"
                    f" SELECT ?, {columns} FROM {table} WHERE thread_id = ?",
                    (target_thread_id, source_thread_id),
                )

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """The checkpoints (and their writes) that the given runs saved."""
        if not run_ids:
            return
        marks = ", ".join("?" for _ in run_ids)
        owned = (
            "SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints"
            f" WHERE json_extract(CAST(metadata AS TEXT), '$.run_id') IN ({marks})"
        )
        with self.cursor() as cur:
            cur.execute(
                f"DELETE FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN ({owned})",
                tuple(run_ids),
            )
            cur.execute(
                "DELETE FROM checkpoints WHERE (thread_id, checkpoint_ns, checkpoint_id)"
                f" IN ({owned})",
                tuple(run_ids),
            )

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await asyncio.to_thread(self.delete_for_runs, run_ids)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """`keep_latest`: each namespace of each thread keeps its newest checkpoint only;
        `delete`: the threads go entirely (as PostgreSQL's saver does)."""
        if strategy == "delete":
            for thread_id in thread_ids:
                self.delete_thread(thread_id)
            return
        if strategy != "keep_latest":
            raise ValueError(f"unknown prune strategy {strategy!r}")
        older = (
            "SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints AS c"
            " WHERE thread_id = ? AND checkpoint_id < (SELECT MAX(checkpoint_id)"
            " FROM checkpoints WHERE thread_id = c.thread_id AND checkpoint_ns = c.checkpoint_ns)"
        )
        with self.cursor() as cur:
            for thread_id in thread_ids:
                for table in _TABLES:
                    cur.execute(
                        f"DELETE FROM {table} WHERE (thread_id, checkpoint_ns, checkpoint_id)"
                        f" IN ({older})",
                        (thread_id,),
                    )

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)


async def _open_sqlite(path: Path) -> Checkpointer:
    def connect() -> ThreadedSqliteSaver:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Shared by the worker threads; the saver's lock serializes them.
        connection = sqlite3.connect(str(path), check_same_thread=False)
        # Same durability as the app store: WAL survives a crashed process; NORMAL skips
        # the fsync per commit that FULL would pay on every turn.
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        saver = ThreadedSqliteSaver(connection)
        saver.setup()
        return saver

    saver = await asyncio.to_thread(connect)
    return Checkpointer(saver=saver, backend="sqlite", _resource=saver.conn)


async def _open_postgres(conninfo: str) -> Checkpointer:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        conninfo,
        min_size=POOL_MIN_SIZE,
        max_size=POOL_MAX_SIZE,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
        check=AsyncConnectionPool.check_connection,  # health check on checkout
    )
    await pool.open(wait=True, timeout=30)
    saver = AsyncPostgresSaver(pool)
    await _setup_postgres(saver, pool)
    return Checkpointer(saver=saver, backend="postgres", _resource=pool)


async def _setup_postgres(saver: Any, pool: Any) -> None:
    # Two replicas starting together must not run the CREATE statements concurrently. Poll
    # with try-lock: a blocked lock statement would hold a snapshot that the other replica's
    # CREATE INDEX CONCURRENTLY waits for (an undetected deadlock).
    async with pool.connection() as conn:
        while True:
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (_SETUP_LOCK,))
            row = await cursor.fetchone()
            if row is not None and row["ok"]:
                break
            await asyncio.sleep(0.2)
        try:
            await saver.setup()
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))


async def setup_checkpoints(settings: Settings) -> str:
    """Create or migrate the checkpoint tables (`frontdesk db upgrade`); the backend name."""
    checkpointer = await open_checkpointer(settings)
    try:
        return checkpointer.backend
    finally:
        await checkpointer.aclose()


def is_checkpoint_write_failure(exc: Exception) -> bool:
    """Whether a graph failure is the checkpoint saver's database refusing a write (a raw
    DB-API error: the app store's own errors arrive wrapped by SQLAlchemy)."""
    errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    with contextlib.suppress(ImportError):
        import psycopg

        errors = (*errors, psycopg.Error)
    return isinstance(exc, errors)

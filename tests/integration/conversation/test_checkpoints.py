"""The SQLite checkpointer (`ThreadedSqliteSaver`) under a real graph: concurrent threads,
reopening the file, listing and deleting threads."""

from __future__ import annotations

import asyncio
import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from frontdesk.conversation.checkpoints import ThreadedSqliteSaver, open_checkpointer
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration


class Counter(TypedDict):
    turns: Annotated[int, operator.add]
    said: Annotated[list[str], operator.add]


async def step(state: Counter) -> dict[str, Any]:
    await asyncio.sleep(0)  # let the other threads' turns interleave with this one
    return {"turns": 1}


def build(saver: Any) -> Any:
    graph = StateGraph(Counter)
    graph.add_node("step", step)
    graph.add_edge(START, "step")
    graph.add_edge("step", END)
    return graph.compile(checkpointer=saver)


def config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


async def test_concurrent_threads_keep_every_turn_across_a_reopen(tmp_path: Path) -> None:
    # Must survive: 4 threads × 10 turns run concurrently lose no turn and no message, and
    # a new process (a reopened file) sees the same state; a deleted thread is gone and
    # the others are untouched.
    path = tmp_path / "checkpoints.db"
    settings = Settings(data_dir=tmp_path)
    checkpointer = await open_checkpointer(settings, path)
    assert isinstance(checkpointer.saver, ThreadedSqliteSaver)
    graph = build(checkpointer.saver)

    async def conversation(thread: str) -> None:
        for n in range(10):
            await graph.ainvoke({"said": [f"{thread}-{n}"]}, config(thread), durability="exit")

    threads = [f"demo:s{n}" for n in range(4)]
    await asyncio.gather(*(conversation(t) for t in threads))
    await checkpointer.aclose()

    reopened = await open_checkpointer(settings, path)
    try:
        graph = build(reopened.saver)
        for thread in threads:
            state = (await graph.aget_state(config(thread))).values
            assert state["turns"] == 10
            assert state["said"] == [f"{thread}-{n}" for n in range(10)]
        assert sorted(await reopened.thread_ids()) == threads
        history = [c async for c in reopened.saver.alist(config(threads[0]))]
        assert len(history) == 10  # one checkpoint per turn (durability "exit")

        await reopened.delete_threads([threads[0]])
        assert not (await graph.aget_state(config(threads[0]))).values
        assert sorted(await reopened.thread_ids()) == threads[1:]
        assert (await graph.aget_state(config(threads[1]))).values["turns"] == 10
    finally:
        await reopened.aclose()


async def test_a_turn_that_fails_leaves_the_last_checkpoint_as_it_was(tmp_path: Path) -> None:
    # Must survive: the earlier turn; the failed step's update is not saved.
    checkpointer = await open_checkpointer(Settings(data_dir=tmp_path), tmp_path / "c.db")
    try:
        graph = build(checkpointer.saver)
        await graph.ainvoke({"said": ["ok"]}, config("t"), durability="exit")

        async def broken(state: Counter) -> dict[str, Any]:
            raise sqlite3.OperationalError("disk I/O error")

        failing = StateGraph(Counter)
        failing.add_node("step", broken)
        failing.add_edge(START, "step")
        failing.add_edge("step", END)
        with pytest.raises(sqlite3.OperationalError):
            await failing.compile(checkpointer=checkpointer.saver).ainvoke(
                {"said": ["lost"]}, config("t"), durability="exit"
            )
        state = (await graph.aget_state(config("t"))).values
        assert state["turns"] == 1
        assert state["said"] == ["ok", "lost"]  # LangGraph keeps the input of a failed run
    finally:
        await checkpointer.aclose()

"""`ThreadedSqliteSaver` against LangGraph's checkpointer contract, on a real SQLite file.

The async methods are discovered on `BaseCheckpointSaver` by introspection, not listed by
hand: when a LangGraph release adds one, `test_every_async_method_is_exercised` fails
until this file calls it, and `test_every_async_method_is_implemented` fails until the
saver implements it. The async implementations inherited from `BaseCheckpointSaver` raise
`NotImplementedError` or walk the saver's other async methods; `SqliteSaver`'s own async
methods refuse to run ("use AsyncSqliteSaver"). So every async method must be the
threaded saver's own (each a hop to the synchronous `SqliteSaver`), unless it is a thin
base wrapper over methods that are (DELEGATES).

Each exercise writes through the async method and reads back through the synchronous
saver (or the other way round), so a wrong argument order or a dropped option shows.
"""

from __future__ import annotations

import inspect
import operator
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from frontdesk.conversation.checkpoints import (
    Checkpointer,
    ThreadedSqliteSaver,
    open_checkpointer,
)
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration


def async_methods() -> list[str]:
    return sorted(
        name
        for name, member in inspect.getmembers(BaseCheckpointSaver)
        if not name.startswith("_")
        and (inspect.iscoroutinefunction(member) or inspect.isasyncgenfunction(member))
    )


ASYNC_METHODS = async_methods()
# Base implementations that only compose other async methods of the saver.
DELEGATES = {"aget": {"aget_tuple"}}


class State(TypedDict):
    steps: Annotated[list[str], operator.add]


def first(state: State) -> dict[str, Any]:
    return {"steps": ["first"]}


def second(state: State) -> dict[str, Any]:
    return {"steps": ["second"]}


def thread(thread_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


@pytest.fixture
async def checkpointer(settings: Settings, tmp_path: Path) -> AsyncIterator[Checkpointer]:
    opened = await open_checkpointer(settings, sqlite_path=tmp_path / "checkpoints.db")
    assert isinstance(opened.saver, ThreadedSqliteSaver)
    yield opened
    await opened.aclose()


class World:
    """A saver holding two turns of a real graph on thread `t1`, each its own run."""

    def __init__(self, saver: ThreadedSqliteSaver, runs: list[str]) -> None:
        self.saver = saver
        self.runs = runs

    def ids(self, thread_id: str) -> list[str]:
        found = self.saver.list(thread(thread_id))
        return [t.config["configurable"]["checkpoint_id"] for t in found]


@pytest.fixture
async def world(checkpointer: Checkpointer) -> World:
    saver = checkpointer.saver
    assert isinstance(saver, ThreadedSqliteSaver)
    builder = StateGraph(State)
    builder.add_node("first", first)
    builder.add_node("second", second)
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    builder.add_edge("second", END)
    graph = builder.compile(checkpointer=saver)
    runs = [str(uuid.uuid4()), str(uuid.uuid4())]
    for run in runs:
        # The LangGraph server records a run's id in the checkpoints' metadata this way.
        config = {**thread("t1"), "run_id": uuid.UUID(run), "metadata": {"run_id": run}}
        await graph.ainvoke({"steps": []}, config)  # type: ignore[arg-type]
    return World(saver, runs)


# -- one exercise per async method -------------------------------------------------------
async def check_aget_tuple(w: World) -> None:
    found = await w.saver.aget_tuple(thread("t1"))
    assert found is not None and found == w.saver.get_tuple(thread("t1"))
    assert found.checkpoint["channel_values"]["steps"] == ["first", "second"] * 2
    assert await w.saver.aget_tuple(thread("nobody")) is None


async def check_aget(w: World) -> None:
    found = await w.saver.aget(thread("t1"))
    assert found is not None and found == w.saver.get(thread("t1"))


async def check_alist(w: World) -> None:
    every = [t async for t in w.saver.alist(thread("t1"))]
    assert [t.config for t in every] == [t.config for t in w.saver.list(thread("t1"))]
    assert len(every) >= 6
    newest = every[0].config
    limited = [t async for t in w.saver.alist(thread("t1"), before=newest, limit=2)]
    assert [t.config for t in limited] == [t.config for t in every[1:3]]
    inputs = [t async for t in w.saver.alist(thread("t1"), filter={"source": "input"})]
    assert len(inputs) == 2 and all(t.metadata["source"] == "input" for t in inputs)
    assert [t async for t in w.saver.alist(None, limit=1)]  # every thread


async def check_aput(w: World) -> None:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"steps": ["put"]}
    saved = await w.saver.aput(
        thread("t2"), checkpoint, {"source": "update", "step": 0, "parents": {}}, {}
    )
    assert saved["configurable"]["checkpoint_id"] == checkpoint["id"]
    found = w.saver.get_tuple(thread("t2"))
    assert found is not None and found.checkpoint["channel_values"] == {"steps": ["put"]}
    assert found.metadata["source"] == "update"


async def check_aput_writes(w: World) -> None:
    config = w.saver.get_tuple(thread("t1"))
    assert config is not None
    await w.saver.aput_writes(config.config, [("steps", ["pending"])], "task-1", "path")
    found = w.saver.get_tuple(config.config)
    assert found is not None
    assert ("task-1", "steps", ["pending"]) in found.pending_writes


async def check_adelete_thread(w: World) -> None:
    w.saver.put(thread("t2"), empty_checkpoint(), {"source": "update", "step": 0}, {})
    await w.saver.adelete_thread("t2")
    assert w.saver.get_tuple(thread("t2")) is None
    assert w.saver.get_tuple(thread("t1")) is not None  # other threads stay


async def check_aget_delta_channel_history(w: World) -> None:
    config = thread("t1")
    history = await w.saver.aget_delta_channel_history(config=config, channels=["steps"])
    assert history == w.saver.get_delta_channel_history(config=config, channels=["steps"])
    assert await w.saver.aget_delta_channel_history(config=config, channels=[]) == {}


async def check_acopy_thread(w: World) -> None:
    await w.saver.acopy_thread("t1", "t3")
    assert len(w.ids("t3")) == len(w.ids("t1"))
    assert w.saver.get(thread("t3")) == w.saver.get(thread("t1"))


async def check_adelete_for_runs(w: World) -> None:
    before = len(w.ids("t1"))
    await w.saver.adelete_for_runs([w.runs[0]])
    left = list(w.saver.list(thread("t1")))
    assert 0 < len(left) < before
    assert all(t.metadata.get("run_id") != w.runs[0] for t in left)


async def check_aprune(w: World) -> None:
    latest = w.saver.get(thread("t1"))
    await w.saver.aprune(["t1"], strategy="keep_latest")
    assert len(w.ids("t1")) == 1 and w.saver.get(thread("t1")) == latest
    await w.saver.aprune(["t1"], strategy="delete")
    assert w.ids("t1") == []


EXERCISES: dict[str, Callable[[World], Awaitable[None]]] = {
    name.removeprefix("check_"): check
    for name, check in dict(globals()).items()
    if name.startswith("check_")
}


def test_every_async_method_is_exercised() -> None:
    assert ASYNC_METHODS, "no async methods found on BaseCheckpointSaver"
    missing = sorted(set(ASYNC_METHODS) - set(EXERCISES))
    assert not missing, f"async methods of BaseCheckpointSaver nobody calls here: {missing}"


@pytest.mark.parametrize("name", ASYNC_METHODS)
def test_every_async_method_is_implemented(name: str) -> None:
    owner = next(cls for cls in ThreadedSqliteSaver.__mro__ if name in cls.__dict__)
    if name in DELEGATES:
        assert owner is BaseCheckpointSaver
        for used in DELEGATES[name]:
            assert used in ThreadedSqliteSaver.__dict__, (name, used)
        return
    assert owner is ThreadedSqliteSaver, f"{name} comes from {owner.__name__}"
    assert owner is not SqliteSaver


@pytest.mark.parametrize("name", ASYNC_METHODS)
async def test_every_async_method_works_on_a_sqlite_file(world: World, name: str) -> None:
    exercise = EXERCISES.get(name)
    if exercise is None:
        pytest.fail(f"no exercise for {name}")
    await exercise(world)

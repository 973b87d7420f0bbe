"""What LangGraph itself costs per turn: the conversation graph's shape with no-op stages.

    .venv/bin/python benchmarks/graph_overhead.py [--turns 2000]

The graph has the same topology as `conversation/graph.py` (background starters ‖
`understand`, one conditional edge, one path stage), the same `ChatState` channels and
the same turn input (`TURN_RESET` plus the visitor's message), but every stage returns
a small fixed update at once. Whatever a turn costs here is the framework's floor: task
preparation, channel reads and writes, the callback managers LangGraph opens per run and
per task, the `values` stream, and (second line) loading and saving the checkpoint in
SQLite at exit, as `ChatService` runs it. Reported as CPU per turn on the event loop's
thread and in the whole process (the checkpoint's I/O and serializing run in a worker
thread), turns run one after another (each on a new thread id, as a first message).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph

from frontdesk.conversation.checkpoints import open_checkpointer
from frontdesk.conversation.result import TURN_RESET
from frontdesk.conversation.state import ChatState
from frontdesk.settings import Settings


async def start_background(state: ChatState) -> dict[str, Any]:
    return {}


async def understand(state: ChatState) -> dict[str, Any]:
    return {"language": "en", "intent": {"label": "OTHER"}, "route": "REDIRECT"}


async def redirect_path(state: ChatState) -> dict[str, Any]:
    reply = "Happy to help with questions about our product."
    return {"answer": reply, "routing": "irrelevant", "messages": [AIMessage(content=reply)]}


def build(checkpointer: Any = None) -> Any:
    graph = StateGraph(ChatState)
    for node in (start_background, understand, redirect_path):
        graph.add_node(node)
    graph.add_edge(START, "start_background")
    graph.add_edge("start_background", END)
    graph.add_edge(START, "understand")
    graph.add_conditional_edges("understand", lambda state: "redirect_path")
    graph.add_edge("redirect_path", END)
    return graph.compile(checkpointer=checkpointer)


async def measure(graph: Any, turns: int, durable: bool) -> tuple[float, float]:
    """CPU per turn in ms: the event loop's thread, and the whole process."""

    async def turn(n: int) -> None:
        values = {**TURN_RESET, "messages": [HumanMessage(content="Hello!")], "input": "Hello!"}
        config = {"configurable": {"thread_id": f"bench-{n}"}}
        options = {"durability": "exit"} if durable else {}
        async for _ in graph.astream(values, config, stream_mode="values", **options):
            pass

    for n in range(100):  # warm-up
        await turn(-1 - n)
    loop_started, process_started = time.thread_time(), time.process_time()
    for n in range(turns):
        await turn(n)
    loop = (time.thread_time() - loop_started) * 1000 / turns
    return loop, (time.process_time() - process_started) * 1000 / turns


async def run(turns: int, folder: Path) -> dict[str, float]:
    bare = await measure(build(), turns, durable=False)
    checkpointer = await open_checkpointer(Settings(data_dir=folder), folder / "checkpoints.db")
    try:
        saved = await measure(build(checkpointer.saver), turns, durable=True)
    finally:
        await checkpointer.aclose()
    return {
        "turns": turns,
        "graph_loop_cpu_ms": round(bare[0], 3),
        "graph_process_cpu_ms": round(bare[1], 3),
        "with_checkpoint_loop_cpu_ms": round(saved[0], 3),
        "with_checkpoint_process_cpu_ms": round(saved[1], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="frontdesk-graph-"))
    try:
        result = asyncio.run(run(args.turns, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        "LangGraph per turn, no-op stages: "
        f"{result['graph_loop_cpu_ms']:.3f} ms of CPU on the loop, "
        f"{result['graph_process_cpu_ms']:.3f} ms in the process"
    )
    print(
        "  + SQLite checkpoint (load, save at exit): "
        f"{result['with_checkpoint_loop_cpu_ms']:.3f} ms on the loop, "
        f"{result['with_checkpoint_process_cpu_ms']:.3f} ms in the process"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""What LangGraph itself costs per turn: the conversation graph with no-op nodes.

    .venv/bin/python benchmarks/graph_overhead.py [--turns 2000]

The graph is `conversation/graph.py`'s own (every node, edge and router, read from
`build_graph()`), with the same `ChatState` channels and the same turn input
(`TURN_RESET` plus the visitor's message), but every node returns a small fixed update
at once, so a turn takes the REDIRECT path (14 nodes in 10 supersteps). Whatever a turn
costs here is the framework's floor: task preparation, channel reads and writes, the
callback managers LangGraph opens per run and per task, the `values` stream, and
(second line) loading and saving the checkpoint in SQLite at exit, as `ChatService` runs
it. Reported as CPU per turn on the event loop's thread and in the whole process (the
checkpoint's I/O and serializing run in a worker thread), turns run one after another
(each on a new thread id, as a first message).
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
from langgraph.graph import StateGraph

from frontdesk.conversation.checkpoints import open_checkpointer
from frontdesk.conversation.graph import build_graph
from frontdesk.conversation.result import TURN_RESET
from frontdesk.conversation.state import ChatState
from frontdesk.settings import Settings

REPLY = "Happy to help with questions about our product."
# What the no-op nodes write: just enough for the real routers to take the REDIRECT path.
UPDATES: dict[str, dict[str, Any]] = {
    "detect_language": {"language": "en"},
    "intent_classifier": {"intent": {"label": "OTHER"}},
    "intent_router": {"route": "REDIRECT", "route_reason": "other"},
    "redirect_handler": {
        "answer": REPLY,
        "routing": "irrelevant",
        "suggested_follow_ups": ["What do you offer?"],
    },
    "finalize": {"messages": [AIMessage(content=REPLY)], "turn_number": 1},
}


def no_op(name: str) -> Any:
    update = UPDATES.get(name, {})

    async def node(state: ChatState) -> dict[str, Any]:
        return update

    return node


def build(checkpointer: Any = None) -> Any:
    real = build_graph()
    graph = StateGraph(ChatState)
    for name in real.nodes:
        graph.add_node(name, no_op(name))
    for source, target in real.edges:
        graph.add_edge(source, target)
    for sources, target in real.waiting_edges:
        graph.add_edge(list(sources), target)
    for source, branches in real.branches.items():
        for branch in branches.values():
            graph.add_conditional_edges(source, branch.path)
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
        "LangGraph per turn, no-op nodes (REDIRECT path): "
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

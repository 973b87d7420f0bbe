"""Per-node timings of a turn, read from LangGraph's own "debug" stream.

    PYTHONPATH=src:. .venv/bin/python benchmarks/ttft.py --nodes   # the ttft turns, per node

`TimedService` is `ChatService` with its graph wrapped: every run also asks for LangGraph's
"debug" stream mode (a timestamped event when a superstep starts a node's task, one when
the task has written its update, one per checkpoint) and passes the other modes through
untouched. The debug stream costs a little itself (it maps the state at every superstep):
compare the TTFT figures with and without `--nodes`. Nothing in the graph or its nodes
changes; the product's own per-node timings (`timed`) time a node's function only, this
also sees what LangGraph does between nodes and what runs before the graph starts.

The table, per node: how many times it ran, when it starts (median ms from the turn's
start), median and p95 of its wall time, its share of the turns' wall time (parallel
nodes overlap, so shares may add up past 100 %), and its median time before the first
token. Three rows are not nodes: `(before the graph)`,
from the call to the graph's first task (the conversation's owner, the graph's start);
`(between nodes)`, the time before the first token that no node covered (LangGraph's
own bookkeeping, the routers); `(first token → visitor)`, from the writer's first token
to the visitor (keeping the message, the queue).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from frontdesk.conversation.service import ChatService

BEFORE_GRAPH = "(before the graph)"
BETWEEN_NODES = "(between nodes)"
TO_VISITOR = "(first token → visitor)"
WRITERS = ("answer_writer",)


@dataclass
class TurnTimeline:
    """One turn: its nodes' (name, start, end) in ms from the turn's start."""

    nodes: list[tuple[str, float, float]] = field(default_factory=list)
    first_token_ms: float | None = None  # as the visitor received it
    writer_token_ms: float | None = None  # as the writer node emitted it
    total_ms: float = 0.0


class NodeTimings:
    """The timelines of the turns a benchmark runs."""

    def __init__(self) -> None:
        self.turns: list[TurnTimeline] = []
        self._current: TurnTimeline | None = None
        self._started = 0.0
        self._open: dict[str, tuple[str, float]] = {}
        self._wall_start = 0.0

    def begin(self, started: float) -> None:
        """A turn starts (`started`: its `time.perf_counter()`)."""
        self._current, self._started, self._open = TurnTimeline(), started, {}
        self._wall_start = time.time() - (time.perf_counter() - started)

    def now_ms(self) -> float:
        return (time.perf_counter() - self._started) * 1000

    def debug_event(self, event: dict[str, Any]) -> None:
        """A "debug" event: a task started or finished, stamped by LangGraph as it happened."""
        if self._current is None or event["type"] not in ("task", "task_result"):
            return
        payload = event["payload"]
        stamp = (datetime.fromisoformat(event["timestamp"]).timestamp() - self._wall_start) * 1000
        if event["type"] == "task":
            self._open[payload["id"]] = (payload["name"], stamp)
            return
        name, start = self._open.pop(payload["id"], (payload["name"], stamp))
        self._current.nodes.append((name, start, stamp))

    def token_event(self) -> None:
        if self._current is not None and self._current.writer_token_ms is None:
            self._current.writer_token_ms = self.now_ms()

    def first_token(self) -> None:
        if self._current is not None and self._current.first_token_ms is None:
            self._current.first_token_ms = self.now_ms()

    def end(self, *, counted: bool) -> None:
        """The turn is over; `counted`: it belongs in the table."""
        if self._current is not None and counted:
            self._current.total_ms = self.now_ms()
            self.turns.append(self._current)
        self._current = None


class TimedGraph:
    """The compiled graph, its runs observed through the "debug" stream mode."""

    def __init__(self, graph: Any, timings: NodeTimings) -> None:
        self._graph = graph
        self._timings = timings

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)

    async def astream(
        self, graph_input: Any, config: Any = None, *, stream_mode: Sequence[str], **kwargs: Any
    ) -> AsyncIterator[tuple[str, Any]]:
        modes = [*stream_mode, "debug"]
        async for mode, chunk in self._graph.astream(
            graph_input, config, stream_mode=modes, **kwargs
        ):
            if mode == "debug":
                self._timings.debug_event(chunk)
                continue
            if mode == "custom":
                self._timings.token_event()
            yield mode, chunk


class TimedService(ChatService):
    """`ChatService` whose turns run through a `TimedGraph`."""

    def __init__(self, *args: Any, timings: NodeTimings, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timings = timings

    async def graph(self) -> Any:
        return TimedGraph(await super().graph(), self.timings)


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _covered(intervals: list[tuple[float, float]], until: float) -> float:
    """How much of [0, until] the intervals cover (their union)."""
    covered, reach = 0.0, 0.0
    for start, end in sorted(intervals):
        start, end = max(start, reach), min(end, until)
        if end > start:
            covered += end - start
            reach = end
    return covered


def table(timings: NodeTimings) -> list[dict[str, Any]]:
    """One row per node in the order they ran (by median start), then the rows that are
    not nodes. ms are wall time; `before_first_token_ms` is the median of the part of a
    node's time that lies before the turn's first token."""
    turns = [turn for turn in timings.turns if turn.first_token_ms is not None]
    total = sum(turn.total_ms for turn in turns) or 1.0
    durations: dict[str, list[float]] = {}
    starts: dict[str, list[float]] = {}
    before: dict[str, list[float]] = {}
    for turn in turns:
        first = turn.writer_token_ms or turn.first_token_ms or 0.0
        for name, start, end in turn.nodes:
            durations.setdefault(name, []).append(end - start)
            starts.setdefault(name, []).append(start)
            before.setdefault(name, []).append(max(0.0, min(end, first) - start))
    rows = [
        {
            "node": name,
            "calls": len(values),
            "starts_ms": statistics.median(starts[name]),
            "median_ms": statistics.median(values),
            "p95_ms": _p95(values),
            "share": sum(values) / total,
            "before_first_token_ms": statistics.median(before[name]),
        }
        for name, values in sorted(durations.items(), key=lambda i: statistics.median(starts[i[0]]))
    ]
    pre_graph = [min((s for _, s, _ in t.nodes), default=t.total_ms) for t in turns]
    gaps = []
    to_visitor = []
    for turn, start in zip(turns, pre_graph, strict=True):
        first = turn.writer_token_ms or turn.first_token_ms or 0.0
        intervals = [(s, e) for _, s, e in turn.nodes]
        gaps.append(max(0.0, first - start - _covered(intervals, first)))
        to_visitor.append((turn.first_token_ms or 0.0) - first)
    for name, values in (
        (BEFORE_GRAPH, pre_graph),
        (BETWEEN_NODES, gaps),
        (TO_VISITOR, to_visitor),
    ):
        if values:
            rows.append(
                {
                    "node": name,
                    "calls": len(values),
                    "starts_ms": None,
                    "median_ms": statistics.median(values),
                    "p95_ms": _p95(values),
                    "share": sum(values) / total,
                    "before_first_token_ms": statistics.median(values),
                }
            )
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| node | calls | starts at | median | p95 | share of turn | before 1st token |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| `{row['node']}` | {row['calls']} | "
            + ("–" if row["starts_ms"] is None else f"{row['starts_ms']:.1f}")
            + f" | {row['median_ms']:.1f} | {row['p95_ms']:.1f} "
            f"| {row['share'] * 100:.1f} % | {row['before_first_token_ms']:.1f} |"
        )
    return "\n".join(lines)

"""Prometheus metrics of one app: requests, turn latency, routes, blocks and handoffs.

Each app gets its own registry, so several apps in one process (tests) never collide.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from frontdesk.conversation.payload import TurnResult

LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)


class ApiMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = self._counter(
            "frontdesk_http_requests",
            "HTTP requests by method, route template and status code.",
            ["method", "route", "status"],
        )
        self.turn_latency = self._latency(
            "frontdesk_turn_latency_seconds",
            "Wall time of a whole turn, from request to the complete event.",
            ["site", "mode"],
        )
        self.first_token = self._latency(
            "frontdesk_turn_first_token_seconds",
            "Time from request to the first streamed token.",
            ["site"],
        )
        self.routes = self._counter(
            "frontdesk_turn_routes",
            "Finished turns by graph route and routing value.",
            ["site", "route", "routing"],
        )
        self.blocks = self._counter(
            "frontdesk_blocks",
            "Turns refused or blocked: rate_limited, session_busy, abuse.",
            ["site", "reason"],
        )
        self.handoffs = self._counter(
            "frontdesk_handoffs",
            "Turns that proposed or made a human handoff, by reason.",
            ["site", "reason"],
        )
        self.turn_errors = self._counter(
            "frontdesk_turn_errors",
            "Turns that ended with an error or were cancelled by a disconnect.",
            ["site", "code"],
        )

    def _counter(self, name: str, documentation: str, labels: list[str]) -> Counter:
        return Counter(name, documentation, labels, registry=self.registry)

    def _latency(self, name: str, documentation: str, labels: list[str]) -> Histogram:
        return Histogram(
            name, documentation, labels, buckets=LATENCY_BUCKETS, registry=self.registry
        )

    def record_turn(self, site_id: str, mode: str, result: TurnResult, seconds: float) -> None:
        self.turn_latency.labels(site_id, mode).observe(seconds)
        self.routes.labels(site_id, result.route, result.routing).inc()
        if result.route == "BLOCKED":
            self.blocks.labels(site_id, "abuse").inc()
        if result.handoff is not None:
            self.handoffs.labels(site_id, result.handoff.reason).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)

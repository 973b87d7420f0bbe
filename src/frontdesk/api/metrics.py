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
        self.requests = Counter(
            "frontdesk_http_requests",
            "HTTP requests by method, route template and status code.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.turn_latency = Histogram(
            "frontdesk_turn_latency_seconds",
            "Wall time of a whole turn, from request to the complete event.",
            ["site", "mode"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.first_token = Histogram(
            "frontdesk_turn_first_token_seconds",
            "Time from request to the first streamed token.",
            ["site"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.routes = Counter(
            "frontdesk_turn_routes",
            "Finished turns by graph route and routing value.",
            ["site", "route", "routing"],
            registry=self.registry,
        )
        self.blocks = Counter(
            "frontdesk_blocks",
            "Turns refused or blocked: rate_limited, session_busy, abuse.",
            ["site", "reason"],
            registry=self.registry,
        )
        self.handoffs = Counter(
            "frontdesk_handoffs",
            "Turns that proposed or made a human handoff, by reason.",
            ["site", "reason"],
            registry=self.registry,
        )
        self.turn_errors = Counter(
            "frontdesk_turn_errors",
            "Turns that ended with an error or were cancelled by a disconnect.",
            ["site", "code"],
            registry=self.registry,
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

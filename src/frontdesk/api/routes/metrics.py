"""`GET /metrics`: Prometheus exposition of this process's counters and histograms."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST

from frontdesk.api.deps import MetricsDep

router = APIRouter(tags=["health"])


@router.get(
    "/metrics",
    summary="Prometheus metrics: requests, turn latency, routes, blocks, handoffs",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}}},
)
def metrics(registry: MetricsDep) -> Response:
    return Response(registry.render(), media_type=CONTENT_TYPE_LATEST)

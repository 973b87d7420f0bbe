"""`GET /metrics`: Prometheus exposition of this process's counters and histograms.

With `FRONTDESK_METRICS_TOKEN` set, the scraper must send `Authorization: Bearer <token>`;
unset (the default), the route is open and belongs on a private network.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import CONTENT_TYPE_LATEST

from frontdesk.api.deps import MetricsDep, RuntimeDep
from frontdesk.api.errors import ApiError
from frontdesk.api.schemas import ErrorResponse

router = APIRouter(tags=["health"])

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="MetricsToken",
    description="FRONTDESK_METRICS_TOKEN, when it is set.",
)


def require_metrics_token(
    runtime: RuntimeDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    expected = runtime.settings.metrics_token
    if not expected:
        return
    given = credentials.credentials if credentials else ""
    if not hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8")):
        raise ApiError(
            401,
            "invalid_metrics_token",
            "Send FRONTDESK_METRICS_TOKEN as 'Authorization: Bearer <token>'.",
            headers={"WWW-Authenticate": "Bearer"},
        )


@router.get(
    "/metrics",
    summary="Prometheus metrics: requests, turn latency, routes, blocks, handoffs",
    response_class=Response,
    dependencies=[Depends(require_metrics_token)],
    responses={
        200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}},
        401: {
            "model": ErrorResponse,
            "description": "FRONTDESK_METRICS_TOKEN is set and "
            "the bearer token is missing or wrong.",
        },
    },
)
def metrics(registry: MetricsDep) -> Response:
    return Response(registry.render(), media_type=CONTENT_TYPE_LATEST)

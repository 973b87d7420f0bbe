"""`GET /metrics`: Prometheus exposition of this process's counters and histograms.

It names every site and its traffic, so it is closed by default: with
`FRONTDESK_METRICS_TOKEN` set the scraper sends `Authorization: Bearer <token>`; with no
token it answers 403 unless `FRONTDESK_METRICS_OPEN=true` says this process is reached
only from a private network.
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
from frontdesk.api.schemas import error_responses

router = APIRouter(tags=["health"])

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="MetricsToken",
    description="FRONTDESK_METRICS_TOKEN.",
)

METRICS_DISABLED = (
    "GET /metrics is off: set FRONTDESK_METRICS_TOKEN and send it as 'Authorization: "
    "Bearer <token>', or set FRONTDESK_METRICS_OPEN=true to serve it without a token "
    "on a listener only your private network reaches."
)


def require_metrics_token(
    runtime: RuntimeDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    settings = runtime.settings
    expected = settings.metrics_token
    if not expected:
        if settings.metrics_open:
            return
        raise ApiError(403, "metrics_disabled", METRICS_DISABLED)
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
        **error_responses(
            {
                401: "FRONTDESK_METRICS_TOKEN is set and the bearer token is missing or wrong.",
                403: "No FRONTDESK_METRICS_TOKEN and FRONTDESK_METRICS_OPEN is not "
                "true: /metrics is off.",
            }
        ),
    },
)
def metrics(registry: MetricsDep) -> Response:
    return Response(registry.render(), media_type=CONTENT_TYPE_LATEST)

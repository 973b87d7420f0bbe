"""FastAPI dependencies as `Annotated` aliases, so route signatures read like sentences."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from frontdesk.api.errors import ApiError
from frontdesk.api.metrics import ApiMetrics
from frontdesk.api.security import KEY_HEADER, authorize_admin, authorize_site, client_ip, hash_ip
from frontdesk.api.turns import TurnGuard
from frontdesk.conversation.backend import ChatBackend
from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def get_db(runtime: RuntimeDep) -> Iterator[Session]:
    with runtime.sessions() as session:
        yield session


DbDep = Annotated[Session, Depends(get_db)]


def get_chat(request: Request) -> ChatBackend:
    chat: ChatBackend | None = getattr(request.app.state, "chat", None)
    if chat is None:
        raise ApiError(503, "chat_unavailable", "The conversation service is not available.")
    return chat


ChatDep = Annotated[ChatBackend, Depends(get_chat)]


def get_guard(request: Request) -> TurnGuard:
    guard: TurnGuard = request.app.state.guard
    return guard


GuardDep = Annotated[TurnGuard, Depends(get_guard)]


def get_metrics(request: Request) -> ApiMetrics:
    metrics: ApiMetrics = request.app.state.metrics
    return metrics


MetricsDep = Annotated[ApiMetrics, Depends(get_metrics)]

SiteKeyHeader = Annotated[
    str | None,
    Header(
        alias=KEY_HEADER,
        description="The site's public widget key (it resolves the site).",
        max_length=200,
    ),
]


def get_widget_site(request: Request, runtime: RuntimeDep, key: SiteKeyHeader = None) -> LoadedSite:
    return authorize_site(request, runtime, key)


WidgetSiteDep = Annotated[LoadedSite, Depends(get_widget_site)]
"""The site of a widget request: key in `X-Frontdesk-Key`, origin in its allowed origins."""


def get_ip_hash(request: Request) -> str:
    salt: bytes = request.app.state.ip_salt
    return hash_ip(client_ip(request), salt)


IpHashDep = Annotated[str, Depends(get_ip_hash)]

_bearer = HTTPBearer(auto_error=False, description="The admin API key.")


def require_admin(
    runtime: RuntimeDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    authorize_admin(runtime, credentials.credentials if credentials else None)


AdminDep = Depends(require_admin)


def get_admin_site(
    runtime: RuntimeDep,
    site: Annotated[str, Path(description="Site id.", max_length=63)],
) -> LoadedSite:
    found = runtime.sites.get(site)
    if found is None:
        raise ApiError(404, "unknown_site", f"No site with id {site!r}.")
    return found


AdminSiteDep = Annotated[LoadedSite, Depends(get_admin_site)]

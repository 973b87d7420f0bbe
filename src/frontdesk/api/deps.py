"""FastAPI dependencies as `Annotated` aliases, so route signatures read like sentences."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from frontdesk.api.errors import ApiError
from frontdesk.api.metrics import ApiMetrics
from frontdesk.api.security import (
    KEY_HEADER,
    SECRET_HEADER,
    admin_failure,
    authorize_admin,
    authorize_site,
    client_ip,
    hash_ip,
)
from frontdesk.api.turns import TurnGuard
from frontdesk.conversation.backend import ChatBackend
from frontdesk.guard.admin_lockout import AdminLockout
from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite
from frontdesk.store.admin_tokens import AdminTokenRepository


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


SessionSecretHeader = Annotated[
    str | None,
    Header(
        alias=SECRET_HEADER,
        description="The secret issued with the session (its first response).",
        max_length=200,
    ),
]


def get_ip_hash(request: Request) -> str:
    salt: bytes = request.app.state.ip_salt
    return hash_ip(client_ip(request), salt)


IpHashDep = Annotated[str, Depends(get_ip_hash)]

_bearer = HTTPBearer(
    auto_error=False, description="The admin API key, or an admin token of the site."
)


def get_admin_lockout(request: Request, runtime: RuntimeDep) -> AdminLockout:
    """One per app, counting failures with the app's rate limiter (Redis when set)."""
    lockout: AdminLockout | None = getattr(request.app.state, "admin_lockout", None)
    if lockout is None:
        guard: TurnGuard = request.app.state.guard
        settings = runtime.settings
        lockout = AdminLockout(
            guard.limiter, settings.admin_auth_max_failures, settings.admin_lockout_s
        )
        request.app.state.admin_lockout = lockout
    return lockout


def _token_lookup(
    runtime: Runtime, bearer: str | None, site_id: str | None
) -> tuple[str | None, bool]:
    """(the site of the live admin token `bearer` is, whether `site_id` has live tokens)."""
    with runtime.sessions() as session:
        tokens = AdminTokenRepository(session)
        token_site = tokens.site_of(bearer) if bearer else None
        if token_site is not None and token_site == site_id:
            return token_site, True
        return token_site, site_id is not None and tokens.has_live(site_id)


async def require_admin(
    request: Request,
    runtime: RuntimeDep,
    ip_hash: IpHashDep,
    lockout: Annotated[AdminLockout, Depends(get_admin_lockout)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """The process-wide admin key, or an admin token of the route's site; a locked-out
    IP gets 429 before anything is checked, and each failure counts towards a lockout."""
    wait = lockout.retry_after_s(ip_hash)
    if wait:
        raise admin_failure(wait)
    bearer = credentials.credentials if credentials else None
    site_id = request.path_params.get("site")
    if bearer and authorize_admin(runtime, bearer, site_id, site_has_tokens=True):
        return  # the process-wide key: no store lookup
    token_site, has_tokens = await run_in_threadpool(_token_lookup, runtime, bearer, site_id)
    if authorize_admin(runtime, bearer, site_id, token_site, has_tokens):
        return
    raise admin_failure(await lockout.failed(ip_hash))


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

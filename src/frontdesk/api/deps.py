"""FastAPI dependencies as `Annotated` aliases, so route signatures read like sentences."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated
from uuid import UUID

from fastapi import Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import (
    SESSION_COOKIE,
    ConsoleSite,
    ConsoleUser,
    CsrfRejected,
    SignInRequired,
    csrf_matches,
    sent_csrf,
    session_user,
    site_for,
)
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
from frontdesk.api.visitor_sessions import SessionGrant, authorize_session
from frontdesk.conversation.backend import ChatBackend
from frontdesk.guard.admin_lockout import AdminLockout
from frontdesk.guard.limits import read_checks
from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite
from frontdesk.store.admin_tokens import AdminTokenRepository
from frontdesk.takeover.desk import TakeoverDesk


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


def get_chat_if_open(request: Request) -> ChatBackend | None:
    chat: ChatBackend | None = request.app.state.chat
    return chat


OpenChatDep = Annotated[ChatBackend | None, Depends(get_chat_if_open)]
"""The conversation service, None when it could not start (callers do without it)."""


def get_guard(request: Request) -> TurnGuard:
    guard: TurnGuard = request.app.state.guard
    return guard


GuardDep = Annotated[TurnGuard, Depends(get_guard)]


def get_metrics(request: Request) -> ApiMetrics:
    metrics: ApiMetrics = request.app.state.metrics
    return metrics


MetricsDep = Annotated[ApiMetrics, Depends(get_metrics)]


def get_sse_ping_s(request: Request) -> float:
    ping_s: float = request.app.state.sse_ping_s
    return ping_s


SsePingDep = Annotated[float, Depends(get_sse_ping_s)]
"""Seconds between keep-alive comments of a Server-Sent Events stream."""


def get_takeover_desk_if_open(request: Request) -> TakeoverDesk | None:
    desk: TakeoverDesk | None = request.app.state.takeover
    return desk


OpenTakeoverDeskDep = Annotated[TakeoverDesk | None, Depends(get_takeover_desk_if_open)]
"""The takeover desk, None before the app has started it (reads then skip the live log)."""


def get_takeover_desk(desk: OpenTakeoverDeskDep) -> TakeoverDesk:
    if desk is None:
        raise ApiError(503, "live_unavailable", "Live chat is not available yet.")
    return desk


TakeoverDeskDep = Annotated[TakeoverDesk, Depends(get_takeover_desk)]
"""The takeover desk (503 until the app has started it)."""

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

SessionId = Annotated[UUID, Path(description="The session id (a UUID issued by the server).")]


async def authorize_visitor_session(
    session_id: SessionId,
    site: WidgetSiteDep,
    runtime: RuntimeDep,
    guard: GuardDep,
    ip: IpHashDep,
    secret: SessionSecretHeader = None,
) -> SessionGrant:
    """A visitor's request about their own session: the site's read rate limit first (a
    guessed id costs a request), then the session's secret."""
    site_id = site.config.id
    await guard.check_limits(site_id, read_checks(site_id, ip, site.config.rate_limits))
    return await run_in_threadpool(authorize_session, runtime, site.config, str(session_id), secret)


VisitorSessionDep = Annotated[SessionGrant, Depends(authorize_visitor_session)]
"""The session named in the path, rate-limited and unlocked by its secret (403 otherwise)."""

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
            guard.limiter,
            settings.admin_auth_max_failures,
            settings.admin_lockout_s,
            account_slowdown_s=settings.admin_account_slowdown_s,
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


AdminLockoutDep = Annotated[AdminLockout, Depends(get_admin_lockout)]
"""Failed admin and console sign-ins per client IP (console: also per IP and account,
and a slow-down per account)."""


async def require_admin(
    request: Request,
    runtime: RuntimeDep,
    ip_hash: IpHashDep,
    lockout: AdminLockoutDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """The process-wide admin key, or an admin token of the route's site; a locked-out
    IP gets 429 before anything is checked, and each failure counts towards a lockout."""
    wait = lockout.retry_after_s(ip_hash)
    if wait:
        raise admin_failure(wait)
    bearer = credentials.credentials if credentials else None
    site_id = request.path_params.get("site")
    if bearer is None and request.cookies.get(SESSION_COOKIE):
        await _console_admin(request, runtime, site_id)
        return
    if bearer and authorize_admin(runtime, bearer, site_id, site_has_tokens=True):
        return  # the process-wide key: no store lookup
    token_site, has_tokens = await run_in_threadpool(_token_lookup, runtime, bearer, site_id)
    if authorize_admin(runtime, bearer, site_id, token_site, has_tokens):
        return
    raise admin_failure(await lockout.failed(ip_hash))


async def _console_admin(request: Request, runtime: Runtime, site_id: str | None) -> None:
    """An operator's browser session on the admin API: any role reads its sites; changes
    (uploading knowledge) need the owner role, as in the console, and the session's CSRF
    token; other sites answer 404."""
    user = await run_in_threadpool(session_user, runtime, request.cookies.get(SESSION_COOKIE))
    if user is None:
        raise ApiError(401, "session_expired", "The console session has expired; sign in again.")
    role = user.role_on(site_id) if site_id else None
    if role is None:
        raise ApiError(404, "unknown_site", f"No site with id {site_id!r}.")
    if request.method not in ("GET", "HEAD"):
        if role != "owner":
            raise ApiError(403, "role_too_low", "Only the site's owners can change this.")
        if not csrf_matches(user.csrf_token, request.headers.get("X-CSRF-Token")):
            raise ApiError(403, "csrf_rejected", "Send the console's CSRF token in X-CSRF-Token.")


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


# -- console -------------------------------------------------------------------------------
async def get_console_user(request: Request, runtime: RuntimeDep) -> ConsoleUser:
    user = await run_in_threadpool(session_user, runtime, request.cookies.get(SESSION_COOKIE))
    if user is None:
        raise SignInRequired()
    return user


ConsoleUserDep = Annotated[ConsoleUser, Depends(get_console_user)]
"""The signed-in operator (else a redirect to the sign-in form)."""


def get_console_site(
    runtime: RuntimeDep,
    user: ConsoleUserDep,
    site: Annotated[str, Path(description="Site id.", max_length=63)],
) -> ConsoleSite:
    return site_for(runtime, user, site)


ConsoleSiteDep = Annotated[ConsoleSite, Depends(get_console_site)]
"""A site the operator has a role on (404 for any other, known or not)."""


async def require_csrf(request: Request, user: ConsoleUserDep) -> None:
    if not csrf_matches(user.csrf_token, await sent_csrf(request)):
        raise CsrfRejected()


CsrfDep = Depends(require_csrf)
"""Every console POST: the session's CSRF token in X-CSRF-Token (htmx) or the form."""

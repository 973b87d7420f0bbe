"""Who is using the console: the operator of a session cookie, their role on a site, and
the CSRF token every form and htmx request must carry.

An operator without a role on a site gets the same 404 as for a site that does not exist:
the console never tells anyone which other sites a deployment serves.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from datetime import timedelta

from fastapi import Request
from starlette.responses import Response

from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite
from frontdesk.store.operators import OperatorRepository

SESSION_COOKIE = "fd_console"
LOGIN_CSRF_COOKIE = "fd_login_csrf"  # double-submit token of the forms used before sign-in
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SESSION_LIFETIME = timedelta(hours=12)
INVITE_LIFETIME = timedelta(days=7)
ROLE_RANK = {"viewer": 0, "agent": 1, "owner": 2}


class SignInRequired(Exception):
    """No live session: pages redirect to the sign-in form."""


class ConsoleNotFound(Exception):
    """Unknown, or not this operator's: the same answer for both."""


class ConsoleForbidden(Exception):
    """The operator's role on this site does not allow the action."""

    def __init__(self, needed: str) -> None:
        super().__init__(needed)
        self.needed = needed


class CsrfRejected(Exception):
    """A state-changing request without the session's CSRF token."""


@dataclass(frozen=True)
class ConsoleUser:
    operator_id: str
    email: str
    csrf_token: str
    roles: dict[str, str] = field(default_factory=dict)
    # The console language the operator chose; None: the browser's Accept-Language.
    language: str | None = None

    def role_on(self, site_id: str) -> str | None:
        return self.roles.get(site_id)


@dataclass(frozen=True)
class ConsoleSite:
    """A site the operator may see, with their role there."""

    user: ConsoleUser
    site: LoadedSite
    role: str

    @property
    def id(self) -> str:
        return self.site.config.id

    def can(self, needed: str) -> bool:
        return ROLE_RANK[self.role] >= ROLE_RANK[needed]

    def require(self, needed: str) -> None:
        if not self.can(needed):
            raise ConsoleForbidden(needed)


def session_user(runtime: Runtime, token: str | None) -> ConsoleUser | None:
    """The operator signed in with the cookie `token`, or None (blocking: one lookup)."""
    if not token:
        return None
    with runtime.sessions() as session:
        operators = OperatorRepository(session)
        live = operators.live_session(token)
        if live is None:
            return None
        operator = operators.get(live.operator_id)
        if operator is None:
            return None
        return ConsoleUser(
            operator_id=operator.id,
            email=operator.email,
            csrf_token=live.csrf_token,
            roles=operators.roles(operator.id),
            language=operator.language,
        )


def site_for(runtime: Runtime, user: ConsoleUser, site_id: str) -> ConsoleSite:
    role = user.role_on(site_id)
    site = runtime.sites.get(site_id)
    if role is None or site is None:
        raise ConsoleNotFound(site_id)
    return ConsoleSite(user=user, site=site, role=role)


def csrf_matches(expected: str, sent: str | None) -> bool:
    return bool(sent) and hmac.compare_digest(expected.encode(), (sent or "").encode())


async def sent_csrf(request: Request) -> str | None:
    """The CSRF token of a request: htmx's header, else the form field."""
    header = request.headers.get(CSRF_HEADER)
    if header:
        return header
    content_type = request.headers.get("content-type", "")
    if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()  # cached by Starlette: the route reads it again for free
        value = form.get(CSRF_FIELD)
        return value if isinstance(value, str) else None
    return None


def secure_cookies(request: Request) -> bool:
    """Cookies are `Secure` when the browser reached us over https (proxy headers from
    trusted proxies only: `frontdesk.api.proxies`)."""
    return request.url.scheme == "https"


def set_session_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(SESSION_LIFETIME.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request),
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/")

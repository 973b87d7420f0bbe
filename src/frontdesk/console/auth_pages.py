"""Signing in and out, and accepting an invitation (the first owner's link is one too)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import (
    AdminLockoutDep,
    ConsoleUserDep,
    CsrfDep,
    IpHashDep,
    RuntimeDep,
)
from frontdesk.console.access import (
    LOGIN_CSRF_COOKIE,
    SESSION_COOKIE,
    SESSION_LIFETIME,
    clear_session_cookie,
    csrf_matches,
    secure_cookies,
    session_user,
    set_session_cookie,
)
from frontdesk.console.oidc import OidcConfig
from frontdesk.console.passwords import hash_password, password_problem, verify_password
from frontdesk.console.templating import render
from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
from frontdesk.store.models import utcnow
from frontdesk.store.operators import OperatorRepository

router = APIRouter(prefix="/console", include_in_schema=False)

EmailField = Annotated[str, Form(max_length=320)]
PasswordField = Annotated[str, Form(max_length=1000)]
TokenField = Annotated[str, Form(max_length=200)]


def safe_next(target: str | None) -> str:
    """Only console paths: a sign-in link cannot send anyone to another site."""
    if target and target.startswith("/console") and not target.startswith("//"):
        return target
    return "/console"


def login_form(
    request: Request, *, error: str = "", next_url: str = "/console", status: int = 200
) -> Response:
    token = request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(24)
    runtime: Runtime | None = getattr(request.app.state, "runtime", None)
    oidc = OidcConfig.from_settings(runtime.settings) if runtime is not None else None
    response = render(
        request,
        "login.html",
        {
            "error": error,
            "next_url": next_url,
            "login_csrf": token,
            "oidc_label": oidc.button_label if oidc else "",
        },
        status_code=status,
    )
    response.set_cookie(
        LOGIN_CSRF_COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=secure_cookies(request),
        path="/console",
    )
    return response


def _login_csrf_ok(request: Request, sent: str) -> bool:
    return csrf_matches(request.cookies.get(LOGIN_CSRF_COOKIE) or "", sent)


@router.get("")
async def home(request: Request, runtime: RuntimeDep) -> Response:
    user = await run_in_threadpool(session_user, runtime, request.cookies.get(SESSION_COOKIE))
    if user is None:
        return RedirectResponse("/console/login", status_code=303)
    visible = [site_id for site_id in sorted(user.roles) if site_id in runtime.sites]
    if not visible:
        return render(request, "no_sites.html", {}, user=user)
    return RedirectResponse(f"/console/sites/{visible[0]}/inbox", status_code=303)


@router.get("/login")
def login_page(request: Request, next: str = "/console") -> Response:
    return login_form(request, next_url=safe_next(next))


def _check_password(runtime: Runtime, email: str, password: str) -> str | None:
    with runtime.sessions() as session:
        operator = OperatorRepository(session).by_email(email.strip())
        stored = operator.password_hash if operator else None
        if verify_password(stored, password) and operator is not None:
            return operator.id
    return None


def open_session(runtime: Runtime, operator_id: str) -> str:
    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        operator = operators.get(operator_id)
        assert operator is not None
        _row, token = operators.open_session(operator, SESSION_LIFETIME)
        return token


def _email_key(email: str) -> str:
    return "email:" + hashlib.sha256(email.strip().lower().encode()).hexdigest()


@router.post("/login")
async def login(
    request: Request,
    runtime: RuntimeDep,
    ip_hash: IpHashDep,
    lockout: AdminLockoutDep,
    email: EmailField,
    password: PasswordField,
    csrf_token: TokenField = "",
    next: Annotated[str, Form(max_length=500)] = "/console",
) -> Response:
    next_url = safe_next(next)
    if not _login_csrf_ok(request, csrf_token):
        return login_form(
            request, error="The form expired; please sign in again.", next_url=next_url, status=403
        )
    wait = max(lockout.retry_after_s(ip_hash), lockout.retry_after_s(_email_key(email)))
    if wait:
        return _throttled(request, wait, next_url)
    operator_id = await run_in_threadpool(_check_password, runtime, email, password)
    if operator_id is None:
        wait = max(await lockout.failed(ip_hash), await lockout.failed(_email_key(email)))
        if wait:
            return _throttled(request, wait, next_url)
        return login_form(request, error="Wrong e-mail or password.", next_url=next_url, status=401)
    token = await run_in_threadpool(open_session, runtime, operator_id)
    response = RedirectResponse(next_url, status_code=303)
    set_session_cookie(response, request, token)
    return response


def _throttled(request: Request, wait: int, next_url: str) -> Response:
    response = login_form(
        request,
        error=f"Too many failed sign-ins. Try again in {wait} seconds.",
        next_url=next_url,
        status=429,
    )
    response.headers["Retry-After"] = str(wait)
    return response


@router.post("/logout", dependencies=[CsrfDep])
async def logout(request: Request, runtime: RuntimeDep, user: ConsoleUserDep) -> Response:
    token = request.cookies.get(SESSION_COOKIE) or ""

    def close() -> None:
        with transaction(runtime.sessions) as session:
            OperatorRepository(session).close_session(token)

    await run_in_threadpool(close)
    response = RedirectResponse("/console/login", status_code=303)
    clear_session_cookie(response)
    return response


# -- invitations ---------------------------------------------------------------------------
def _invite_view(runtime: Runtime, token: str) -> dict[str, str] | None:
    with runtime.sessions() as session:
        invite = OperatorRepository(session).open_invite(token)
        if invite is None:
            return None
        sites = invite.site_id or "every site"
        return {"email": invite.email or "", "role": invite.role, "sites": sites}


@router.get("/invite/{token}")
async def invite_page(request: Request, runtime: RuntimeDep, token: str) -> Response:
    invite = await run_in_threadpool(_invite_view, runtime, token)
    if invite is None:
        return render(request, "invite_used.html", {}, status_code=404)
    return render_invite(request, token, invite)


def render_invite(
    request: Request, token: str, invite: dict[str, str], error: str = ""
) -> Response:
    login_csrf = request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(24)
    response = render(
        request,
        "invite.html",
        {"token": token, "invite": invite, "error": error, "login_csrf": login_csrf},
        status_code=400 if error else 200,
    )
    response.set_cookie(
        LOGIN_CSRF_COOKIE,
        login_csrf,
        httponly=True,
        samesite="strict",
        secure=secure_cookies(request),
        path="/console",
    )
    return response


class InviteRejected(Exception):
    """The invitation is used or expired, or names an operator whose password differs."""


def _accept(runtime: Runtime, token: str, email: str, password: str) -> str:
    """Create the operator of an invitation (an existing one proves their password and
    gains the role); the new session's token."""
    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        invite = operators.open_invite(token)
        if invite is None:
            raise InviteRejected("This invitation has been used or has expired.")
        existing = operators.by_email(email)
        if existing is not None and existing.password_hash is not None:
            if not verify_password(existing.password_hash, password):
                raise InviteRejected(
                    f"{email} already has an account: enter its current password (twice)."
                )
            operator = existing
        else:
            operator = operators.ensure(email, hash_password(password))
        sites = [invite.site_id] if invite.site_id else sorted(runtime.sites)
        for site_id in sites:
            operators.grant(operator, site_id, invite.role)
        invite.used_at = utcnow()
        _row, session_token = operators.open_session(operator, SESSION_LIFETIME)
        return session_token


@router.post("/invite/{token}")
async def accept_invite(
    request: Request,
    runtime: RuntimeDep,
    token: str,
    email: EmailField,
    password: PasswordField,
    confirm: PasswordField,
    csrf_token: TokenField = "",
) -> Response:
    invite = await run_in_threadpool(_invite_view, runtime, token)
    if invite is None:
        return render(request, "invite_used.html", {}, status_code=404)
    email = (invite["email"] or email).strip().lower()
    problem = password_problem(password, confirm)
    if not _login_csrf_ok(request, csrf_token):
        problem = "The form expired; please submit it again."
    elif "@" not in email:
        problem = "Enter your e-mail address."
    if problem:
        return render_invite(request, token, invite, error=problem)
    try:
        session_token = await run_in_threadpool(_accept, runtime, token, email, password)
    except InviteRejected as exc:
        return render_invite(request, token, invite, error=str(exc))
    response = RedirectResponse("/console", status_code=303)
    set_session_cookie(response, request, session_token)
    return response

"""Signing in and out (invitations: `invite_pages`)."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import (
    LOGIN_CSRF_COOKIE,
    SESSION_COOKIE,
    SESSION_LIFETIME,
    clear_session_cookie,
    csrf_matches,
    secure_cookies,
    session_user,
    set_session_cookie,
)
from frontdesk.api.deps import (
    AdminLockoutDep,
    ConsoleUserDep,
    CsrfDep,
    IpHashDep,
    RuntimeDep,
)
from frontdesk.console.i18n import supported
from frontdesk.console.oidc import OidcConfig
from frontdesk.console.passwords import verify_password
from frontdesk.console.templating import page_messages, render
from frontdesk.console.writes import in_transaction
from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
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


def account_key(email: str) -> str:
    """The lockout key of the account an e-mail names (never the address itself)."""
    return "account:" + hashlib.sha256(email.strip().lower().encode()).hexdigest()


def ip_account_key(ip_hash: str, email: str) -> str:
    return f"{ip_hash}:{account_key(email)}"


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
            request,
            error=page_messages(request, None).gettext("The form expired; please sign in again."),
            next_url=next_url,
            status=403,
        )
    # Locks are per client IP and per (IP, account): failures from elsewhere never lock
    # the rightful operator out. Failures for one account from every IP together only
    # slow its sign-ins down.
    pair = ip_account_key(ip_hash, email)
    wait = max(lockout.retry_after_s(ip_hash), lockout.retry_after_s(pair))
    if wait:
        return _throttled(request, wait, next_url)
    delay = lockout.account_delay_s(account_key(email))
    if delay:
        await asyncio.sleep(delay)
    operator_id = await run_in_threadpool(_check_password, runtime, email, password)
    if operator_id is None:
        await lockout.account_failed(account_key(email))
        wait = max(await lockout.failed(ip_hash), await lockout.failed(pair))
        if wait:
            return _throttled(request, wait, next_url)
        wrong = page_messages(request, None).gettext("Wrong e-mail or password.")
        return login_form(request, error=wrong, next_url=next_url, status=401)
    token = await run_in_threadpool(open_session, runtime, operator_id)
    response = RedirectResponse(next_url, status_code=303)
    set_session_cookie(response, request, token)
    return response


def _throttled(request: Request, wait: int, next_url: str) -> Response:
    response = login_form(
        request,
        error=page_messages(request, None).ngettext(
            "Too many failed sign-ins. Try again in %(count)s second.",
            "Too many failed sign-ins. Try again in %(count)s seconds.",
            wait,
        ),
        next_url=next_url,
        status=429,
    )
    response.headers["Retry-After"] = str(wait)
    return response


@router.post("/logout", dependencies=[CsrfDep])
async def logout(request: Request, runtime: RuntimeDep, user: ConsoleUserDep) -> Response:
    token = request.cookies.get(SESSION_COOKIE) or ""

    await in_transaction(runtime, lambda session: OperatorRepository(session).close_session(token))
    response = RedirectResponse("/console/login", status_code=303)
    clear_session_cookie(response)
    return response


@router.post("/language", dependencies=[CsrfDep])
async def choose_language(
    request: Request,
    runtime: RuntimeDep,
    user: ConsoleUserDep,
    language: Annotated[str, Form(max_length=16)] = "",
    next: Annotated[str, Form(max_length=500)] = "/console",
) -> Response:
    """The operator's console language, kept on the operator (every browser they use);
    an empty choice goes back to following the browser's language."""
    chosen = supported(language)
    if language and chosen is None:
        refusal = page_messages(request, user).gettext(
            "The console does not speak %(language)s.", language=language
        )
        return Response(refusal, status_code=422, media_type="text/plain")

    await in_transaction(
        runtime, lambda session: OperatorRepository(session).set_language(user.operator_id, chosen)
    )
    return RedirectResponse(safe_next(next), status_code=303)

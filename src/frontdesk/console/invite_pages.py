"""Accepting an invitation (the first owner's link is one too).

An invitation never authenticates an existing account: it creates a new operator with
the password set in its form, or, opened by a signed-in operator, adds its role to them.
Someone who already has an account signs in through `/console/login` (throttled like
any sign-in) and comes back to the link. An invitation that names an e-mail is bound to
it: only that operator, or a new account with that e-mail, can accept it.

Each invitation is consumed by one conditional update in the transaction that creates
the operator or grants the role (`OperatorRepository.consume_invite`), so simultaneous
acceptances of one link give one account, whatever the database.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import (
    LOGIN_CSRF_COOKIE,
    ROLE_RANK,
    SESSION_COOKIE,
    SESSION_LIFETIME,
    ConsoleUser,
    csrf_matches,
    secure_cookies,
    session_user,
    set_session_cookie,
)
from frontdesk.api.deps import AdminLockoutDep, IpHashDep, RuntimeDep
from frontdesk.console.auth_pages import EmailField, PasswordField, TokenField
from frontdesk.console.i18n import N_, ToldError
from frontdesk.console.passwords import hash_password, password_problem
from frontdesk.console.templating import page_messages, render
from frontdesk.guard.admin_lockout import AdminLockout
from frontdesk.runtime import Runtime
from frontdesk.store.db import transaction
from frontdesk.store.models import Operator, OperatorInvite
from frontdesk.store.operators import OperatorRepository

router = APIRouter(prefix="/console", include_in_schema=False)


USED = N_("This invitation has been used or has expired.")


@dataclass(frozen=True)
class InviteView:
    email: str
    role: str
    sites: str


class InviteRejected(ToldError):
    """The invitation cannot be accepted this way; the message says what to do instead
    (shown in the operator's language)."""


class InviteUsed(InviteRejected):
    """Used (a moment ago, perhaps by a simultaneous request) or expired."""


def _invite_view(runtime: Runtime, token: str) -> InviteView | None:
    with runtime.sessions() as session:
        invite = OperatorRepository(session).open_invite(token)
        if invite is None:
            return None
        # Whether its e-mail has an account is not shown: the page would tell whoever made
        # the invitation which addresses have accounts on other sites.
        return InviteView(invite.email or "", invite.role, invite.site_id or "")  # "": every site


def _sign_in_first(email: str) -> InviteRejected:
    return InviteRejected(
        N_(
            "%(email)s already has an account. Sign in as %(email)s, then open this link "
            "again to accept the invitation."
        ),
        email=email,
    )


def _sites_of(runtime: Runtime, invite: OperatorInvite) -> list[str]:
    return [invite.site_id] if invite.site_id else sorted(runtime.sites)


def _grant(
    runtime: Runtime, operators: OperatorRepository, operator: Operator, invite: OperatorInvite
) -> None:
    """The invitation's role on its sites; a higher role the operator has stays."""
    current = operators.roles(operator.id)
    for site_id in _sites_of(runtime, invite):
        held = current.get(site_id)
        if held is None or ROLE_RANK[held] < ROLE_RANK[invite.role]:
            operators.grant(operator, site_id, invite.role)


def _create_account(runtime: Runtime, token: str, email: str, password: str) -> str:
    """A new operator with `password` and the invitation's role; the session token."""
    password_hash = hash_password(password)  # slow on purpose: not while holding the row
    try:
        with transaction(runtime.sessions) as session:
            operators = OperatorRepository(session)
            invite = operators.consume_invite(token)  # first statement: see the docstring
            if invite is None:
                raise InviteUsed(USED)
            if invite.email and invite.email != email:
                raise InviteRejected(N_("This invitation is for %(email)s."), email=invite.email)
            operator = operators.by_email(email)
            if operator is None:
                operator = operators.ensure(email, password_hash)
            elif not _may_set_first_password(runtime, operators, operator, invite):
                raise _sign_in_first(email)  # rolls back: the link stays open
            else:
                operator.password_hash = password_hash
            _grant(runtime, operators, operator, invite)
            _row, session_token = operators.open_session(operator, SESSION_LIFETIME)
            return session_token
    except IntegrityError as exc:  # the same e-mail signed up at the same moment
        raise _sign_in_first(email) from exc


def _may_set_first_password(
    runtime: Runtime, operators: OperatorRepository, operator: Operator, invite: OperatorInvite
) -> bool:
    """An operator added without a password (`frontdesk operators add`) sets one through
    the invitation made for them: it must name them, and they must have no role beyond
    its sites, so an owner of one site cannot claim another site's operator."""
    if operator.password_hash is not None or invite.email != operator.email:
        return False
    return set(operators.roles(operator.id)) <= set(_sites_of(runtime, invite))


def _join(runtime: Runtime, token: str, user: ConsoleUser) -> None:
    """The signed-in operator accepts: the invitation's role is added to their account."""
    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        invite = operators.consume_invite(token)
        if invite is None:
            raise InviteUsed(USED)
        if invite.email and invite.email != user.email:
            raise InviteRejected(
                N_(
                    "This invitation is for %(invited)s; you are signed in as %(email)s. "
                    "Sign out, then sign in as %(invited)s to accept it."
                ),
                invited=invite.email,
                email=user.email,
            )
        operator = operators.get(user.operator_id)
        if operator is None:
            raise InviteRejected(N_("Your session has ended; sign in again."))
        _grant(runtime, operators, operator, invite)


async def _signed_in(request: Request, runtime: Runtime) -> ConsoleUser | None:
    return await run_in_threadpool(session_user, runtime, request.cookies.get(SESSION_COOKIE))


def render_invite(
    request: Request,
    token: str,
    invite: InviteView,
    user: ConsoleUser | None,
    error: str = "",
    status: int | None = None,
) -> Response:
    login_csrf = request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(24)
    mismatch = bool(user and invite.email and invite.email != user.email)
    response = render(
        request,
        "invite.html",
        {
            "token": token,
            "invite": invite,
            "error": error,
            "login_csrf": login_csrf,
            "signed_in_as": user.email if user else "",
            "mismatch": mismatch,
            "form_csrf": user.csrf_token if user else login_csrf,
        },
        user=user,
        status_code=status or (400 if error else 200),
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


@router.get("/invite/{token}")
async def invite_page(request: Request, runtime: RuntimeDep, token: str) -> Response:
    invite = await run_in_threadpool(_invite_view, runtime, token)
    if invite is None:
        return render(request, "invite_used.html", {}, status_code=404)
    return render_invite(request, token, invite, await _signed_in(request, runtime))


@router.post("/invite/{token}")
async def accept_invite(
    request: Request,
    runtime: RuntimeDep,
    ip_hash: IpHashDep,
    lockout: AdminLockoutDep,
    token: str,
    email: EmailField = "",
    password: PasswordField = "",
    confirm: PasswordField = "",
    csrf_token: TokenField = "",
) -> Response:
    invite = await run_in_threadpool(_invite_view, runtime, token)
    if invite is None:
        return render(request, "invite_used.html", {}, status_code=404)
    user = await _signed_in(request, runtime)
    if user is not None:
        if not csrf_matches(user.csrf_token, csrf_token):
            expired = page_messages(request, user).gettext(
                "The form expired; please submit it again."
            )
            return render_invite(request, token, invite, user, error=expired)
        try:
            await run_in_threadpool(_join, runtime, token, user)
        except InviteUsed:
            return render(request, "invite_used.html", {}, status_code=404)
        except InviteRejected as exc:
            told = exc.told(page_messages(request, user))
            return render_invite(request, token, invite, user, error=told, status=409)
        return RedirectResponse("/console", status_code=303)
    return await _accept_as_new_account(
        request, runtime, ip_hash, lockout, token, invite, email, password, confirm, csrf_token
    )


async def _accept_as_new_account(
    request: Request,
    runtime: Runtime,
    ip_hash: str,
    lockout: AdminLockout,
    token: str,
    invite: InviteView,
    email: str,
    password: str,
    confirm: str,
    csrf_token: str,
) -> Response:
    wait = lockout.retry_after_s(ip_hash)
    if wait:
        return _throttled(request, token, invite, wait)
    email = (invite.email or email).strip().lower()
    t = page_messages(request, None)
    problem = password_problem(password, confirm, t)
    if not csrf_matches(request.cookies.get(LOGIN_CSRF_COOKIE) or "", csrf_token):
        problem = t.gettext("The form expired; please submit it again.")
    elif "@" not in email:
        problem = t.gettext("Enter your e-mail address.")
    if problem:
        return render_invite(request, token, invite, None, error=problem)
    try:
        session_token = await run_in_threadpool(_create_account, runtime, token, email, password)
    except InviteUsed:
        return render(request, "invite_used.html", {}, status_code=404)
    except InviteRejected as exc:
        # Trying addresses on an open link counts like a failed sign-in from this IP.
        wait = await lockout.failed(ip_hash)
        if wait:
            return _throttled(request, token, invite, wait)
        return render_invite(request, token, invite, None, error=exc.told(t), status=409)
    response = RedirectResponse("/console", status_code=303)
    set_session_cookie(response, request, session_token)
    return response


def _throttled(request: Request, token: str, invite: InviteView, wait: int) -> Response:
    error = page_messages(request, None).ngettext(
        "Too many failed attempts. Try again in %(count)s second.",
        "Too many failed attempts. Try again in %(count)s seconds.",
        wait,
    )
    response = render_invite(request, token, invite, None, error=error, status=429)
    response.headers["Retry-After"] = str(wait)
    return response

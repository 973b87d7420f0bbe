"""Mounting the console on the Frontdesk app: page routers, static files, error pages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import (
    SESSION_COOKIE,
    ConsoleForbidden,
    ConsoleNotFound,
    ConsoleUser,
    CsrfRejected,
    SignInRequired,
    session_user,
)
from frontdesk.console import (
    analytics_pages,
    appointment_pages,
    auth_pages,
    facts_pages,
    improvement_pages,
    inbox_pages,
    invite_pages,
    knowledge_pages,
    leads_pages,
    oidc_pages,
    settings_pages,
    site_settings_pages,
    trust_pages,
    web_sources,
)
from frontdesk.console.i18n import N_, ROLE_NAMES, Messages
from frontdesk.console.templating import STATIC, page_messages, render


async def _reader(request: Request) -> tuple[ConsoleUser | None, Messages]:
    """Who gets an error page, and in which language: their chosen one when signed in."""
    runtime = getattr(request.app.state, "runtime", None)
    token = request.cookies.get(SESSION_COOKIE)
    user = await run_in_threadpool(session_user, runtime, token) if runtime and token else None
    return user, page_messages(request, user)


def _error(
    request: Request, user: ConsoleUser | None, status: int, heading: str, message: str
) -> Response:
    return render(
        request,
        "error.html",
        {"heading": heading, "message": message},
        user=user,
        status_code=status,
    )


async def _sign_in(request: Request, _exc: Exception) -> Response:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    login = "/console/login?next=" + quote(target, safe="/")
    if request.headers.get("HX-Request") == "true":
        return Response(status_code=401, headers={"HX-Redirect": login})
    return RedirectResponse(login, status_code=303)


def _error_page(
    status: int, heading: str, message: str
) -> Callable[[Request, Exception], Awaitable[Response]]:
    """An exception handler that answers with the error page: `heading` and `message`
    (marked with `N_`) in the reader's language."""

    async def handler(request: Request, _exc: Exception) -> Response:
        user, t = await _reader(request)
        return _error(request, user, status, t.gettext(heading), t.gettext(message))

    return handler


async def _forbidden(request: Request, exc: Exception) -> Response:
    user, t = await _reader(request)
    needed = exc.needed if isinstance(exc, ConsoleForbidden) else "owner"
    role = t.gettext(ROLE_NAMES.get(needed, needed))
    return _error(
        request,
        user,
        403,
        t.gettext("Not allowed"),
        t.gettext("This needs the %(role)s role on this site.", role=role),
    )


def install_console(app: FastAPI) -> None:
    for module in (
        auth_pages,
        invite_pages,
        oidc_pages,
        inbox_pages,
        leads_pages,
        appointment_pages,
        knowledge_pages,
        facts_pages,
        analytics_pages,
        improvement_pages,
        settings_pages,
        site_settings_pages,
        web_sources,
        trust_pages,
    ):
        app.include_router(module.router)
    app.mount("/console/static", StaticFiles(directory=STATIC), name="console-static")
    app.add_exception_handler(SignInRequired, _sign_in)
    app.add_exception_handler(
        ConsoleNotFound,
        _error_page(404, N_("Not found"), N_("There is nothing here, or it is not yours to see.")),
    )
    app.add_exception_handler(ConsoleForbidden, _forbidden)
    app.add_exception_handler(
        CsrfRejected,
        _error_page(
            403,
            N_("Form expired"),
            N_("The form was missing its security token. Reload the page."),
        ),
    )

"""Signing in with the OpenID Connect provider of the settings (`console/oidc.py`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import secure_cookies, set_session_cookie
from frontdesk.api.deps import RuntimeDep
from frontdesk.console.auth_pages import login_form, open_session, safe_next
from frontdesk.console.oidc import (
    FLOW_COOKIE,
    FLOW_LIFETIME_S,
    OidcConfig,
    OidcProvider,
    OidcRefused,
    OidcUnavailable,
    PendingSignIn,
)
from frontdesk.console.templating import page_messages
from frontdesk.runtime import Runtime
from frontdesk.store.operators import OperatorRepository

router = APIRouter(prefix="/console/login/oidc", include_in_schema=False)
FLOW_PATH = "/console/login/oidc"

QueryText = Annotated[str, Query(max_length=2000)]


def provider_of(request: Request, runtime: Runtime) -> OidcProvider | None:
    """The app's provider (one per app, so its discovery document and keys are cached)."""
    config = OidcConfig.from_settings(runtime.settings)
    if config is None:
        return None
    provider: OidcProvider | None = getattr(request.app.state, "oidc_provider", None)
    if provider is None or provider.config != config:
        provider = OidcProvider(config)
        request.app.state.oidc_provider = provider
    return provider


def _redirect_uri(runtime: Runtime, provider: OidcProvider) -> str:
    return provider.config.callback_url(runtime.settings.public_base_url)


def _refused(request: Request, message: str, status: int, next_url: str = "/console") -> Response:
    response = login_form(request, error=message, next_url=next_url, status=status)
    response.delete_cookie(FLOW_COOKIE, path=FLOW_PATH)
    return response


@router.get("")
async def start(request: Request, runtime: RuntimeDep, next: QueryText = "/console") -> Response:
    provider = provider_of(request, runtime)
    t = page_messages(request, None)
    if provider is None:
        return _refused(request, t.gettext("Single sign-on is not set up on this server."), 404)
    pending = PendingSignIn.start(safe_next(next))
    try:
        url = await provider.authorization_url(pending, _redirect_uri(runtime, provider))
    except OidcUnavailable as exc:
        return _refused(request, str(exc), 503, pending.next_url)
    response = RedirectResponse(url, status_code=303)
    response.set_cookie(
        FLOW_COOKIE,
        pending.to_cookie(),
        max_age=FLOW_LIFETIME_S,
        httponly=True,
        samesite="lax",  # the provider's redirect back is a top-level GET: Lax sends it
        secure=secure_cookies(request),
        path=FLOW_PATH,
    )
    return response


def _operator_id(runtime: Runtime, email: str) -> str | None:
    with runtime.sessions() as session:
        operator = OperatorRepository(session).by_email(email)
        return operator.id if operator is not None else None


@router.get("/callback")
async def callback(
    request: Request,
    runtime: RuntimeDep,
    code: QueryText = "",
    state: QueryText = "",
    error: QueryText = "",
    error_description: QueryText = "",
) -> Response:
    provider = provider_of(request, runtime)
    t = page_messages(request, None)
    if provider is None:
        return _refused(request, t.gettext("Single sign-on is not set up on this server."), 404)
    pending = PendingSignIn.from_cookie(request.cookies.get(FLOW_COOKIE))
    if pending is None:
        return _refused(
            request,
            t.gettext(
                "This sign-in was not started in this browser, or it took longer than "
                "%(minutes)s minutes. Start again.",
                minutes=FLOW_LIFETIME_S // 60,
            ),
            400,
        )
    if error:
        said = f"{error}: {error_description}" if error_description else error
        refusal = t.gettext("The identity provider did not sign you in (%(said)s).", said=said)
        return _refused(request, refusal, 403, pending.next_url)
    if not code:
        return _refused(request, t.gettext("The identity provider sent no sign-in code."), 400)
    try:
        email = await provider.verified_email(
            pending, state, code, _redirect_uri(runtime, provider)
        )
    except OidcRefused as exc:
        return _refused(request, exc.told(t), 403, pending.next_url)
    except OidcUnavailable as exc:
        return _refused(request, str(exc), 503, pending.next_url)
    operator_id = await run_in_threadpool(_operator_id, runtime, email)
    if operator_id is None:
        return _refused(
            request,
            t.gettext(
                "%(email)s has no operator account here. Ask an owner for an invitation, "
                "then sign in again.",
                email=email,
            ),
            403,
            pending.next_url,
        )
    token = await run_in_threadpool(open_session, runtime, operator_id)
    response = RedirectResponse(safe_next(pending.next_url), status_code=303)
    set_session_cookie(response, request, token)
    response.delete_cookie(FLOW_COOKIE, path=FLOW_PATH)
    return response

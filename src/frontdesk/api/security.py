"""Who is calling: the site (from its public widget key and the page origin), the admin
(a bearer: the process-wide key checked against its stored SHA-256, or a per-site admin
token looked up by its SHA-256), and the visitor (a salted IP hash)."""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Sequence
from urllib.parse import urlsplit

from fastapi import Request
from sqlalchemy.exc import SQLAlchemyError

from frontdesk.api.errors import ApiError
from frontdesk.runtime import Runtime
from frontdesk.sites.origins import allowed_origins, is_loopback_origin, is_web_origin
from frontdesk.sites.registry import LoadedSite
from frontdesk.store.db import transaction
from frontdesk.store.refusals import MAX_ORIGIN_CHARS, record_refusal

log = logging.getLogger(__name__)

KEY_HEADER = "X-Frontdesk-Key"
SESSION_HEADER = "X-Frontdesk-Session"
SECRET_HEADER = "X-Frontdesk-Session-Secret"
EXPIRES_HEADER = "X-Frontdesk-Session-Expires"


def request_origin(request: Request) -> str | None:
    """The calling page's origin: `Origin`, else the origin of `Referer` (same-origin GETs)."""
    origin = request.headers.get("origin")
    if origin:
        return origin.rstrip("/")
    referer = request.headers.get("referer")
    if referer:
        parts = urlsplit(referer)
        if parts.scheme in ("http", "https") and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}"
    return None


def origin_allowed(site: LoadedSite, origin: str | None, served: Sequence[str]) -> bool:
    """Whether `origin` may use the site's key (`served`: this server's own origins, what
    `self` in `widget.allowed_origins` stands for)."""
    allowed = site.config.widget.allowed_origins
    if "*" in allowed:
        return True
    return origin is not None and origin in allowed_origins(site.config.widget, served)


def any_site_allows(runtime: Runtime, origin: str) -> bool:
    """Preflights carry no key, so they pass when some site allows the origin."""
    served = runtime.settings.served_origins
    return any(origin_allowed(site, origin, served) for site in runtime.sites.values())


def authorize_site(request: Request, runtime: Runtime, key: str | None) -> LoadedSite:
    """Resolve the site from its public key only, then require an allowed origin.

    Unknown or missing key → 401; a page origin the site does not allow → 403, reported
    to the site's owner (log and console) and, for a page on the developer's own machine
    only, with a hint naming what to add.
    """
    if not key:
        raise ApiError(401, "missing_site_key", f"Send the site's public key in {KEY_HEADER}.")
    site = runtime.site_by_key(key)
    if site is None:
        raise ApiError(401, "unknown_site_key", "The site key is not valid.")
    origin = request_origin(request)
    served = runtime.settings.served_origins
    if not origin_allowed(site, origin, served):
        allowed = allowed_origins(site.config.widget, served)
        hint = None
        if origin is not None and is_web_origin(origin):
            report_refusal(runtime, site, origin, allowed)
            if is_loopback_origin(origin):
                hint = refusal_hint(site, origin, allowed)
                # A page on another port of the developer's machine may read the refusal
                # (CORS headers on this 403), so its widget can show the hint.
                request.state.cors_origin = origin
        shown = origin or "(none)"
        raise ApiError(
            403,
            "origin_not_allowed",
            f"Origin {shown} is not allowed for this site's key.",
            hint=hint,
        )
    if origin is not None:
        # Read by the CORS middleware: only a verified origin gets CORS response headers.
        request.state.cors_origin = origin
    return site


def refusal_hint(site: LoadedSite, origin: str, allowed: Sequence[str]) -> str:
    return (
        f"This page's origin {origin} is not in widget.allowed_origins of site "
        f"'{site.config.id}' (it allows: {', '.join(allowed) or 'none'}). Add {origin} to "
        "the site file and reload the site files."
    )


def report_refusal(runtime: Runtime, site: LoadedSite, origin: str, allowed: Sequence[str]) -> None:
    """Tell the site's owner, once per origin per interval (not per request): a log line
    and a stored record the console shows on the site's settings page."""
    origin = origin[:MAX_ORIGIN_CHARS]
    if not runtime.origin_refusals.should_report(site.config.id, origin):
        return
    log.warning(
        "widget of site %s refused on origin %r: widget.allowed_origins allows %s; "
        "add %r to widget.allowed_origins in %s, then reload the site files",
        site.config.id,
        origin,
        ", ".join(allowed) or "no origin",
        origin,
        site.path,
    )
    try:
        with transaction(runtime.sessions) as session:
            record_refusal(session, site.config.id, origin)
    except SQLAlchemyError as exc:  # the 403 stands without its record
        log.warning("could not record the refused origin of site %s: %s", site.config.id, exc)


def hash_admin_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def authorize_admin(
    runtime: Runtime,
    bearer: str | None,
    site_id: str | None,
    token_site: str | None = None,
    site_has_tokens: bool = False,
) -> bool:
    """Check an admin bearer for the admin routes of `site_id`.

    True when it is the process-wide key (`settings.admin_api_key_hash`, constant-time)
    or a per-site token of `site_id` (`token_site`: the site of the live token whose
    SHA-256 it has). False for a bearer that is neither: the caller counts the failure.
    Raises 403 when the site has no admin credential at all (no process key, no token),
    401 for a missing bearer, and 403 for a token used on another site's routes.
    """
    expected = runtime.settings.admin_api_key_hash.strip().lower()
    if not expected and not site_has_tokens and token_site is None:
        raise ApiError(
            403,
            "admin_disabled",
            "Admin API is disabled: set FRONTDESK_ADMIN_API_KEY_HASH to the SHA-256 of a key, "
            "or create a site token with `frontdesk sites token create SITE`.",
        )
    if not bearer:
        raise ApiError(
            401,
            "missing_admin_key",
            "Send the admin key or the site's admin token as 'Authorization: Bearer <key>'.",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if expected and hmac.compare_digest(hash_admin_key(bearer), expected):
        return True
    if token_site is None:
        return False
    if token_site != site_id:
        raise ApiError(
            403, "token_wrong_site", "This admin token is for another site's admin routes."
        )
    return True


def admin_failure(retry_after_s: int) -> ApiError:
    if retry_after_s:
        return ApiError(
            429,
            "admin_locked_out",
            "Too many failed admin authentications from this address; "
            f"try again in {retry_after_s}s.",
            headers={"Retry-After": str(retry_after_s)},
        )
    return ApiError(
        401,
        "invalid_admin_key",
        "The admin key is not valid.",
        headers={"WWW-Authenticate": "Bearer"},
    )


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def hash_ip(ip: str, salt: bytes) -> str:
    """A salted SHA-256 of the client IP: raw IPs never reach the graph or the store."""
    return hashlib.sha256(salt + ip.encode("utf-8")).hexdigest()

"""Who may use a session: whoever holds one of its secrets (issued by the server with the
session's first response, kept only as a SHA-256). A session id alone — copied from a
log, a screenshot or guessed — continues, restores, exports or erases nothing.

Sync functions (they run in the threadpool); each raises an `ApiError` the widget
understands: 403 `session_secret_invalid`, 410 `session_expired`, 404 `session_not_found`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from frontdesk.api.errors import ApiError
from frontdesk.api.security import EXPIRES_HEADER, SECRET_HEADER
from frontdesk.runtime import Runtime
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.models import utcnow
from frontdesk.store.repositories import ConversationRepository
from frontdesk.store.widget import (
    IssuedKey,
    VerifiedIdentity,
    WidgetSessionKey,
    WidgetSessionRepository,
    as_utc,
    key_live,
)


@dataclass(frozen=True)
class SessionGrant:
    session_id: str
    expires_at: datetime
    issued: IssuedKey | None = None  # a new secret, to send back once
    identity: VerifiedIdentity | None = None

    def headers(self) -> dict[str, str]:
        headers = {EXPIRES_HEADER: self.expires_at.isoformat()}
        if self.issued is not None:
            headers[SECRET_HEADER] = self.issued.secret
        return headers


def session_ttl(site: SiteConfig) -> timedelta:
    return timedelta(hours=site.widget.session_ttl_hours)


def _refused() -> ApiError:
    return ApiError(
        403,
        "session_secret_invalid",
        f"This session needs its secret ({SECRET_HEADER}); start a new conversation.",
    )


def _checked_key(
    repo: WidgetSessionRepository, site: SiteConfig, session_id: str, secret: str | None
) -> WidgetSessionKey:
    key = repo.match(site.id, session_id, secret)
    if key is None:
        raise _refused()
    if not key_live(key, session_ttl(site)):
        raise ApiError(410, "session_expired", "This conversation has expired; start a new one.")
    return key


def open_for_turn(
    runtime: Runtime,
    site: SiteConfig,
    session_id: str | None,
    secret: str | None,
    identity: VerifiedIdentity | None,
) -> SessionGrant:
    """The session a turn runs in: a new one (its secret issued) when no id is given or
    the id is new; an existing one only with its secret, and not another visitor's."""
    ttl = session_ttl(site)
    with transaction(runtime.sessions) as db:
        repo = WidgetSessionRepository(db)
        session_id = session_id or str(uuid.uuid4())
        if not repo.keys(site.id, session_id):
            if ConversationRepository(db).get(site.id, session_id) is not None:
                # A conversation from before session secrets: nobody can prove it is theirs.
                raise _refused()
            issued = repo.issue(site.id, session_id, ttl, identity)
            return SessionGrant(session_id, issued.expires_at, issued, identity)
        key = _checked_key(repo, site, session_id, secret)
        bound = repo.identity(site.id, session_id)
        if identity is not None and bound is not None and bound.user_id != identity.user_id:
            raise ApiError(
                403,
                "session_identity_mismatch",
                "This conversation belongs to another signed-in visitor; start a new one.",
            )
        if identity is not None and bound is None:
            repo.bind_identity(site.id, session_id, identity)
        repo.touch(key)
        return SessionGrant(session_id, utcnow() + ttl, None, identity or bound)


def authorize_session(
    runtime: Runtime, site: SiteConfig, session_id: str, secret: str | None
) -> SessionGrant:
    """Reading or erasing a session needs one of its secrets."""
    with transaction(runtime.sessions) as db:
        repo = WidgetSessionRepository(db)
        if not repo.keys(site.id, session_id):
            raise ApiError(404, "session_not_found", "No conversation is stored for this session.")
        key = _checked_key(repo, site, session_id, secret)
        identity = repo.identity(site.id, session_id)
        return SessionGrant(
            session_id, as_utc(key.last_seen_at) + session_ttl(site), None, identity
        )


def start_session(
    runtime: Runtime, site: SiteConfig, identity: VerifiedIdentity | None
) -> SessionGrant:
    with transaction(runtime.sessions) as db:
        issued = WidgetSessionRepository(db).issue(
            site.id, str(uuid.uuid4()), session_ttl(site), identity
        )
    return SessionGrant(issued.session_id, issued.expires_at, issued, identity)


def resume_for_identity(
    runtime: Runtime, site: SiteConfig, identity: VerifiedIdentity
) -> SessionGrant:
    """A known visitor on another device: their latest live session, with a key of its own."""
    ttl = session_ttl(site)
    with transaction(runtime.sessions) as db:
        repo = WidgetSessionRepository(db)
        session_id = repo.latest_for_user(site.id, identity.user_id, utcnow() - ttl)
        if session_id is None:
            raise ApiError(404, "session_not_found", "No live conversation for this visitor.")
        issued = repo.issue(site.id, session_id, ttl, identity)
    return SessionGrant(session_id, issued.expires_at, issued, identity)


def forget_session(runtime: Runtime, site: SiteConfig, session_id: str) -> bool:
    """GDPR erase: the session's keys and feedback go with its conversation."""
    with transaction(runtime.sessions) as db:
        return WidgetSessionRepository(db).delete_session(site.id, session_id) > 0

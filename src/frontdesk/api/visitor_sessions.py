"""Who may use a session: whoever holds one of its secrets (issued by the server with the
session's first response, kept only as a SHA-256). A session id alone — copied from a
log, a screenshot or guessed — continues, restores, exports or erases nothing.

Sync functions (they run in the threadpool); each raises an `ApiError` the widget
understands: 403 `session_secret_invalid`, 410 `session_expired`, 404 `session_not_found`.
A turn's session is checked first (`claim_for_turn`, read only) and written only once the
turn is admitted (`keep_session`), so a refused request writes nothing.
"""

from __future__ import annotations

import hmac
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import SQLAlchemyError

from frontdesk.api.errors import ApiError
from frontdesk.api.security import EXPIRES_HEADER, SECRET_HEADER
from frontdesk.conversation.spool import Spool
from frontdesk.conversation.spooled_sessions import (
    SpooledKey,
    issue_spooled_key,
    spooled_keys,
    store_claim,
)
from frontdesk.runtime import Runtime
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.health import store_writes
from frontdesk.store.models import utcnow
from frontdesk.store.repositories import ConversationRepository
from frontdesk.store.widget import (
    IssuedKey,
    VerifiedIdentity,
    WidgetSessionKey,
    WidgetSessionRepository,
    as_utc,
    hash_secret,
    key_live,
)

log = logging.getLogger(__name__)


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


def _expired() -> ApiError:
    return ApiError(410, "session_expired", "This conversation has expired; start a new one.")


def _checked_key(
    repo: WidgetSessionRepository, site: SiteConfig, session_id: str, secret: str | None
) -> WidgetSessionKey:
    key = repo.match(site.id, session_id, secret)
    if key is None:
        raise _refused()
    if not key_live(key, session_ttl(site)):
        raise _expired()
    return key


@dataclass(frozen=True)
class SessionClaim:
    """The session a turn may run in: verified, nothing written yet (a request refused
    by a rate limit or a busy session must leave no trace in the store)."""

    session_id: str
    key_id: int | None = None  # its stored key; None for a new session or a spooled key
    spooled: SpooledKey | None = None  # its key, issued while the store could not write
    identity: VerifiedIdentity | None = None
    bind_identity: bool = False


def claim_for_turn(
    runtime: Runtime,
    site: SiteConfig,
    session_id: str | None,
    secret: str | None,
    identity: VerifiedIdentity | None,
) -> SessionClaim:
    """The session a turn runs in (read only): a new one when no id is given or the id is
    new; an existing one only with its secret, and not another visitor's."""
    ttl = session_ttl(site)
    session_id = session_id or str(uuid.uuid4())
    spooled = spooled_keys.get(runtime.settings.spool_path, site.id, session_id)
    if spooled is not None:  # its key waits in the spool: checked like a stored one
        if not secret or not hmac.compare_digest(spooled.secret_hash, hash_secret(secret)):
            raise _refused()
        if not spooled.live(ttl):
            raise ApiError(
                410, "session_expired", "This conversation has expired; start a new one."
            )
        _check_identity(identity, spooled.identity)
        return SessionClaim(session_id, spooled=spooled, identity=identity or spooled.identity)
    with runtime.sessions() as db:
        repo = WidgetSessionRepository(db)
        if not repo.keys(site.id, session_id):
            if ConversationRepository(db).get(site.id, session_id) is not None:
                # A conversation from before session secrets: nobody can prove it is theirs.
                raise _refused()
            return SessionClaim(session_id, identity=identity)
        key = _checked_key(repo, site, session_id, secret)
        bound = repo.identity(site.id, session_id)
        _check_identity(identity, bound)
        return SessionClaim(
            session_id,
            key_id=key.id,
            identity=identity or bound,
            bind_identity=identity is not None and bound is None,
        )


def _check_identity(identity: VerifiedIdentity | None, bound: VerifiedIdentity | None) -> None:
    if identity is not None and bound is not None and bound.user_id != identity.user_id:
        raise ApiError(
            403,
            "session_identity_mismatch",
            "This conversation belongs to another signed-in visitor; start a new one.",
        )


def keep_session(runtime: Runtime, site: SiteConfig, claim: SessionClaim) -> SessionGrant:
    """Write what the turn's session needs (a new key, last seen, a bound identity).

    When the store cannot write, the turn still runs: a new session's key is issued and
    kept in the spool (`conversation/spooled_sessions.py`), an existing session is used
    as verified (its last-seen time waits for the next turn)."""
    ttl = session_ttl(site)
    folder = runtime.settings.spool_path
    issued: IssuedKey | None = None
    try:
        with transaction(runtime.sessions) as db:
            repo = WidgetSessionRepository(db)
            if claim.spooled is not None:  # the store writes again: the key goes there
                if store_claim(db, claim.spooled) != claim.session_id:
                    raise _refused()  # another visitor's key won this session id
            elif claim.key_id is None:
                if repo.keys(site.id, claim.session_id):  # issued by a request just before
                    raise _refused()
                issued = repo.issue(site.id, claim.session_id, ttl, claim.identity)
            else:
                key = db.get(WidgetSessionKey, claim.key_id)
                if key is None:  # erased since it was checked
                    raise _refused()
                if claim.bind_identity and claim.identity is not None:
                    repo.bind_identity(site.id, claim.session_id, claim.identity)
                repo.touch(key)
    except SQLAlchemyError as exc:  # a full disk, a read-only database
        store_writes.failed(exc)
        if claim.spooled is None and claim.key_id is None:
            log.error("session key not stored (%s); it is kept in the spool", exc)
            issued = issue_spooled_key(
                Spool(folder), site.id, claim.session_id, ttl, claim.identity
            )
            return SessionGrant(claim.session_id, issued.expires_at, issued, claim.identity)
        log.warning("session %s: last seen not stored (%s)", claim.session_id, exc)
        return SessionGrant(claim.session_id, utcnow() + ttl, None, claim.identity)
    if claim.spooled is not None:
        spooled_keys.stored(folder, claim.spooled)
    if issued is not None:
        return SessionGrant(claim.session_id, issued.expires_at, issued, claim.identity)
    return SessionGrant(claim.session_id, utcnow() + ttl, None, claim.identity)


def open_for_turn(
    runtime: Runtime,
    site: SiteConfig,
    session_id: str | None,
    secret: str | None,
    identity: VerifiedIdentity | None,
) -> SessionGrant:
    """`claim_for_turn` then `keep_session` (callers with no limit to check between)."""
    return keep_session(runtime, site, claim_for_turn(runtime, site, session_id, secret, identity))


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

"""Session keys issued while the store cannot write.

A visitor's first turn needs a session key (`api/visitor_sessions.py`). When the store
cannot write it (a full disk, a read-only database), the key is kept like the turn: in
the spool — the SHA-256 of its secret only, as in the store — and in this process, so
the visitor's next turns are checked against it until it is stored. Whoever does not
hold its secret cannot continue the session here either.

A key reaches the store by the spool replay or by its visitor's next turn once the store
writes again (`store_claim`, idempotent: keys are found by their hash). It is stored
under its session only when that session has no other key and no stored conversation:
when another replica issued a key for the same session id meanwhile, the spooled turns
go to a session of their own instead of joining a conversation whose secret their
visitor never held.
"""

from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Final, cast

from sqlalchemy.orm import Session

from frontdesk.conversation.spool import Spool, SpooledClaim, SpooledIdentity
from frontdesk.store.models import utcnow
from frontdesk.store.repositories import ConversationRepository
from frontdesk.store.widget import (
    IssuedKey,
    VerifiedIdentity,
    WidgetSessionRepository,
    as_utc,
    hash_secret,
    new_secret,
)

log = logging.getLogger(__name__)

SESSION_RECORD: Final = "session"
MAX_KEPT = 10_000  # keys this process remembers while the store is down


@dataclass(frozen=True)
class SpooledKey:
    """A session key not in the store yet."""

    site_id: str
    session_id: str
    secret_hash: str
    created_at: datetime
    identity: VerifiedIdentity | None = None

    def live(self, ttl: timedelta) -> bool:
        return as_utc(self.created_at) + ttl > utcnow()

    def as_record(self) -> SpooledClaim:
        return {
            "secret_hash": self.secret_hash,
            "created_at": self.created_at.isoformat(),
            "identity": cast(SpooledIdentity, self.identity.as_dict()) if self.identity else None,
        }

    @classmethod
    def from_record(cls, site_id: str, session_id: str, claim: SpooledClaim) -> SpooledKey:
        who = claim.get("identity") or None
        return cls(
            site_id=site_id,
            session_id=session_id,
            secret_hash=str(claim["secret_hash"]),
            created_at=datetime.fromisoformat(str(claim["created_at"])),
            identity=VerifiedIdentity(who["user_id"], who.get("email"), who.get("name"))
            if who
            else None,
        )


class SpooledKeys:
    """This process's keys not in the store yet, by spool folder, site and session."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[tuple[Path, str, str], SpooledKey] = {}

    def add(self, folder: Path, key: SpooledKey) -> None:
        with self._lock:
            if len(self._keys) >= MAX_KEPT:  # the oldest go (they are in the spool)
                del self._keys[next(iter(self._keys))]
            self._keys[(folder, key.site_id, key.session_id)] = key

    def get(self, folder: Path, site_id: str, session_id: str) -> SpooledKey | None:
        with self._lock:
            return self._keys.get((folder, site_id, session_id))

    def stored(self, folder: Path, key: SpooledKey) -> None:
        with self._lock:
            if self._keys.get((folder, key.site_id, key.session_id)) == key:
                del self._keys[(folder, key.site_id, key.session_id)]


spooled_keys = SpooledKeys()
"""The keys this process issued while the store could not write them."""


def issue_spooled_key(
    spool: Spool,
    site_id: str,
    session_id: str,
    ttl: timedelta,
    identity: VerifiedIdentity | None,
) -> IssuedKey:
    """A new session's key while the store cannot write: in the spool when it can write,
    in this process in any case (the turn runs; its lead may still be mailed)."""
    secret = new_secret()
    key = SpooledKey(site_id, session_id, hash_secret(secret), utcnow(), identity)
    spooled_keys.add(spool.folder, key)
    try:
        spool.append(
            {
                "kind": SESSION_RECORD,
                "turn_key": f"session:{key.secret_hash}",
                "site_id": site_id,
                "session_id": session_id,
                "claim": key.as_record(),
                "at": key.created_at.isoformat(),
            }
        )
    except OSError as exc:
        log.error(
            "session %s of site %s is kept in this process only: the spool cannot write (%s)",
            session_id,
            site_id,
            exc,
        )
    return IssuedKey(session_id, secret, key.created_at + ttl)


def store_claim(db: Session, key: SpooledKey) -> str:
    """Store a spooled key (once); the session id its turns belong to."""
    repo = WidgetSessionRepository(db)
    found = repo.by_hash(key.site_id, key.secret_hash)
    if found is not None:
        return found.session_id
    session_id = key.session_id
    taken = bool(repo.keys(key.site_id, session_id)) or (
        ConversationRepository(db).get(key.site_id, session_id) is not None
    )
    if taken:
        session_id = str(uuid.uuid4())
        log.error(
            "session %s of site %s was claimed by another key while the store was down; "
            "its spooled turns are stored as session %s",
            key.session_id,
            key.site_id,
            session_id,
        )
    repo.add_hashed(key.site_id, session_id, key.secret_hash, key.created_at, key.identity)
    return session_id

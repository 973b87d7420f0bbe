"""What the widget keeps on the server: session keys (hashed secrets, the visitor's verified
identity) and feedback on answers. Migration `0008`.

A session key is one secret issued for one session on one device: a conversation
restored on another device (a known visitor) gets a key of its own, so no secret ever
leaves the server twice. Only the SHA-256 of a secret is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import (
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    delete,
    select,
    update,
)
from sqlalchemy.orm import Mapped, mapped_column

from frontdesk.store.db import Repository
from frontdesk.store.models import Base, utcnow

SECRET_BYTES = 32


class WidgetSessionKey(Base):
    __tablename__ = "widget_session_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    site_id: Mapped[str] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"))
    session_id: Mapped[str] = mapped_column(String(64))
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[str | None] = mapped_column(String(200))
    email: Mapped[str | None] = mapped_column(String(320))
    name: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AnswerFeedback(Base):
    """A visitor's 👍/👎 on one answer (one per turn; a second vote replaces the first)."""

    __tablename__ = "answer_feedback"
    __table_args__ = (
        UniqueConstraint("site_id", "session_id", "turn", name="uq_answer_feedback_turn"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    site_id: Mapped[str] = mapped_column(ForeignKey("sites.id", ondelete="CASCADE"), index=True)
    session_id: Mapped[str] = mapped_column(String(64), index=True)
    turn: Mapped[int] = mapped_column(Integer)
    rating: Mapped[str] = mapped_column(String(8))
    comment: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


@dataclass(frozen=True)
class VerifiedIdentity:
    """A visitor the site vouched for with its identity secret (`api/identity.py`)."""

    user_id: str
    email: str | None = None
    name: str | None = None

    def as_dict(self) -> dict[str, str | bool | None]:
        return {"user_id": self.user_id, "email": self.email, "name": self.name, "verified": True}


@dataclass(frozen=True)
class IssuedKey:
    session_id: str
    secret: str
    expires_at: datetime


def new_secret() -> str:
    """A session secret (shown to its visitor once; only its hash is kept)."""
    return secrets.token_urlsafe(SECRET_BYTES)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def as_utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class WidgetSessionRepository(Repository):
    def keys(self, site_id: str, session_id: str) -> Sequence[WidgetSessionKey]:
        return self.session.scalars(
            select(WidgetSessionKey).where(
                WidgetSessionKey.site_id == site_id, WidgetSessionKey.session_id == session_id
            )
        ).all()

    def issue(
        self,
        site_id: str,
        session_id: str,
        ttl: timedelta,
        identity: VerifiedIdentity | None = None,
    ) -> IssuedKey:
        """A new secret for the session (the only time it is seen in clear)."""
        secret = new_secret()
        now = utcnow()
        self.add_hashed(site_id, session_id, hash_secret(secret), now, identity)
        return IssuedKey(session_id, secret, now + ttl)

    def add_hashed(
        self,
        site_id: str,
        session_id: str,
        secret_hash: str,
        created_at: datetime,
        identity: VerifiedIdentity | None = None,
    ) -> None:
        """A key whose secret was issued earlier (kept in the spool while the store could
        not write)."""
        self.session.add(
            WidgetSessionKey(
                site_id=site_id,
                session_id=session_id,
                secret_hash=secret_hash,
                user_id=identity.user_id if identity else None,
                email=identity.email if identity else None,
                name=identity.name if identity else None,
                created_at=created_at,
                last_seen_at=created_at,
            )
        )
        self.session.flush()

    def by_hash(self, site_id: str, secret_hash: str) -> WidgetSessionKey | None:
        return self.session.scalar(
            select(WidgetSessionKey).where(
                WidgetSessionKey.site_id == site_id, WidgetSessionKey.secret_hash == secret_hash
            )
        )

    def match(self, site_id: str, session_id: str, secret: str | None) -> WidgetSessionKey | None:
        """The key whose secret this is, compared in constant time; None when none is."""
        if not secret:
            return None
        presented = hash_secret(secret)
        found = None
        for key in self.keys(site_id, session_id):
            if hmac.compare_digest(key.secret_hash, presented):
                found = key
        return found

    def touch(self, key: WidgetSessionKey) -> None:
        key.last_seen_at = utcnow()

    def bind_identity(self, site_id: str, session_id: str, identity: VerifiedIdentity) -> None:
        """Every key of the session now names the verified visitor."""
        self.session.execute(
            update(WidgetSessionKey)
            .where(WidgetSessionKey.site_id == site_id, WidgetSessionKey.session_id == session_id)
            .values(user_id=identity.user_id, email=identity.email, name=identity.name)
        )

    def identity(self, site_id: str, session_id: str) -> VerifiedIdentity | None:
        for key in self.keys(site_id, session_id):
            if key.user_id:
                return VerifiedIdentity(key.user_id, key.email, key.name)
        return None

    def latest_for_user(self, site_id: str, user_id: str, since: datetime) -> str | None:
        """The session the known visitor used last (on any device), if still live."""
        row = self.session.scalar(
            select(WidgetSessionKey)
            .where(
                WidgetSessionKey.site_id == site_id,
                WidgetSessionKey.user_id == user_id,
                WidgetSessionKey.last_seen_at >= since,
            )
            .order_by(WidgetSessionKey.last_seen_at.desc())
            .limit(1)
        )
        return row.session_id if row else None

    def delete_session(self, site_id: str, session_id: str) -> int:
        keys = self._changed(
            delete(WidgetSessionKey).where(
                WidgetSessionKey.site_id == site_id, WidgetSessionKey.session_id == session_id
            )
        )
        votes = self._changed(
            delete(AnswerFeedback).where(
                AnswerFeedback.site_id == site_id, AnswerFeedback.session_id == session_id
            )
        )
        return keys + votes


def key_live(key: WidgetSessionKey, ttl: timedelta, now: datetime | None = None) -> bool:
    return as_utc(key.last_seen_at) + ttl > (now or datetime.now(UTC))


class FeedbackRepository(Repository):
    def record(
        self, site_id: str, session_id: str, turn: int, rating: str, comment: str | None
    ) -> AnswerFeedback:
        """The visitor's vote on one answer. The widget sends a 👎 and then its comment as
        two requests, which may run at once: one inserts the row, both update it."""
        now = utcnow()
        self._insert_if_missing(
            AnswerFeedback,
            site_id=site_id,
            session_id=session_id,
            turn=turn,
            rating=rating,
            created_at=now,
            updated_at=now,
        )
        row = self.session.scalar(
            select(AnswerFeedback)
            .where(
                AnswerFeedback.site_id == site_id,
                AnswerFeedback.session_id == session_id,
                AnswerFeedback.turn == turn,
            )
            .with_for_update()
        )
        if row is None:
            raise LookupError(f"no vote on turn {turn} after inserting it")
        # A comment explains a 👎; a vote without one keeps what was written before.
        if row.rating != rating:
            row.comment = None
        row.rating = rating
        if comment is not None:
            row.comment = comment or None
        row.updated_at = now
        self.session.flush()
        return row

    def for_session(self, site_id: str, session_id: str) -> Sequence[AnswerFeedback]:
        return self.session.scalars(
            select(AnswerFeedback)
            .where(AnswerFeedback.site_id == site_id, AnswerFeedback.session_id == session_id)
            .order_by(AnswerFeedback.turn)
        ).all()

"""Operators of the console, their roles per site, signed-in sessions and invitations.

Session and invitation tokens are random (32 bytes) and kept only as their SHA-256, like
admin tokens (`store/admin_tokens.py`); passwords arrive here already hashed (argon2id,
`console/passwords.py`).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import CursorResult, delete, select, update

from frontdesk.store.admin_tokens import hash_token
from frontdesk.store.db import Repository
from frontdesk.store.models import (
    Operator,
    OperatorInvite,
    OperatorRole,
    OperatorSession,
    utcnow,
)

ROLES = ("owner", "agent", "viewer")
ALL_SITES = None  # an invitation for every site (the first owner's)


class OperatorRepository(Repository):
    # -- operators -----------------------------------------------------------------------
    def by_email(self, email: str) -> Operator | None:
        return self.session.scalar(select(Operator).where(Operator.email == email.lower()))

    def get(self, operator_id: str) -> Operator | None:
        return self.session.get(Operator, operator_id)

    def ensure(self, email: str, password_hash: str | None = None) -> Operator:
        """The operator with `email`, created if new; a given hash replaces the old one."""
        operator = self.by_email(email)
        if operator is None:
            operator = Operator(email=email.lower(), password_hash=password_hash)
            self.session.add(operator)
        elif password_hash is not None:
            operator.password_hash = password_hash
        self.session.flush()
        return operator

    def set_language(self, operator_id: str, language: str | None) -> bool:
        """Store the operator's console language (None: follow the browser)."""
        operator = self.get(operator_id)
        if operator is None:
            return False
        operator.language = language
        self.session.flush()
        return True

    def everyone(self) -> Sequence[Operator]:
        return self.session.scalars(select(Operator).order_by(Operator.email)).all()

    def count(self) -> int:
        return len(self.session.scalars(select(Operator.id)).all())

    def remove(self, email: str) -> bool:
        operator = self.by_email(email)
        if operator is None:
            return False
        self.session.execute(delete(OperatorRole).where(OperatorRole.operator_id == operator.id))
        self.session.execute(
            delete(OperatorSession).where(OperatorSession.operator_id == operator.id)
        )
        self.session.delete(operator)
        self.session.flush()
        return True

    # -- roles ---------------------------------------------------------------------------
    def grant(self, operator: Operator, site_id: str, role: str) -> OperatorRole:
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r} (one of: {', '.join(ROLES)})")
        found = self.session.scalar(
            select(OperatorRole).where(
                OperatorRole.operator_id == operator.id, OperatorRole.site_id == site_id
            )
        )
        if found is None:
            found = OperatorRole(operator_id=operator.id, site_id=site_id, role=role)
            self.session.add(found)
        found.role = role
        self.session.flush()
        return found

    def revoke(self, operator_id: str, site_id: str) -> bool:
        revoked = self._changed(
            delete(OperatorRole).where(
                OperatorRole.operator_id == operator_id, OperatorRole.site_id == site_id
            )
        )
        return bool(revoked)

    def roles(self, operator_id: str) -> dict[str, str]:
        """site id → role of one operator."""
        rows = self.session.execute(
            select(OperatorRole.site_id, OperatorRole.role).where(
                OperatorRole.operator_id == operator_id
            )
        ).all()
        return {site: role for site, role in rows}

    def members(self, site_id: str) -> list[tuple[Operator, str]]:
        rows = self.session.execute(
            select(Operator, OperatorRole.role)
            .join(OperatorRole, OperatorRole.operator_id == Operator.id)
            .where(OperatorRole.site_id == site_id)
            .order_by(Operator.email)
        ).all()
        return [(operator, role) for operator, role in rows]

    # -- sessions ------------------------------------------------------------------------
    def open_session(self, operator: Operator, lifetime: timedelta) -> tuple[OperatorSession, str]:
        """A new signed-in session: the row and its cookie token (never stored)."""
        # Expired sessions of this operator go when they sign in again (rows stay bounded).
        self.session.execute(
            delete(OperatorSession).where(
                OperatorSession.operator_id == operator.id, OperatorSession.expires_at <= utcnow()
            )
        )
        token = secrets.token_urlsafe(32)
        row = OperatorSession(
            token_hash=hash_token(token),
            operator_id=operator.id,
            csrf_token=secrets.token_urlsafe(32),
            expires_at=utcnow() + lifetime,
        )
        return self._insert(row), token

    def live_session(self, token: str, now: datetime | None = None) -> OperatorSession | None:
        row = self.session.scalar(
            select(OperatorSession).where(OperatorSession.token_hash == hash_token(token))
        )
        if row is None or _aware(row.expires_at) <= (now or utcnow()):
            return None
        return row

    def close_session(self, token: str) -> None:
        self.session.execute(
            delete(OperatorSession).where(OperatorSession.token_hash == hash_token(token))
        )

    # -- invitations ---------------------------------------------------------------------
    def invite(
        self, site_id: str | None, role: str, lifetime: timedelta, email: str | None = None
    ) -> tuple[OperatorInvite, str]:
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r} (one of: {', '.join(ROLES)})")
        token = secrets.token_urlsafe(32)
        row = OperatorInvite(
            token_hash=hash_token(token),
            email=email.lower() if email else None,
            site_id=site_id,
            role=role,
            expires_at=utcnow() + lifetime,
        )
        return self._insert(row), token

    def open_invite(self, token: str, now: datetime | None = None) -> OperatorInvite | None:
        """The unused, unexpired invitation of `token`, or None."""
        row = self.session.scalar(
            select(OperatorInvite).where(OperatorInvite.token_hash == hash_token(token))
        )
        if row is None or row.used_at is not None or _aware(row.expires_at) <= (now or utcnow()):
            return None
        return row

    def consume_invite(self, token: str, now: datetime | None = None) -> OperatorInvite | None:
        """Mark the invitation of `token` used, if it is still open; None if it was not.

        One conditional UPDATE, the first statement of the caller's transaction: of any
        number of simultaneous acceptances exactly one changes the row (PostgreSQL waits
        on the row lock and re-checks the condition; SQLite serialises writers), and a
        rollback of the caller's transaction leaves the invitation open again."""
        result = self.session.execute(
            update(OperatorInvite)
            .where(
                OperatorInvite.token_hash == hash_token(token),
                OperatorInvite.used_at.is_(None),
                OperatorInvite.expires_at > (now or utcnow()),
            )
            .values(used_at=now or utcnow())
            .execution_options(synchronize_session=False)
        )
        if not isinstance(result, CursorResult) or result.rowcount != 1:
            return None
        return self.session.scalar(
            select(OperatorInvite).where(OperatorInvite.token_hash == hash_token(token))
        )

    def withdraw_first_owner_invites(self) -> int:
        """Unused invitations for every site stop working (a newer link replaces them)."""
        rows = self.session.scalars(
            select(OperatorInvite).where(
                OperatorInvite.site_id.is_(None), OperatorInvite.used_at.is_(None)
            )
        ).all()
        for row in rows:
            row.expires_at = utcnow()
        return len(rows)

    def pending_invites(self, site_id: str) -> Sequence[OperatorInvite]:
        return self.session.scalars(
            select(OperatorInvite)
            .where(
                OperatorInvite.site_id == site_id,
                OperatorInvite.used_at.is_(None),
                OperatorInvite.expires_at > utcnow(),
            )
            .order_by(OperatorInvite.created_at.desc())
        ).all()


def _aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes for timezone columns; they were written in UTC."""
    from datetime import UTC

    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)

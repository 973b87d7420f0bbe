"""Per-site admin tokens: created once, shown once, stored only as their SHA-256.

A token is 32 random bytes (`secrets.token_urlsafe`), so a plain SHA-256 is enough to
keep a leaked table useless: there is nothing to guess that a slow hash would protect.
Lookup is by the hash itself (indexed, unique), never by comparing secrets one by one.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

from sqlalchemy import select, update

from frontdesk.store.db import Repository
from frontdesk.store.models import AdminToken, utcnow

TOKEN_PREFIX = "fdt_"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


class AdminTokenRepository(Repository):
    def create(self, site_id: str, label: str = "") -> tuple[AdminToken, str]:
        """A new token for `site_id`: the stored row and the token (never stored)."""
        token = new_token()
        row = AdminToken(site_id=site_id, token_hash=hash_token(token), label=label[:200])
        return self._insert(row), token

    def site_of(self, token: str) -> str | None:
        """The site a live (unrevoked) token belongs to, or None."""
        return self.session.scalar(
            select(AdminToken.site_id).where(
                AdminToken.token_hash == hash_token(token), AdminToken.revoked_at.is_(None)
            )
        )

    def has_live(self, site_id: str) -> bool:
        """Whether `site_id` has at least one unrevoked token."""
        found = self.session.scalar(
            select(AdminToken.id)
            .where(AdminToken.site_id == site_id, AdminToken.revoked_at.is_(None))
            .limit(1)
        )
        return found is not None

    def list(self, site_id: str) -> Sequence[AdminToken]:
        return self.session.scalars(
            select(AdminToken).where(AdminToken.site_id == site_id).order_by(AdminToken.created_at)
        ).all()

    def revoke(self, site_id: str, token_id: str) -> bool:
        revoked = self._changed(
            update(AdminToken)
            .where(
                AdminToken.site_id == site_id,
                AdminToken.id == token_id,
                AdminToken.revoked_at.is_(None),
            )
            .values(revoked_at=utcnow())
        )
        return bool(revoked)

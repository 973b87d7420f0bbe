"""The audit of site settings changed in the console (`site_settings_changes`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from frontdesk.store.db import Repository
from frontdesk.store.models import SiteSettingsChange, utcnow


class SettingsAuditRepository(Repository):
    def record(
        self,
        site_id: str,
        *,
        operator_id: str | None,
        author: str,
        changes: list[dict[str, Any]],
        version_before: str,
        version_after: str,
    ) -> SiteSettingsChange:
        return self._insert(
            SiteSettingsChange(
                site_id=site_id,
                operator_id=operator_id,
                author=author,
                changed_at=utcnow(),
                changes=changes,
                version_before=version_before,
                version_after=version_after,
            )
        )

    def recent(self, site_id: str, limit: int = 50) -> Sequence[SiteSettingsChange]:
        """The site's newest changes first (never another site's)."""
        query = (
            select(SiteSettingsChange)
            .where(SiteSettingsChange.site_id == site_id)
            .order_by(SiteSettingsChange.changed_at.desc(), SiteSettingsChange.id.desc())
            .limit(limit)
        )
        return self.session.scalars(query).all()

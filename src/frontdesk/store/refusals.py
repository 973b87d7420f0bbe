"""Pages whose origin a site's widget refused, kept as analytics events so that every
replica's console shows them (and retention removes them like other events)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from frontdesk.store.models import AnalyticsEvent
from frontdesk.store.repositories import AnalyticsEventRepository

ORIGIN_REFUSED = "widget_origin_refused"
MAX_ORIGIN_CHARS = 200
_SCANNED = 1000


@dataclass(frozen=True)
class OriginRefusal:
    origin: str
    last_at: datetime
    reports: int


def record_refusal(session: Session, site_id: str, origin: str) -> None:
    AnalyticsEventRepository(session).add(
        site_id, "", ORIGIN_REFUSED, origin=origin[:MAX_ORIGIN_CHARS]
    )


def recent_refusals(session: Session, site_id: str, since: datetime) -> list[OriginRefusal]:
    """The refused origins of `site_id` since `since`, most recent first."""
    rows = session.execute(
        select(AnalyticsEvent.properties, AnalyticsEvent.created_at)
        .where(
            AnalyticsEvent.site_id == site_id,
            AnalyticsEvent.name == ORIGIN_REFUSED,
            AnalyticsEvent.created_at >= since,
        )
        .order_by(AnalyticsEvent.created_at.desc())
        .limit(_SCANNED)
    ).all()
    found: dict[str, OriginRefusal] = {}
    for properties, created_at in rows:
        origin = str((properties or {}).get("origin", ""))
        seen = found.get(origin)
        found[origin] = OriginRefusal(
            origin, seen.last_at if seen else created_at, (seen.reports if seen else 0) + 1
        )
    return list(found.values())

"""The weekly digest: a site's top content gaps, visitors' votes and the shares of answered
and refused turns, emailed to the site's owners over the deployment's SMTP settings (the
same as the fallback handoff email).

`digest_text` is pure. `send_digest` claims a `digest_runs` row for the site and period
first (unique per site and period end), so two workers never send the same digest;
`run_digest_schedules` is the worker's loop (croniter schedule, like crawl schedules).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from frontdesk.improvement.clusters import REASON_LABELS, GapCluster
from frontdesk.improvement.gaps import gap_report
from frontdesk.mail import MailError, send_mail
from frontdesk.runtime import Runtime
from frontdesk.settings import Settings
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.analytics import AnalyticsRepository
from frontdesk.store.db import transaction
from frontdesk.store.improvement import DigestRepository
from frontdesk.store.models import utcnow
from frontdesk.store.operators import OperatorRepository

log = logging.getLogger(__name__)
TOP_GAPS = 5
SCHEDULE_TICK_S = 60.0
# A worker that was down when the digest was due still sends it within this long after.
LATE_GRACE = timedelta(hours=24)


class DigestError(RuntimeError):
    """The digest could not be sent (no owners, no SMTP, the server refused)."""


@dataclass
class DigestFigures:
    site_name: str
    start: datetime
    end: datetime
    turns: int = 0
    answered: int = 0
    refused: int = 0
    votes_up: int = 0
    votes_down: int = 0
    gap_questions: int = 0
    gaps: list[GapCluster] = field(default_factory=list)


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "–"


def digest_text(figures: DigestFigures, console_url: str = "") -> tuple[str, str]:
    """Subject and plain-text body of a digest."""
    days = max(1, round((figures.end - figures.start).total_seconds() / 86400))
    subject = (
        f"{figures.site_name}: {figures.gap_questions} questions not answered well "
        f"in the last {days} days"
    )
    lines = [
        f"Your assistant on {figures.site_name}, "
        f"{figures.start:%Y-%m-%d} to {figures.end:%Y-%m-%d}:",
        "",
        f"- Turns: {figures.turns}",
        f"- Answered: {_share(figures.answered, figures.turns)} ({figures.answered})",
        f"- Refused: {_share(figures.refused, figures.turns)} ({figures.refused})",
        f"- Visitor votes: {figures.votes_up} helpful, {figures.votes_down} not helpful",
        f"- Questions not answered well: {figures.gap_questions}",
        "",
    ]
    if figures.gaps:
        lines.append("Top gaps (questions grouped by meaning):")
        for number, gap in enumerate(figures.gaps[:TOP_GAPS], 1):
            trend = {
                "new": "new",
                "up": f"up from {gap.previous}",
                "down": f"down from {gap.previous}",
            }
            reasons = ", ".join(REASON_LABELS.get(r, r) for r in gap.reasons)
            lines.append(
                f"{number}. {gap.label} — {gap.size} question{'s' if gap.size != 1 else ''}"
                f" ({trend.get(gap.trend, 'as before')}; {reasons})"
            )
            for language, examples in gap.examples.items():
                shown = [e for e in examples if e != gap.label][:2]
                if shown:
                    lines.append(f"   {language}: " + " / ".join(shown))
        lines.append("")
        lines.append("Write a team answer for a gap and the assistant uses it at once.")
    else:
        lines.append("No gaps this period.")
    if console_url:
        lines.append(f"Content gaps: {console_url}")
    return subject, "\n".join(lines) + "\n"


def digest_figures(
    runtime: Runtime, knowledge: Any, site: SiteConfig, days: int, end: datetime
) -> DigestFigures:
    report = gap_report(runtime, knowledge, site, days, now=end)
    with runtime.sessions() as session:
        analytics = AnalyticsRepository(session).site(
            site.id, report.start.date(), (end - timedelta(microseconds=1)).date()
        )
    return DigestFigures(
        site_name=site.name,
        start=report.start,
        end=report.end,
        turns=analytics.turns,
        answered=analytics.outcomes.get("answered", 0),
        refused=analytics.outcomes.get("refused", 0),
        votes_up=analytics.feedback.get("up", 0),
        votes_down=analytics.feedback.get("down", 0),
        gap_questions=report.questions,
        gaps=report.clusters[:TOP_GAPS],
    )


def site_owners(runtime: Runtime, site_id: str) -> list[str]:
    with runtime.sessions() as session:
        return [
            operator.email
            for operator, role in OperatorRepository(session).members(site_id)
            if role == "owner"
        ]


def digest_message(
    subject: str, body: str, sender: str, recipients: list[str], key: str
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message["Subject"] = subject
    domain = sender.rsplit("@", 1)[-1] or "frontdesk.local"
    message["Message-ID"] = make_msgid(idstring=key, domain=domain)
    message.set_content(body)
    return message


async def deliver(settings: Settings, message: EmailMessage) -> None:
    if not settings.smtp_host:
        raise DigestError("FRONTDESK_SMTP_HOST is not configured")
    try:
        await send_mail(settings, message)
    except MailError as exc:
        raise DigestError(str(exc)) from exc


@dataclass(frozen=True)
class DigestSent:
    recipients: list[str]
    subject: str
    body: str


async def send_digest(
    runtime: Runtime,
    knowledge: Any,
    site: SiteConfig,
    *,
    end: datetime | None = None,
    days: int | None = None,
    claim: bool = True,
) -> DigestSent | None:
    """Send the digest of the `days` before `end`; None when another worker claimed this
    period (with `claim`). Raises `DigestError` when it cannot be sent (recorded)."""
    settings = runtime.settings
    end = end or datetime.now(UTC)
    days = days or settings.digest_days
    recipients = await asyncio.to_thread(site_owners, runtime, site.id)
    if not recipients:
        raise DigestError(f"site {site.id!r} has no owners to send the digest to")
    run_id: int | None = None
    if claim:
        with transaction(runtime.sessions) as session:
            run = DigestRepository(session).claim(site.id, end)
            if run is None:
                return None
            run.recipients = recipients
            session.flush()
            run_id = run.id
    try:
        figures = await asyncio.to_thread(digest_figures, runtime, knowledge, site, days, end)
        console = settings.public_url.rstrip("/")
        url = f"{console}/console/sites/{site.id}/gaps?days={days}" if console else ""
        subject, body = digest_text(figures, url)
        key = f"digest.{site.id}.{end:%Y%m%d%H%M}"
        await deliver(settings, digest_message(subject, body, settings.smtp_from, recipients, key))
    except Exception as exc:
        _finish(runtime, run_id, "failed", str(exc)[:500])
        raise
    _finish(runtime, run_id, "sent", None)
    log.info("digest_sent site=%s recipients=%d", site.id, len(recipients))
    return DigestSent(recipients, subject, body)


def _finish(runtime: Runtime, run_id: int | None, status: str, error: str | None) -> None:
    if run_id is None:
        return
    from frontdesk.store.improvement import DigestRun

    with transaction(runtime.sessions) as session:
        run = session.get(DigestRun, run_id)
        if run is not None:
            run.status, run.error = status, error


def due_period_end(schedule: str, now: datetime) -> datetime | None:
    """The schedule's latest tick at or before `now` if it is recent enough to send."""
    if not schedule.strip():
        return None
    from croniter import croniter

    tick: datetime = croniter(schedule, now).get_prev(datetime)
    if now - tick > LATE_GRACE:
        return None
    return tick


async def run_digest_schedules(
    runtime: Runtime,
    knowledge: Any,
    stop: asyncio.Event,
    tick_s: float = SCHEDULE_TICK_S,
    clock: Callable[[], datetime] = utcnow,
) -> None:
    """Until `stop`: send each site's digest when the schedule's tick passes (once per
    tick across workers: the `digest_runs` row is the claim)."""
    schedule = runtime.settings.digest_schedule
    warned: set[tuple[str, datetime]] = set()
    while schedule and not stop.is_set():
        period_end = due_period_end(schedule, clock())
        if period_end is not None:
            await send_due(runtime, knowledge, period_end, warned)
        try:
            await asyncio.wait_for(stop.wait(), timeout=tick_s)
        except TimeoutError:
            continue


async def send_due(
    runtime: Runtime, knowledge: Any, period_end: datetime, warned: set[tuple[str, datetime]]
) -> None:
    for loaded in list(runtime.sites.values()):
        try:
            await send_digest(runtime, knowledge, loaded.config, end=period_end)
        except DigestError as exc:
            if (loaded.config.id, period_end) not in warned:  # once per period
                warned.add((loaded.config.id, period_end))
                log.warning("digest_not_sent site=%s: %s", loaded.config.id, exc)
        except Exception:
            log.exception("digest_failed site=%s", loaded.config.id)

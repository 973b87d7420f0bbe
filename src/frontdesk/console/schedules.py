"""The settings page's Schedules: each scheduled job of a site with its last run (start,
end, outcome, error) and its next run — the site's web source re-syncs (from their crawl
runs), GDPR retention and the digest (from `job_runs`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from frontdesk.api.console_access import ConsoleSite
from frontdesk.console.i18n import Messages
from frontdesk.jobs import DIGEST, RETENTION
from frontdesk.knowledge.web import CrawlStore, web_sources
from frontdesk.knowledge.web.schedule import last_scheduled_start, next_due
from frontdesk.knowledge.web.sync import source_key
from frontdesk.runtime import Runtime
from frontdesk.store.jobs import JobRuns


@dataclass(frozen=True)
class ScheduleRow:
    job: str  # what it does, in the team's words
    every: str
    started_at: datetime | None = None
    finished_at: datetime | None = None
    outcome: str = ""  # running | succeeded | failed; "" when it never ran
    error: str = ""
    next_run_at: datetime | None = None  # None with no run yet: at the next tick


def site_schedules(runtime: Runtime, site: ConsoleSite, t: Messages) -> list[ScheduleRow]:
    """Every scheduled job of a site, named in the operator's language."""
    rows = []
    store = CrawlStore(runtime.engine)
    for source in web_sources(site.id, site.site.config.knowledge, store):
        if not source.schedule:
            continue
        key = source_key(source)
        runs = store.runs(site.id, source_url=key, limit=20)
        last = runs[0] if runs else None
        counted = last_scheduled_start(runs)
        rows.append(
            ScheduleRow(
                job=t.gettext("Re-sync %(source)s", source=key),
                every=source.schedule,
                started_at=last.started_at if last else None,
                finished_at=last.finished_at if last else None,
                outcome=last.status if last else "",
                error=last.error if last else "",
                next_run_at=next_due(source.schedule, counted) if counted else None,
            )
        )
    jobs = JobRuns(runtime.engine)
    days = site.site.config.privacy.retention_days
    retention = t.ngettext(
        "Retention: forget conversations after %(count)s day",
        "Retention: forget conversations after %(count)s days",
        days,
    )
    named = [(RETENTION, retention, "1h")]
    if runtime.settings.digest_schedule.strip():
        digest = t.gettext("Digest to the site's owners")
        named.append((DIGEST, digest, runtime.settings.digest_schedule))
    for name, job, every in named:
        run = jobs.get(name)
        rows.append(
            ScheduleRow(job=job, every=every)
            if run is None
            else ScheduleRow(
                job=job,
                every=every,
                started_at=run.started_at,
                finished_at=run.finished_at,
                outcome=run.outcome,
                error=run.error,
                next_run_at=run.next_run_at,
            )
        )
    return rows

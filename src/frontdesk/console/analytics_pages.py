"""Analytics: conversations per day, outcome shares, the lead funnel, time to first
token and the most asked first questions, for a chosen number of days."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import ConsoleSiteDep, RuntimeDep
from frontdesk.console.charts import daily_bars, horizontal_bars, percentile
from frontdesk.console.i18n import N_
from frontdesk.console.templating import page_messages, render
from frontdesk.store.analytics import TTFT_SAMPLE, AnalyticsRepository, SiteAnalytics

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

PERIODS = (7, 30, 90)
# Figures of a site and period are computed at most this often per process: aggregates
# over months of turns cost 100-300 ms, and nobody needs them fresher than this.
CACHE_S = 30.0
# The charts' row names as the store computes them → the console's words for them.
CHART_LABELS = {
    "answered": N_("answered"),
    "refused": N_("refused"),
    "cannot answer": N_("cannot answer"),
    "handed off": N_("handed off"),
    "with a person": N_("with a person"),
    "other": N_("other"),
    "conversations": N_("conversations"),
    "2+ turns": N_("2+ turns"),
    "handoffs": N_("handoffs"),
    "leads": N_("leads"),
    "contacted": N_("contacted"),
    "won": N_("won"),
}


def cached_figures(request: Request, key: tuple[str, int]) -> SiteAnalytics | None:
    cache: dict[tuple[str, int], tuple[float, SiteAnalytics]] = getattr(
        request.app.state, "console_analytics", {}
    )
    found = cache.get(key)
    return found[1] if found is not None and found[0] > time.monotonic() else None


def keep_figures(request: Request, key: tuple[str, int], figures: SiteAnalytics) -> None:
    cache = getattr(request.app.state, "console_analytics", None)
    if cache is None:
        cache = request.app.state.console_analytics = {}
    if len(cache) > 256:
        cache.clear()
    cache[key] = (time.monotonic() + CACHE_S, figures)


@router.get("/analytics")
async def analytics_page(
    request: Request,
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    days: Annotated[int, Query(ge=1, le=366)] = 30,
) -> Response:
    last = datetime.now(UTC).date()
    first = last - timedelta(days=days - 1)

    def load() -> SiteAnalytics:
        with runtime.sessions() as session:
            return AnalyticsRepository(session).site(site.id, first, last)

    figures = cached_figures(request, (site.id, days))
    if figures is None:
        figures = await run_in_threadpool(load)
        keep_figures(request, (site.id, days), figures)
    conversations = sum(count for _d, count in figures.days)
    t = page_messages(request, site.user)

    def named(rows: list[tuple[str, int]]) -> list[tuple[str, int]]:
        return [(t.gettext(CHART_LABELS.get(name, name)), count) for name, count in rows]

    outcomes = [
        (name, count) for name, count in figures.outcomes.items() if count or name != "other"
    ]
    return render(
        request,
        "analytics.html",
        {
            "page": "analytics",
            "days": days,
            "periods": PERIODS,
            "figures": figures,
            "conversations": conversations,
            "per_day": daily_bars(figures.days, title=t.gettext("Conversations per day")),
            "outcomes": horizontal_bars(
                named(outcomes), title=t.gettext("Outcomes of turns"), total=figures.turns
            ),
            "funnel": horizontal_bars(named(figures.funnel), title=t.gettext("Lead funnel")),
            "ttft_median": percentile(figures.ttft_ms, 0.5),
            "ttft_p95": percentile(figures.ttft_ms, 0.95),
            "ttft_sample": TTFT_SAMPLE,
            "cache_s": CACHE_S,
        },
        site=site,
    )

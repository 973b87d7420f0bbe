"""The trust report page: the latest figures, their trend across runs, examples of what
the assistant did with each kind of question, and a button to run the report now.

Every role sees the page; agents and owners may queue a run. The run itself happens in
the background (`evals/trust_jobs.py`: the worker, or this process when it dispatches in
process); while one is queued or running the page polls a small status fragment and
reloads when it ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import ConsoleSiteDep, CsrfDep, RuntimeDep
from frontdesk.console.i18n import N_, SOURCE_LOCALE, Messages
from frontdesk.console.templating import page_messages, render
from frontdesk.runtime import Runtime
from frontdesk.store.trust import TrustRun, TrustStore

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

HISTORY = 20
ACTIVE = ("queued", "running")
# (figure, label, colour): the four headline shares, as in docs/trust.md.
SERIES = (
    ("answered", N_("answered"), "#2457c5"),
    ("grounded", N_("grounded"), "#1a7f4b"),
    ("abstained", N_("abstained"), "#a05a00"),
    ("refused", N_("refused"), "#6b3fa0"),
)


def trend_chart(runs: Sequence[TrustRun], t: Messages | None = None) -> Markup:
    """One line per headline figure over the finished runs, oldest left (pure), labelled
    in the operator's language."""
    t = t or Messages(SOURCE_LOCALE)
    title = t.gettext("Trust figures per run")
    done = [run for run in reversed(runs) if run.status == "done"]
    width, height, pad_left, pad_bottom, pad_top, pad_right = 640, 220, 40, 44, 12, 12
    plot_w, plot_h = width - pad_left - pad_right, height - pad_bottom - pad_top
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
    ]
    for tick in (0, 50, 100):
        y = pad_top + plot_h - plot_h * tick / 100
        parts.append(
            f'<line x1="{pad_left}" x2="{width - pad_right}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#d9dee6"/><text x="{pad_left - 6}" y="{y + 4:.1f}" '
            f'text-anchor="end">{tick}%</text>'
        )
    step = plot_w / max(len(done) - 1, 1)
    for key, series, colour in SERIES:
        label = t.gettext(series)
        points = []
        for index, run in enumerate(done):
            value = run.figures.get(key)
            if value is None:
                continue
            x = pad_left + (index * step if len(done) > 1 else plot_w / 2)
            y = pad_top + plot_h - plot_h * float(value)
            points.append((x, y, float(value), run))
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _v, _r in points)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for x, y, value, run in points:
            when = run.finished_at.strftime("%Y-%m-%d %H:%M") if run.finished_at else ""
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}">'
                f"<title>{escape(label)} {100 * value:.0f}% ({when})</title></circle>"
            )
    for index, (_key, series, colour) in enumerate(SERIES):
        label = t.gettext(series)
        x = pad_left + index * 140
        parts.append(
            f'<rect x="{x}" y="{height - 16}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{x + 16}" y="{height - 6}">{escape(label)}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def _load(runtime: Runtime, site_id: str) -> tuple[list[TrustRun], TrustRun | None]:
    store = TrustStore(runtime.engine)
    return store.history(site_id, HISTORY), store.latest_done(site_id)


@router.get("/trust")
async def trust_page(request: Request, runtime: RuntimeDep, site: ConsoleSiteDep) -> Response:
    runs, latest = await run_in_threadpool(_load, runtime, site.id)
    active = next((run for run in runs if run.status in ACTIVE), None)
    t = page_messages(request, site.user)
    return render(
        request,
        "trust.html",
        {
            "page": "trust",
            "runs": runs,
            "latest": latest,
            "active": active,
            "chart": trend_chart(runs, t),
            "can_run": site.can("agent"),
            "notice": request.query_params.get("queued") and t.gettext("The report is queued."),
        },
        site=site,
    )


@router.get("/trust/status")
async def trust_status(request: Request, runtime: RuntimeDep, site: ConsoleSiteDep) -> Response:
    """The polling fragment: a reload once no run is queued or running."""
    runs, _latest = await run_in_threadpool(_load, runtime, site.id)
    active = next((run for run in runs if run.status in ACTIVE), None)
    headers = {} if active else {"HX-Refresh": "true"}
    return render(request, "trust_status.html", {"active": active}, site=site, headers=headers)


@router.post("/trust/run", dependencies=[CsrfDep])
async def run_now(request: Request, runtime: RuntimeDep, site: ConsoleSiteDep) -> Response:
    site.require("agent")
    store = TrustStore(runtime.engine)
    await run_in_threadpool(store.queue, site.id, "console", site.user.email)
    # Already queued: the waiting run covers this request too.
    return RedirectResponse(f"/console/sites/{site.id}/trust?queued=1", status_code=303)

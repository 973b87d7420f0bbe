"""The trust report page over HTTP (real SQLite store, the console's roles): figures and
trend from stored runs, Run now queues one run however often it is pressed, a viewer may
look but not run, an operator without a role on the site gets the console's 404."""

from __future__ import annotations

from typing import Any

from console_support import Console, page_csrf, sign_in

from frontdesk.store.trust import TrustStore

PAGE = "/console/sites/demo/trust"
FIGURES = {"answered": 0.8, "grounded": 0.6, "abstained": 0.9, "refused": 1.0,
           "unanswerable_answered": 0.1, "cites_source": 0.75, "supported": 0.9,
           "generated": 10, "unanswerable": 4, "off_topic": 4, "questions": 18, "errors": 0,
           "pages": 30, "by_method": {"heading": {"questions": 10, "answered": 0.8,
                                                  "grounded": 0.6}}}  # fmt: skip
EXAMPLE = {
    "text": "What can you tell me about webhooks?",
    "title": "Webhooks",
    "met": False,
    "outcome": "abstained",
    "grounded": False,
    "answer": "I couldn't find that.",
}
REPORT = {
    "figures": FIGURES,
    "examples": {
        kind: {"expected": "x", "met": 0, "total": 1, "misses": [EXAMPLE], "hits": []}
        for kind in ("generated", "unanswerable", "off_topic")
    },
}


def _finished_run(console: Console) -> str:
    store = TrustStore(console.runtime.engine)
    run_id = store.start("demo", "cli")
    assert run_id is not None
    store.finish(run_id, FIGURES, REPORT, "local")
    return run_id


def test_the_page_shows_figures_trend_and_examples_and_run_now_queues_once(
    console_app: Console, team: dict[str, Any]
) -> None:
    _finished_run(console_app)
    client = console_app.client()
    assert sign_in(client, team["owner"]).status_code == 303
    page = client.get(PAGE)
    assert page.status_code == 200, page.text[:300]
    assert 'id="trust-figures"' in page.text and "80 %" in page.text and "60 %" in page.text
    assert "What can you tell me about webhooks?" in page.text
    assert "<circle" in page.text  # the trend chart has the run's points
    csrf = page_csrf(client, PAGE)
    for _ in range(2):
        posted = client.post(f"{PAGE}/run", data={"csrf_token": csrf}, follow_redirects=False)
        assert posted.status_code == 303
    queued = TrustStore(console_app.runtime.engine).next_queued()
    assert [(run.site_id, run.trigger, run.requested_by) for run in queued] == [
        ("demo", "console", team["owner"])
    ]
    waiting = client.get(PAGE)
    assert 'id="trust-active"' in waiting.text and "queued" in waiting.text
    status = client.get(f"{PAGE}/status")
    assert status.status_code == 200 and "HX-Refresh" not in status.headers
    assert client.post(f"{PAGE}/run", follow_redirects=False).status_code == 403  # no CSRF


def test_a_viewer_looks_and_a_stranger_gets_404(console_app: Console, team: dict[str, Any]) -> None:
    _finished_run(console_app)
    viewer = console_app.client()
    sign_in(viewer, "viewer@demo.test")
    page = viewer.get(PAGE)
    assert page.status_code == 200 and "Run now" not in page.text
    csrf = page_csrf(viewer, PAGE)
    assert viewer.post(f"{PAGE}/run", data={"csrf_token": csrf}).status_code == 403
    assert TrustStore(console_app.runtime.engine).next_queued() == []
    stranger = console_app.client()
    sign_in(stranger, team["acme_agent"])  # acme only
    assert stranger.get(PAGE).status_code == 404
    assert stranger.get("/console/sites/acme/trust").status_code == 200
    assert console_app.client().get(PAGE, follow_redirects=False).status_code == 303

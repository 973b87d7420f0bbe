"""Appointments in Chromium: the slot buttons in the widget book an appointment in a real
Radicale calendar, the invitation arrives on a loopback SMTP receiver, and its link
cancels the appointment. The real `ChatService` runs (LangGraph, the local engine).
Screenshots for docs/appointments.md."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_support import CHROMIUM
from live_server import LiveServer, free_port
from test_widget import open_and_acknowledge, widget
from test_widget_continuity import COMPLETE, ask, html_response

from frontdesk.api.app import create_app
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from tests.support.loopback import SmtpReceiver
from tests.support.radicale_server import PASSWORD, USER, RadicaleServer

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "img"

SITE = """\
id: werkstatt
name: Radwerk
default_language: de
languages: [en, de]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_werkstatt_0001
  allowed_origins: [self]
business_hours:
  timezone: Europe/Berlin
  weekly:
    tue-fri: ["09:30-13:00", "14:00-18:30"]
    sat: ["10:00-14:00"]
  holidays: DE-SN
calendar:
  url: {url}
  user: {user}
  password_env: WERKSTATT_CALDAV_PASSWORD
  appointment_types:
    - id: inspection
      name: {{en: Inspection, de: Inspektion}}
      duration_minutes: 60
      step_minutes: 60
      min_notice_hours: 12
"""


@pytest.fixture
def shop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[LiveServer, RadicaleServer, SmtpReceiver]]:
    if not CHROMIUM.exists():
        pytest.skip("no Chromium")
    monkeypatch.setenv("WERKSTATT_CALDAV_PASSWORD", PASSWORD)
    with RadicaleServer(tmp_path / "radicale") as radicale, SmtpReceiver() as smtp:
        sites = tmp_path / "sites"
        (sites / "kb").mkdir(parents=True)
        (sites / "werkstatt.yaml").write_text(
            SITE.format(url=radicale.calendar_url, user=USER), encoding="utf-8"
        )
        (sites / "kb" / "about.md").write_text(
            "# Radwerk\n\nRadwerk repairs and services bicycles: inspections, brakes, gears.\n",
            encoding="utf-8",
        )
        port = free_port()
        settings = Settings(
            data_dir=tmp_path / "data",
            sites_dir=sites,
            smtp_host="127.0.0.1",
            smtp_port=smtp.port,
            smtp_from="frontdesk@radwerk.example",
            public_url=f"http://127.0.0.1:{port}",
        )
        runtime = build_runtime(settings)
        site = runtime.site("werkstatt")
        KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
        live = LiveServer(create_app(settings, runtime), port).start()
        try:
            yield live, radicale, smtp
        finally:
            live.stop()
            runtime.close()


def host_page(url: str) -> str:
    return (
        "<!doctype html><html lang=de><head><meta charset=utf-8><title>Radwerk</title></head>"
        "<body><main><h1>Radwerk – Fahrradwerkstatt</h1></main>"
        f'<script src="{url}/widget.js" defer></script>'
        f'<frontdesk-chat api-url="{url}" site-key="pk_test_werkstatt_0001" lang="de" '
        'proactive-delay-ms="off" stream-timeout-ms="60000"></frontdesk-chat></body></html>'
    )


def test_book_by_slot_button_get_the_invitation_and_cancel_from_its_link(
    context: Any, shop: tuple[LiveServer, RadicaleServer, SmtpReceiver]
) -> None:
    from playwright.sync_api import expect

    live, radicale, smtp = shop
    warm = httpx.post(  # load the models before the widget's first-token timeout runs
        f"{live.url}/v1/ask",
        json={"message": "Hallo"},
        headers={"X-Frontdesk-Key": "pk_test_werkstatt_0001", "Origin": live.url},
        timeout=180,
    )
    assert warm.status_code == 200, warm.text
    context.route(f"{live.url}/werkstatt", html_response(host_page(live.url)))
    page = context.new_page()
    page.goto(f"{live.url}/werkstatt")
    open_and_acknowledge(page)

    offer = ask(page, "Ich möchte einen Termin für eine Inspektion")
    expect(offer).to_contain_text("Für Inspektion sind diese Termine frei")
    chips = widget(page, f"{COMPLETE} .chips .chip")
    expect(chips.first).to_be_visible()
    assert 3 <= chips.count() <= 5
    label = chips.first.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "appointments-slots.png"))

    before = widget(page, COMPLETE).count()
    chips.first.click()
    expect(widget(page, COMPLETE)).to_have_count(before + 1, timeout=15_000)
    expect(widget(page, COMPLETE).nth(before)).to_contain_text("Namen und Ihre E-Mail-Adresse")
    booked = ask(page, "Ada Lovelace, ada@example.org")
    expect(booked).to_contain_text(f"Ihr Termin ist gebucht: Inspektion am {label}")
    page.screenshot(path=str(SCREENSHOTS / "appointments-booked.png"))

    for _ in range(50):
        if smtp.mails:
            break
        page.wait_for_timeout(100)
    (mail,) = smtp.mails
    assert mail.recipients == ("ada@example.org",)
    parts = {p.get_content_type(): p for p in mail.message.walk()}
    assert "METHOD:REQUEST" in parts["text/calendar"].get_content()
    link = next(w for w in parts["text/plain"].get_content().split() if "/v1/appointments/" in w)

    manage = context.new_page()
    manage.goto(link)
    expect(manage.locator("button.cancel")).to_have_text("Termin absagen")
    manage.screenshot(path=str(SCREENSHOTS / "appointments-link.png"))
    manage.locator("button.cancel").click()
    expect(manage.locator(".note")).to_contain_text("ist abgesagt")
    assert smtp.mails[-1].subject.startswith("Abgesagt: Inspektion bei Radwerk")
    listed = httpx.request(
        "REPORT",
        radicale.calendar_url,
        auth=(USER, PASSWORD),
        headers={"Depth": "1", "Content-Type": "application/xml"},
        content=(
            '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
            '<D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR">'
            '<C:comp-filter name="VEVENT"/></C:comp-filter></C:filter></C:calendar-query>'
        ),
    )
    assert listed.status_code == 207 and ".ics" not in listed.text

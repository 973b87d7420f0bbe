"""A German bike shop's own website with the widget on every page, in Chromium: what its
visitors see. The shop's pages (tests/fixtures/radwerk) are served on their own loopback
origin with the two embed lines added, as the site owner adds them; `frontdesk kb crawl`
learns them from that origin; the real app (LangGraph graph, local engine, SQLite) serves
the widget from another origin. A visitor greets, asks for the opening hours, for
Saturday, for a price, once in English, and how the assistant is; every check reads what
the widget shows. Screenshots for docs/facts.md."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from browser_support import CHROMIUM, HostSite, widget
from live_server import LiveServer, free_port
from typer.testing import CliRunner

from frontdesk.api.app import create_app
from frontdesk.cli.kb import kb_app
from frontdesk.conversation.texts import TEXTS
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURE = REPO_ROOT / "tests" / "fixtures" / "radwerk"
SCREENSHOTS = REPO_ROOT / "docs" / "img"
NAME = "Radwerk Kreuzberg"
KEY = "pk_test_radwerk_widget_01"
COMPLETE = '.turn.assistant[data-state="complete"]'
# The widget's own words in the informal register: none may appear on a formal site.
INFORMAL = re.compile(r"\b(du|dich|dir|dein\w*|hast|kannst|schreib|frag|stell)\b", re.IGNORECASE)


@dataclass
class Shop:
    url: str  # the shop's website, where the widget is embedded
    frontdesk: str  # the Frontdesk server the widget talks to


def embedded(html: str, frontdesk: str, fallback: str) -> str:
    """The page with the widget's two lines before `</body>` (docs/widget.md)."""
    snippet = (
        f'<script src="{frontdesk}/widget.js" defer></script>\n'
        f'<frontdesk-chat api-url="{frontdesk}" site-key="{KEY}"\n'
        f'                fallback-url="{fallback}"></frontdesk-chat>\n'
    )
    return html.replace("</body>", snippet + "</body>")


def site_file(shop: str) -> dict[str, Any]:
    return {
        "id": "radwerk",
        "name": NAME,
        "default_language": "de",
        "languages": ["de", "en"],
        "knowledge": {"sources": [{"url": f"{shop}/", "allow_private_network": True}]},
        "widget": {"public_key": KEY, "allowed_origins": [shop]},
        "business_hours": {"timezone": "Europe/Berlin"},
    }


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[Shop]:
    if not CHROMIUM.exists():
        pytest.skip("no Chromium")
    frontdesk = f"http://127.0.0.1:{free_port()}"
    with HostSite() as website:
        for page in sorted(FIXTURE.glob("*.html")):
            path = "/" if page.name == "index.html" else f"/{page.name}"
            html = page.read_text(encoding="utf-8")
            website.serve(path, embedded(html, frontdesk, f"{website.url}/kontakt.html"))
        urls = "".join(f"<url><loc>{website.url}{path}</loc></url>" for path in website.pages)
        website.serve(
            "/robots.txt",
            f"User-agent: *\nAllow: /\nSitemap: {website.url}/sitemap.xml\n",
            {"Content-Type": "text/plain; charset=utf-8"},
        )
        website.serve(
            "/sitemap.xml",
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
            {"Content-Type": "application/xml"},
        )
        sites = tmp_path / "sites"
        sites.mkdir()
        (sites / "radwerk.yaml").write_text(
            yaml.safe_dump(site_file(website.url), allow_unicode=True), encoding="utf-8"
        )
        data = tmp_path / "data"
        # On a thread of its own: the command runs its own event loop, and Playwright's sync
        # API keeps one running in this thread.
        with ThreadPoolExecutor(max_workers=1) as pool:
            crawled = pool.submit(
                CliRunner().invoke,
                kb_app,
                ["crawl", "radwerk", "--no-progress", "--sites-dir", str(sites)],
                env={"COLUMNS": "200", "FRONTDESK_DATA_DIR": str(data)},
            ).result()
        assert crawled.exit_code == 0, crawled.output

        settings = Settings(data_dir=data, sites_dir=sites)
        runtime = build_runtime(settings)
        learned = KnowledgeBase(runtime.engine).list_documents("radwerk")
        pages = [p for p in website.pages if p.endswith(".html") or p == "/"]
        assert sorted(d.url for d in learned) == sorted(website.url + p for p in pages), learned
        live = LiveServer(create_app(settings, runtime), int(frontdesk.rsplit(":", 1)[1]))
        live.start(timeout_s=300)
        try:
            # Load the models before the widget's first-token timeout runs.
            warm = httpx.post(
                f"{frontdesk}/v1/ask",
                json={"message": "Hallo"},
                headers={"X-Frontdesk-Key": KEY, "Origin": website.url},
                timeout=180,
            )
            assert warm.status_code == 200, warm.text
            yield Shop(url=website.url, frontdesk=frontdesk)
        finally:
            live.stop()
            runtime.close()


def plain(text: str) -> str:
    """Spaces of any kind (CLDR writes narrow no-break spaces in times) as one space."""
    return re.sub(r"[\u00a0\u202f\u2009\s]+", " ", text).strip()


def ask(page: Any, text: str) -> Any:
    """Type `text` in the widget, send it, and return its answer once complete."""
    from playwright.sync_api import expect

    before = widget(page, COMPLETE).count()
    widget(page, "textarea").fill(text)
    widget(page, "textarea").press("Enter")
    done = widget(page, COMPLETE)
    expect(done).to_have_count(before + 1, timeout=30_000)
    return done.nth(before)


def said(answer: Any) -> str:
    return plain(answer.locator(".content").inner_text())


def sources(answer: Any) -> list[str]:
    """The addresses of the pages the widget lists under the answer."""
    links: list[str] = answer.locator("details.sources li a").evaluate_all(
        "links => links.map(a => a.href)"
    )
    return links


def text(key: str, language: str = "de") -> str:
    return str(TEXTS[key][language]).format(site=NAME)


def snap(page: Any, answer: Any, name: str) -> None:
    """The panel with `answer` in view, as docs/img/<name>.png."""
    answer.scroll_into_view_if_needed()
    widget(page, ".panel").screenshot(path=str(SCREENSHOTS / name), animations="disabled")


def test_a_visitor_of_a_german_shop_asks_in_the_widget(browser: Any, shop: Shop) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 960, "height": 720}, locale="de-DE")
    page = context.new_page()
    errors: list[Any] = []  # console messages
    page.on("console", lambda m: errors.append(m) if m.type == "error" else None)
    try:
        with page.expect_response(lambda r: "/v1/widget/config" in r.url):
            page.goto(f"{shop.url}/")
        expect(page.locator("h1")).to_have_text("Willkommen beim Radwerk Kreuzberg")

        # The widget's own words: German, formal.
        launcher = widget(page, ".launcher")
        expect(launcher).to_have_attribute("aria-label", "Chat öffnen")
        launcher.click()
        expect(widget(page, "#fd-title")).to_have_text("Schreiben Sie uns")
        expect(widget(page, "textarea")).to_have_attribute("placeholder", "Stellen Sie eine Frage…")
        expect(widget(page, ".gdpr-text")).to_contain_text("Wenn Sie fortfahren")
        expect(widget(page, ".gdpr-ok")).to_have_text("Verstanden")
        expect(widget(page, ".greeting .bubble")).to_contain_text("Fragen Sie mich")
        panel = plain(widget(page, ".panel").inner_text())
        assert " Sie " in f" {panel} " and not INFORMAL.search(panel), panel
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        # Animations finished: the panel has just popped open.
        page.screenshot(path=str(SCREENSHOTS / "facts-widget-open.png"), animations="disabled")
        widget(page, ".gdpr-ok").click()
        expect(widget(page, "textarea")).to_be_enabled()

        # The replies of the formal register ("Wie kann ich Ihnen helfen?"), word for word.
        hello = ask(page, "Hallo!")
        assert said(hello) == text("act.greeting"), said(hello)
        expect(hello.locator("details.sources")).to_have_count(0)

        hours = ask(page, "Wann habt ihr geöffnet?")
        answer = said(hours)
        assert text("not_found") not in answer, answer
        assert answer.startswith("Öffnungszeiten:"), answer
        for line in (
            "Montag: geschlossen",
            "Dienstag: 09:30–18:30",
            "Freitag: 09:30–18:30",
            "Samstag: 10:00–14:00",
            "Sonntag: geschlossen",
        ):
            assert line in answer, (line, answer)
        expect(hours.locator(".cite").first).to_be_visible()
        expect(hours.locator("details.sources summary")).to_have_text("Quellen (1)")
        assert sources(hours) == [f"{shop.url}/kontakt.html"], sources(hours)
        hours.locator(".cite").first.click()  # opens the sources list at that page
        expect(hours.locator("details.sources ol")).to_be_visible()
        snap(page, hours, "facts-widget-hours.png")

        saturday = ask(page, "Und am Samstag?")
        answer = said(saturday)
        assert "Samstag: 10:00–14:00" in answer and "Dienstag" not in answer, answer
        assert sources(saturday) == [f"{shop.url}/kontakt.html"], sources(saturday)

        tube = ask(page, "Was kostet ein Schlauchwechsel?")
        answer = said(tube)
        assert "12 €" in answer and text("not_found") not in answer, answer
        assert sources(tube) == [f"{shop.url}/preise.html"], sources(tube)
        tube.locator(".cite").first.click()
        snap(page, tube, "facts-widget-price.png")

        english = ask(page, "What are your opening hours?")
        answer = said(english)
        assert answer.startswith("Opening hours:"), answer
        for line in ("Tuesday: 9:30 AM–6:30 PM", "Saturday: 10:00 AM–2:00 PM"):
            assert line in answer, (line, answer)
        assert not re.search(r"Dienstag|Samstag|geschlossen", answer), answer
        assert sources(english) == [f"{shop.url}/kontakt.html"], sources(english)
        snap(page, english, "facts-widget-english.png")

        small_talk = ask(page, "Wie geht's dir heute? 😊")
        assert said(small_talk) == text("act.how_are_you"), said(small_talk)
        expect(small_talk.locator("details.sources")).to_have_count(0)
        expect(small_talk.locator(".cite")).to_have_count(0)
        snap(page, small_talk, "facts-widget-small-talk.png")

        expect(widget(page, ".fallback")).to_be_hidden()
        # No script error, no refused request (the shop itself has no favicon).
        favicon = f"{shop.url}/favicon.ico"
        assert [e.text for e in errors if e.location.get("url") != favicon] == [], errors
    finally:
        context.close()

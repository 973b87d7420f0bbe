"""The console in the operator's language, in headless Chromium: a German browser
(de-DE) reads the sign-in form, the inbox, a transcript and the live chat page in German,
an American one (en-US) in English, and an operator's own choice in the header wins over
the browser's language, in every browser that operator signs in from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import RECORD_EVENTS, Server, StartServer
from scripted_backend import ScriptedBackend

from tests.integration.console.console_support import PASSWORD, add_operator, seed_conversation

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO_ROOT / "docs" / "img"
OPERATOR = "jana@languages.test"
QUESTION = "Wie lange dauert der Versand nach Leipzig?"

# What each page says, per language: its heading and words of its chrome and content.
PAGES: dict[str, dict[str, list[str]]] = {
    "de": {
        "login": ["Anmelden", "Passwort", "Noch kein Konto?"],
        "inbox": ["Posteingang", "Letzte Aktivität", "Erste Frage", "Beitreten", "Abmelden"],
        "transcript": ["Unterhaltung", "Besucher", "Assistent", "Dem Live-Chat beitreten"],
        "live": ["Live-Chat", "Übergabe", "Verlauf und Ablauf", "Der Assistent antwortet"],
    },
    "en": {
        "login": ["Sign in", "Password", "No account yet?"],
        "inbox": ["Inbox", "Last activity", "First question", "Join", "Sign out"],
        "transcript": ["Conversation", "Visitor", "Assistant", "Join the live chat"],
        "live": ["Live chat", "Handoff", "Transcript and trace", "The assistant is"],
    },
}
# Words of the other language that must not show (a page half in English fails here).
ABSENT = {"de": ["Inbox", "Sign out", "Last activity"], "en": ["Posteingang", "Abmelden"]}


@pytest.fixture
def server(start_server: StartServer) -> tuple[Server, str]:
    live = start_server(ScriptedBackend())
    add_operator(live.runtime, OPERATOR, {"demo": "agent"})
    session_id = seed_conversation(
        live.runtime, "demo", question=QUESTION, answer="Zwei bis drei Werktage [1].", language="de"
    )
    return live, session_id


def _context(browser: Any, locale: str, viewport: tuple[int, int] = (1280, 800)) -> Any:
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    context.add_init_script(RECORD_EVENTS)
    return context


def _sign_in(page: Any, url: str, heading: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/console")
    expect(page.locator("h1")).to_have_text(heading)
    page.fill('input[name="email"]', OPERATOR)
    page.fill('input[name="password"]', PASSWORD)
    page.click('button[type="submit"]')
    expect(page.locator("nav.pages")).to_be_visible()


def _says(page: Any, words: list[str], absent: list[str]) -> None:
    from playwright.sync_api import expect

    for word in words:
        expect(page.locator("body")).to_contain_text(word)
    shown = page.locator("body").inner_text()
    for word in absent:
        assert word not in shown, f"{word!r} on {page.url}"


def _fits(page: Any) -> None:
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 1, f"{page.url} overflows the phone's width by {overflow}px"


def _walk(page: Any, url: str, session_id: str, language: str, shots: str = "") -> None:
    """Inbox, transcript and live chat of the seeded conversation, each in `language`."""
    words, absent = PAGES[language], ABSENT[language]
    _says(page, words["inbox"], absent)
    assert page.locator("html").get_attribute("lang") == language
    row = page.locator("tr.conversation", has_text=QUESTION)
    row.locator("td.preview a").click()
    page.wait_for_url(f"**/conversations/{session_id}")
    _says(page, words["transcript"], absent)
    if shots:
        page.screenshot(path=str(SCREENSHOTS / f"console-conversation-{shots}.png"))
    page.locator("a.join").first.click()
    page.wait_for_url(f"**/conversations/{session_id}/live")
    _says(page, words["live"], absent)
    page.goto(f"{url}/console/sites/demo/inbox")


@pytest.mark.parametrize(("locale", "language"), [("de-DE", "de"), ("en-US", "en")])
def test_the_console_speaks_the_browsers_language(
    browser: Any, server: tuple[Server, str], locale: str, language: str
) -> None:
    from playwright.sync_api import expect

    live, session_id = server
    context = _context(browser, locale)
    try:
        page = context.new_page()
        # The scripts' words travel as JSON inside the page: no CSP report, no script error.
        errors: list[str] = []
        page.on(
            "console",
            lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
        )
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{live.url}/console/login")
        _says(page, PAGES[language]["login"], [])
        _sign_in(page, live.url, PAGES[language]["login"][0])
        # The date of the conversation is in the operator's format too (05.12.2026 / Dec 5).
        when = page.locator("tr.conversation td.when").first.inner_text()
        assert ("." in when) if language == "de" else ("," in when and "." not in when), when
        # The German transcript is in the docs (docs/console.md, Languages).
        _walk(page, live.url, session_id, language, shots="de-desktop" if language == "de" else "")
        # The live page's script speaks the same language: presence of the team.
        presence = {"de": "1 Person aus dem Team erreichbar", "en": "1 operator available"}
        expect(page.locator(".presence")).to_have_text(presence[language], timeout=10_000)
        assert not errors, errors
    finally:
        context.close()


def test_an_operators_choice_wins_over_the_browser(
    browser: Any, server: tuple[Server, str]
) -> None:
    from playwright.sync_api import expect

    live, session_id = server
    german = _context(browser, "de-DE")
    try:
        page = german.new_page()
        _sign_in(page, live.url, "Anmelden")
        _says(page, PAGES["de"]["inbox"], ABSENT["de"])
        picker = page.locator("#console-language")
        expect(picker).to_have_value("")  # follows the browser
        picker.select_option("en")
        page.locator("form.language-choice button").click()
        expect(page.locator("h1")).to_have_text("Inbox")
        expect(page.locator("#console-language")).to_have_value("en")
        _walk(page, live.url, session_id, "en")
    finally:
        german.close()

    # Another German browser (a phone): the choice is the operator's, so English again,
    # and the header with its picker still fits the phone's width.
    phone = _context(browser, "de-DE", (390, 844))
    try:
        page = phone.new_page()
        _sign_in(page, live.url, "Anmelden")  # signed out, the browser decides
        expect(page.locator("h1")).to_have_text("Inbox")
        _fits(page)
        # Back to following the browser: German.
        page.locator("#console-language").select_option("")
        page.locator("form.language-choice button").click()
        expect(page.locator("h1")).to_have_text("Posteingang")
        _fits(page)
        page.screenshot(path=str(SCREENSHOTS / "console-inbox-de-phone.png"))
    finally:
        phone.close()

    # An American browser whose operator picks German reads German.
    american = _context(browser, "en-US")
    try:
        page = american.new_page()
        _sign_in(page, live.url, "Sign in")
        page.locator("#console-language").select_option("de")
        page.locator("form.language-choice button").click()
        expect(page.locator("h1")).to_have_text("Posteingang")
        _walk(page, live.url, session_id, "de")
    finally:
        american.close()

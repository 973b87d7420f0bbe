"""Site settings edited in the console, in headless Chromium against a live Frontdesk on
loopback: an owner mistypes an allowed origin (refused, the field named, the form keeps
what was typed, the file untouched), corrects it with a new greeting, the widget on a page
greets with it without a restart, and the audit shows who changed what, before and after
— with a German browser in German, with an English one in English."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import StartServer, new_context, sign_in, widget
from scripted_backend import ScriptedBackend
from test_console import _assert_fits
from test_widget_continuity import host_page, html_response

from frontdesk.console.passwords import hash_password
from frontdesk.store.db import transaction
from frontdesk.store.operators import OperatorRepository

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "img"
OWNER = "jana@tessellate.test"
PASSWORD = "correct horse battery"
NEW_GREETING = "Hello from Jana's team! Ask us anything about Tessellate."
# What the console says, by the browser's language.
WORDS = {
    "en-US": {
        "refused": "Not saved. Correct the fields below",
        "saved": "Saved: 2 settings changed",
        "changes": "Changes",
    },
    "de-DE": {
        "refused": "Nicht gespeichert. Korrigieren Sie die Felder unten",
        "saved": "Gespeichert: 2 Einstellungen geändert",
        "changes": "Änderungen",
    },
}


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_an_owner_edits_the_greeting_and_the_widget_greets_with_it_at_once(
    browser: Any, start_server: StartServer, sites_dir: Path, locale: str
) -> None:
    from playwright.sync_api import expect

    server = start_server(ScriptedBackend())
    with transaction(server.runtime.sessions) as session:
        operators = OperatorRepository(session)
        operators.grant(operators.ensure(OWNER, hash_password(PASSWORD)), "demo", "owner")
    site_file = sites_dir / "demo.yaml"
    before = site_file.read_bytes()

    words = WORDS[locale]
    screenshots = locale == "en-US"  # the docs show the English page
    operator = new_context(browser, (1280, 1000), locale)
    visitor = new_context(browser)
    try:
        console = operator.new_page()
        sign_in(console, server.url, OWNER, PASSWORD, "/console/sites/demo/settings")
        form = console.locator("#site-settings-form")
        expect(form).to_be_visible()

        # A bad value: refused, with the field named, and nothing typed is lost.
        form.locator('textarea[name="greeting.en"]').fill(NEW_GREETING)
        origins = form.locator('textarea[name="allowed_origins"]')
        typed_origins = origins.input_value() + "\nwww.tessellate.example"
        origins.fill(typed_origins)
        form.locator("#save-settings").click()
        errors = console.locator("#settings-errors")
        expect(errors).to_contain_text(words["refused"])
        expect(errors).to_contain_text("widget.allowed_origins")
        expect(errors).to_contain_text("www.tessellate.example")
        expect(console.locator('textarea[name="allowed_origins"]')).to_have_attribute(
            "aria-invalid", "true"
        )
        expect(console.locator('textarea[name="greeting.en"]')).to_have_value(NEW_GREETING)
        expect(console.locator('textarea[name="allowed_origins"]')).to_have_value(typed_origins)
        assert site_file.read_bytes() == before
        if screenshots:
            console.locator("#site-settings").screenshot(
                path=str(SCREENSHOTS / "console-settings-refused.png")
            )

        # Corrected: saved, and served without a restart.
        console.locator('textarea[name="allowed_origins"]').fill(
            typed_origins.replace("www.tessellate.example", "https://www.tessellate.example")
        )
        console.locator("#save-settings").click()
        expect(console.locator("#notice")).to_contain_text(words["saved"])
        changes = console.locator("#settings-changes")
        greeting_row = changes.locator("tr.settings-change", has_text="widget.greeting.en")
        expect(greeting_row).to_contain_text(OWNER)
        expect(greeting_row).to_contain_text(NEW_GREETING)
        expect(greeting_row.locator("td").nth(3)).to_have_text("—")  # before: none
        origins_row = changes.locator("tr.settings-change", has_text="widget.allowed_origins")
        expect(origins_row).to_contain_text("https://www.tessellate.example")
        expect(greeting_row.locator("td.when")).not_to_be_empty()
        expect(console.locator("#site-settings")).to_contain_text(words["changes"])
        if screenshots:
            console.locator("#site-settings").screenshot(
                path=str(SCREENSHOTS / "console-settings.png")
            )
        assert NEW_GREETING in site_file.read_text(encoding="utf-8")

        # The form fits a phone's width (wide tables scroll inside their card).
        phone = new_context(browser, (390, 844), locale)
        try:
            small = phone.new_page()
            sign_in(small, server.url, OWNER, PASSWORD, "/console/sites/demo/settings")
            expect(small.locator("#site-settings-form")).to_be_visible()
            _assert_fits(small, "settings", (390, 844))
        finally:
            phone.close()

        page = visitor.new_page()
        visitor.route(f"{server.url}/shop", html_response(host_page(server, "/shop")))
        page.goto(f"{server.url}/shop")
        widget(page, ".launcher").click()
        expect(widget(page, ".greeting")).to_contain_text(NEW_GREETING)
    finally:
        operator.close()
        visitor.close()

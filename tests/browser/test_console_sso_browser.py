"""The console's single sign-on button in headless Chromium: the browser goes to the
stand-in OpenID Connect provider on loopback and comes back signed in — or, for an
e-mail without an operator account, back on the sign-in page with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import write_sites
from live_server import LiveServer, free_port
from scripted_backend import ScriptedBackend

from frontdesk.api.app import create_app
from frontdesk.console.passwords import hash_password
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store.db import transaction
from frontdesk.store.operators import OperatorRepository

pytest.importorskip("authlib", reason="the `oidc` extra (Authlib) is not installed")

from tests.support.oidc_provider import OidcProvider

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "img"


@pytest.fixture
def sso_server(tmp_path: Path, sites_dir: Path) -> Iterator[tuple[str, OidcProvider]]:
    with OidcProvider() as provider:
        port = free_port()
        write_sites(sites_dir, f"http://127.0.0.1:{port}")
        settings = Settings(
            data_dir=tmp_path / "data",
            sites_dir=sites_dir,
            port=port,  # the address the server binds is its public one (no public URL)
            oidc_issuer=provider.url,
            oidc_client_id=provider.client_id,
            oidc_client_secret=provider.client_secret,
            oidc_button_label="Sign in with Acme SSO",
        )
        runtime = build_runtime(settings)
        with transaction(runtime.sessions) as session:
            operators = OperatorRepository(session)
            operators.grant(
                operators.ensure("owner@team.test", hash_password("x" * 12)), "demo", "owner"
            )
        live = LiveServer(create_app(settings, runtime, ScriptedBackend()), port).start()
        try:
            yield live.url, provider
        finally:
            live.stop()
            runtime.close()


def test_the_sign_on_button_signs_an_operator_in_through_the_provider(
    browser: Any, sso_server: tuple[str, OidcProvider]
) -> None:
    from playwright.sync_api import expect

    url, provider = sso_server
    for name, (width, height) in {"desktop": (1280, 800), "phone": (390, 844)}.items():
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            page.goto(f"{url}/console/sites/demo/leads")
            button = page.locator("#oidc-sign-in")
            expect(button).to_have_text("Sign in with Acme SSO")
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, f"the sign-in page overflows {width}px by {overflow}px"
            if name == "desktop":
                page.screenshot(path=str(SCREENSHOTS / "console-login-sso-desktop.png"))
            button.click()
            # Provider and back: the page the operator asked for, signed in.
            expect(page.locator("main h1")).to_have_text("Leads")
            assert page.url == f"{url}/console/sites/demo/leads"
            assert provider.token_requests, "the code was exchanged at the token endpoint"
        finally:
            context.close()


def test_an_email_without_an_account_comes_back_to_sign_in_with_the_reason(
    browser: Any, sso_server: tuple[str, OidcProvider]
) -> None:
    from playwright.sync_api import expect

    url, provider = sso_server
    provider.user.email = "stranger@team.test"
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{url}/console/login")
        page.locator("#oidc-sign-in").click()
        expect(page.locator("p.error")).to_contain_text(
            "stranger@team.test has no operator account here"
        )
        expect(page.locator("h1")).to_have_text("Sign in")
        page.goto(f"{url}/console/sites/demo/inbox")
        expect(page.locator("h1")).to_have_text("Sign in")  # no session was opened
    finally:
        context.close()

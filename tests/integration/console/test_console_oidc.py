"""Console sign-in with OpenID Connect against a stand-in provider on loopback
(`tests/support/oidc_provider.py`: discovery, JWKS, authorize, token with RS256 ID tokens).

What must hold: a verified e-mail of an existing operator signs in (PKCE and the client
secret checked by the provider); a bad signature, another audience, another nonce or
another state is refused with a message saying which; an e-mail without an operator
account is refused and no account is created; nothing signs anyone in on refusal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from console_support import Console, add_operator
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from frontdesk.api.app import create_app
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from frontdesk.store.models import Operator

pytest.importorskip("authlib", reason="the `oidc` extra (Authlib) is not installed")

from tests.support.oidc_provider import OidcProvider

pytestmark = pytest.mark.integration


@pytest.fixture
def provider() -> Iterator[OidcProvider]:
    with OidcProvider() as running:
        yield running


@contextmanager
def running_sso_console(
    tmp_path: Path, sites_dir: Path, provider: OidcProvider, **more: Any
) -> Iterator[Console]:
    from api_support import write_sites
    from scripted_backend import ScriptedBackend

    write_sites(sites_dir)
    settings = Settings(
        data_dir=tmp_path / "sso-data",
        sites_dir=sites_dir,
        oidc_issuer=provider.url,
        oidc_client_id=provider.client_id,
        oidc_client_secret=provider.client_secret,
        oidc_allowed_domains="team.test, acme.test",
        **more,
    )
    runtime = build_runtime(settings)
    app = create_app(settings, runtime, ScriptedBackend())
    try:
        with TestClient(app, raise_server_exceptions=False) as live:
            add_operator(runtime, "owner@team.test", {"demo": "owner"})
            yield Console(app=app, runtime=runtime, settings=settings, live=live)
    finally:
        runtime.close()


@pytest.fixture
def sso_console(tmp_path: Path, sites_dir: Path, provider: OidcProvider) -> Iterator[Console]:
    """No FRONTDESK_PUBLIC_URL: the server's own address (127.0.0.1:8000) is public."""
    with running_sso_console(tmp_path, sites_dir, provider) as console:
        yield console


def sign_in_with_provider(
    client: TestClient, next_url: str = "/console", host: str | None = None
) -> httpx.Response:
    """The browser's three hops: our redirect, the provider's, our callback (each of ours
    with the Host header `host` when given)."""
    headers = {"host": host} if host else {}
    start = client.get(
        "/console/login/oidc", params={"next": next_url}, headers=headers, follow_redirects=False
    )
    assert start.status_code == 303, start.text
    at_provider = httpx.get(start.headers["location"], follow_redirects=False)
    assert at_provider.status_code == 302, at_provider.text
    back = urlsplit(at_provider.headers["location"])
    assert back.path == "/console/login/oidc/callback"
    return client.get(f"{back.path}?{back.query}", headers=headers, follow_redirects=False)


def operators(console: Console) -> int:
    with console.runtime.sessions() as session:
        return int(session.scalar(select(func.count()).select_from(Operator)) or 0)


def test_the_sign_in_page_offers_the_provider_only_when_configured(
    sso_console: Console, console_app: Console
) -> None:
    assert 'id="oidc-sign-in"' in sso_console.client().get("/console/login").text
    plain = console_app.client()
    assert 'id="oidc-sign-in"' not in plain.get("/console/login").text
    refused = plain.get("/console/login/oidc", follow_redirects=False)
    assert refused.status_code == 404 and "not set up" in refused.text


def test_a_verified_operator_signs_in_with_pkce_and_the_client_secret(
    sso_console: Console, provider: OidcProvider
) -> None:
    client = sso_console.client()
    done = sign_in_with_provider(client, "/console/sites/demo/leads")
    assert done.status_code == 303, done.text
    assert done.headers["location"] == "/console/sites/demo/leads"
    assert "fd_console=" in done.headers["set-cookie"]
    assert client.get("/console/sites/demo/leads").status_code == 200
    asked = provider.authorize_requests[-1]
    assert asked["code_challenge_method"] == "S256" and len(asked["code_challenge"]) == 43
    assert asked["scope"] == "openid email profile" and asked["nonce"] and asked["state"]
    sent = provider.token_requests[-1]
    assert sent["code_verifier"] and sent["authorization"].startswith("Basic ")
    # The flow's cookie is gone: the same callback cannot be replayed.
    assert client.get("/console/login/oidc/callback?code=x&state=y").status_code == 400


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("bad_signature", "signature does not match the provider"),
        ("wrong_audience", "issued for another application (wrong audience)"),
        ("wrong_nonce", "does not answer this sign-in (nonce mismatch)"),
        ("wrong_state", "does not belong to this browser"),
    ],
)
def test_a_forged_or_misdirected_answer_is_refused(
    sso_console: Console, provider: OidcProvider, fault: Any, message: str
) -> None:
    provider.fault = fault
    client = sso_console.client()
    done = sign_in_with_provider(client)
    assert done.status_code == 403, done.text
    assert message in done.text
    assert "fd_console=" not in done.headers.get("set-cookie", "")
    assert client.get("/console/sites/demo/inbox", follow_redirects=False).status_code == 303


def test_an_email_without_an_operator_account_is_refused_and_not_created(
    sso_console: Console, provider: OidcProvider
) -> None:
    before = operators(sso_console)
    provider.user.email = "newcomer@team.test"
    client = sso_console.client()
    done = sign_in_with_provider(client)
    assert done.status_code == 403
    assert "newcomer@team.test has no operator account here" in done.text
    assert operators(sso_console) == before  # never auto-created, let alone as owner
    assert client.get("/console", follow_redirects=False).headers["location"] == "/console/login"


def test_unverified_emails_and_other_domains_are_refused(
    sso_console: Console, provider: OidcProvider
) -> None:
    provider.user.email_verified = False
    done = sign_in_with_provider(sso_console.client())
    assert done.status_code == 403 and "has not verified owner@team.test" in done.text
    add_operator(sso_console.runtime, "kim@elsewhere.test", {"demo": "agent"})
    provider.user.email_verified = True
    provider.user.email = "kim@elsewhere.test"  # an operator, but not an allowed domain
    done = sign_in_with_provider(sso_console.client())
    assert done.status_code == 403 and "elsewhere.test may not sign in" in done.text


def test_a_provider_error_or_a_callback_without_the_flow_is_explained(
    sso_console: Console,
) -> None:
    client = sso_console.client()
    start = client.get("/console/login/oidc", follow_redirects=False)
    state = parse_qs(urlsplit(start.headers["location"]).query)["state"][0]
    denied = client.get(
        "/console/login/oidc/callback",
        params={"error": "access_denied", "error_description": "User cancelled", "state": state},
    )
    assert denied.status_code == 403
    assert "did not sign you in (access_denied: User cancelled)" in denied.text
    stranger = sso_console.client()  # never started a sign-in: no flow cookie
    orphan = stranger.get("/console/login/oidc/callback?code=abc&state=def")
    assert orphan.status_code == 400 and "not started in this browser" in orphan.text


def test_an_unreachable_provider_is_a_clear_error(
    sso_console: Console, provider: OidcProvider
) -> None:
    provider.stop()
    response = sso_console.client().get("/console/login/oidc", follow_redirects=False)
    assert response.status_code == 503
    assert "Could not read the identity provider&#39;s discovery document" in response.text


CALLBACK = "/console/login/oidc/callback"


def test_the_callback_address_never_comes_from_the_host_header(
    sso_console: Console, provider: OidcProvider
) -> None:
    """An attacker who sends `Host: evil.example` would have the provider return the
    sign-in code to their server; the callback is the server's public address instead."""
    done = sign_in_with_provider(sso_console.client(), host="evil.example")
    assert done.status_code == 303, done.text
    redirect_uri = provider.authorize_requests[-1]["redirect_uri"]
    assert redirect_uri == sso_console.settings.public_base_url + CALLBACK
    assert redirect_uri == "http://127.0.0.1:8000" + CALLBACK
    assert provider.token_requests[-1]["redirect_uri"] == redirect_uri
    assert not any("evil.example" in str(r) for r in provider.authorize_requests)


def test_the_callback_address_is_the_public_url_when_set(
    tmp_path: Path, sites_dir: Path, provider: OidcProvider
) -> None:
    public = "https://chat.acme.example"
    with running_sso_console(tmp_path, sites_dir, provider, public_url=public + "/") as console:
        start = console.client().get(
            "/console/login/oidc", headers={"host": "evil.example"}, follow_redirects=False
        )
    assert start.status_code == 303, start.text
    sent = parse_qs(urlsplit(start.headers["location"]).query)["redirect_uri"]
    assert sent == [public + CALLBACK]


def test_a_server_on_every_interface_without_a_public_url_says_what_to_set(
    tmp_path: Path, sites_dir: Path, provider: OidcProvider
) -> None:
    """Bound to 0.0.0.0 the server has no single address to name: SSO asks for
    FRONTDESK_PUBLIC_URL instead of trusting the Host header."""
    with running_sso_console(tmp_path, sites_dir, provider, host="0.0.0.0") as console:
        client = console.client()
        refused = client.get(
            "/console/login/oidc", headers={"host": "evil.example"}, follow_redirects=False
        )
        assert refused.status_code == 503
        assert "set FRONTDESK_PUBLIC_URL" in refused.text
        assert not provider.authorize_requests  # never sent to the provider

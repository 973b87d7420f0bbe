"""Single sign-on's pure parts: when it is on, the callback address, and the flow cookie
(tampered or foreign cookies read as "no sign-in started", never as an error)."""

from __future__ import annotations

import base64

import pytest

from frontdesk.console.oidc import OidcConfig, OidcUnavailable, PendingSignIn
from frontdesk.settings import Settings


def test_off_unless_issuer_and_client_id_are_both_set() -> None:
    assert OidcConfig.from_settings(Settings(oidc_issuer="https://id.example")) is None
    assert OidcConfig.from_settings(Settings(oidc_client_id="console")) is None
    config = OidcConfig.from_settings(
        Settings(
            oidc_issuer="https://id.example/realms/acme/",
            oidc_client_id=" console ",
            oidc_allowed_domains=" Acme.example, @team.example ,,",
        )
    )
    assert config is not None
    assert config.issuer == "https://id.example/realms/acme"
    assert config.discovery_url == "https://id.example/realms/acme/.well-known/openid-configuration"
    assert config.client_id == "console" and config.client_secret == ""
    assert config.allowed_domains == ("acme.example", "team.example")


def test_the_callback_address_is_the_setting_else_the_public_base_url() -> None:
    config = OidcConfig.from_settings(
        Settings(oidc_issuer="https://id.example", oidc_client_id="c")
    )
    assert config is not None
    callback = "/console/login/oidc/callback"
    assert config.callback_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000" + callback
    assert config.callback_url("https://chat.acme.example/") == (
        "https://chat.acme.example" + callback
    )
    with pytest.raises(OidcUnavailable, match="set FRONTDESK_PUBLIC_URL"):
        config.callback_url("")  # bound to every interface: no address to name
    fixed = OidcConfig.from_settings(
        Settings(
            oidc_issuer="https://id.example",
            oidc_client_id="c",
            oidc_redirect_url="https://sso.acme.example/cb",
        )
    )
    assert fixed is not None and fixed.callback_url("") == "https://sso.acme.example/cb"


def test_the_flow_cookie_round_trips_and_garbage_reads_as_none() -> None:
    pending = PendingSignIn.start("/console/sites/demo/leads")
    assert len(pending.code_verifier) >= 43 and pending.state != pending.nonce
    assert PendingSignIn.from_cookie(pending.to_cookie()) == pending
    for garbage in (None, "", "not base64 !", base64.urlsafe_b64encode(b"[1, 2]").decode()):
        assert PendingSignIn.from_cookie(garbage) is None
    wrong_types = base64.urlsafe_b64encode(b'["s", "n", "v", 5]').decode()
    assert PendingSignIn.from_cookie(wrong_types) is None

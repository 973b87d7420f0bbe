"""What the widget shows first and who it trusts: pure functions, plain values."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from frontdesk.api.identity import sign_user_id, verify_identity
from frontdesk.api.schemas import IdentityClaim
from frontdesk.settings import DEMO_DIR
from frontdesk.sites.schema import SiteConfig
from frontdesk.widget.first_impression import greeting, suggestions, widget_settings

pytestmark = pytest.mark.unit


def site(**widget: Any) -> SiteConfig:
    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["widget"].update(widget)
    raw["name"] = "Northwind Clinic"
    raw["starter_questions"] = {"en": ["How do I book?", "Where are you?", "Hours?", "Parking?"]}
    return SiteConfig.model_validate(raw)


def test_greeting_is_the_sites_own_else_a_default_naming_the_site_in_that_language() -> None:
    config = site(greeting={"en": "Welcome to the clinic."})
    assert greeting(config, "en") == "Welcome to the clinic."
    assert greeting(config, "de").startswith("Hallo! Ich bin der Assistent von Northwind Clinic")
    assert "Northwind Clinic" in greeting(site(), "en")


def test_the_default_greeting_speaks_in_the_sites_register() -> None:
    formal, informal = site(), site().model_copy(update={"tone": "informal"})
    assert "Fragen Sie mich" in greeting(formal, "de")
    assert "Frag mich" in greeting(informal, "de")
    assert "Posez votre question" in greeting(formal, "fr")
    assert "Pose ta question" in greeting(informal, "fr")
    assert greeting(formal, "en") == greeting(informal, "en")  # English has one register


def test_suggestions_come_from_the_site_file_else_from_question_titles() -> None:
    config = site()
    assert suggestions(config, "en", ["ignored"]) == ["How do I book?", "Where are you?", "Hours?"]
    titles = ["Opening hours: Overview", "Can I park on site?", "x", "FAQ", "Referrals"]
    # A page's name is never dressed up as a question ("Tell me about « FAQ »").
    assert suggestions(config, "fr", titles) == []
    assert suggestions(config, "de", [*titles, "Wie lange dauert eine Reparatur?"]) == [
        "Wie lange dauert eine Reparatur?"
    ]
    assert suggestions(config.model_copy(update={"starter_questions": {}}), "en", titles) == [
        "Can I park on site?"
    ]
    assert suggestions(config, "ru", []) == []


def test_settings_carry_the_real_limit_the_expiry_and_the_rules() -> None:
    rule = {"id": "pricing", "message": {"en": "Plans?"}, "delay_s": 5, "url_patterns": ["/p*"]}
    settings = widget_settings(site(session_ttl_hours=2, proactive=[rule]), [])
    assert settings["limits"]["max_message_chars"] == 15_000
    assert settings["session"]["ttl_hours"] == 2
    assert settings["proactive"] == [{**rule, "once_per_visitor": True}]
    assert set(settings["greeting"]) == {"en", "ru", "fr", "de", "es", "it", "pt", "nl"}
    assert settings["identity"] == {"enabled": False}


@pytest.mark.parametrize(
    "bad",
    [
        {"id": "Bad Id", "message": {"en": "x"}},
        {"id": "ok", "message": {}},
        {"id": "ok", "message": {"en": ""}},
        {"id": "ok", "message": {"en": "x"}, "delay_s": -1},
    ],
)
def test_a_wrong_proactive_rule_is_refused_at_start_up(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        site(proactive=[bad])


def test_only_a_correctly_signed_identity_is_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    config = site(identity_secret_env="NORTHWIND_IDENTITY_SECRET")
    claim = {"user_id": "u-1", "email": "ann@example.org", "name": "Ann"}
    # No secret set yet: even a "signed" identity is ignored.
    assert verify_identity(config, IdentityClaim(**claim, user_hash="ab" * 32)) is None
    monkeypatch.setenv("NORTHWIND_IDENTITY_SECRET", "s3cret")
    good = sign_user_id("s3cret", "u-1")
    verified = verify_identity(config, IdentityClaim(**claim, user_hash=good.upper()))
    assert verified is not None and verified.as_dict() == {
        "user_id": "u-1",
        "email": "ann@example.org",
        "name": "Ann",
        "verified": True,
    }
    assert verify_identity(config, IdentityClaim(**claim)) is None  # unsigned
    other_user = sign_user_id("s3cret", "u-2")
    assert verify_identity(config, IdentityClaim(**claim, user_hash=other_user)) is None
    wrong_key = sign_user_id("another", "u-1")
    assert verify_identity(config, IdentityClaim(**claim, user_hash=wrong_key)) is None
    assert verify_identity(config, None) is None
    # A malformed email is dropped, the verified user id stays.
    odd_claim = IdentityClaim(user_id="u-1", email="not an email", user_hash=good)
    odd = verify_identity(config, odd_claim)
    assert odd is not None and odd.email is None

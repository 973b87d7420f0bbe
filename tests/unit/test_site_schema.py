import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from frontdesk.settings import DEMO_DIR
from frontdesk.sites.registry import SiteConfigError, load_site_file, load_sites
from frontdesk.sites.schema import SiteConfig

pytestmark = pytest.mark.unit

DEMO_FILE = DEMO_DIR / "sites" / "demo.yaml"


def demo_raw() -> dict[str, Any]:
    raw: dict[str, Any] = yaml.safe_load(DEMO_FILE.read_text(encoding="utf-8"))
    return raw


def write_site(folder: Path, raw: dict[str, Any], name: str | None = None) -> Path:
    path = folder / f"{name or raw.get('id', 'site')}.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return path


def test_demo_site_is_valid() -> None:
    site = load_site_file(DEMO_FILE)
    assert site.config.id == "demo"
    assert set(site.config.languages) >= {"en", "ru"}
    assert site.config.business_hours.timezone == "Europe/Berlin"


def test_proactive_threshold_defaults_to_relevance_plus_ten_points() -> None:
    config = SiteConfig.model_validate(demo_raw())
    assert config.knowledge.relevance_threshold is not None
    assert config.knowledge.effective_proactive_threshold == pytest.approx(
        config.knowledge.relevance_threshold + 0.10
    )


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: r["business_hours"].pop("timezone"), "business_hours.timezone"),
        (lambda r: r["business_hours"].update(timezone="Mars/Olympus"), "business_hours.timezone"),
        (lambda r: r["business_hours"].update(start="18:00", end="09:00"), "business_hours"),
        (lambda r: r["business_hours"].update(days=["mon", "funday"]), "business_hours.days"),
        (lambda r: r["business_hours"].update(days=[]), "business_hours.days"),
        (lambda r: r["knowledge"].update(relevance_threshold=1.7), "knowledge.relevance_threshold"),
        (lambda r: r["knowledge"].update(top_k=0), "knowledge.top_k"),
        (lambda r: r.update(default_language="sv"), "default_language"),
        (lambda r: r["widget"].update(allowed_origins=["example.com"]), "widget.allowed_origins"),
        (lambda r: r.update(surprise="typo"), "surprise"),
    ],
)
def test_invalid_site_names_file_and_field(tmp_path: Path, mutate: Any, field: str) -> None:
    raw = demo_raw()
    mutate(raw)
    path = write_site(tmp_path, raw)
    with pytest.raises(SiteConfigError) as info:
        load_site_file(path)
    message = str(info.value)
    assert str(path) in message
    assert field in message


@pytest.mark.parametrize(
    ("timezone", "message"),
    [
        ("", "timezone is required: an IANA key such as Europe/Berlin"),
        ("   ", "timezone is required: an IANA key such as Europe/Berlin"),
        ("Mars/Olympus", "unknown IANA timezone 'Mars/Olympus'"),
    ],
)
def test_site_timezone_errors_match_the_team_hours(timezone: str, message: str) -> None:
    """The site file and the team's hours reject a timezone with the same words."""
    from pydantic import ValidationError

    from frontdesk.leads.hours import BusinessHours

    raw = demo_raw()
    raw["business_hours"] = {"timezone": timezone}
    with pytest.raises(ValidationError, match=re.escape(message)):
        SiteConfig.model_validate(raw)
    with pytest.raises(ValidationError, match=re.escape(message)):
        BusinessHours.model_validate({"timezone": timezone})


def test_business_days_default_to_weekdays_and_a_site_may_open_on_weekends() -> None:
    from datetime import UTC, datetime

    from frontdesk.leads.hours import is_business_hours

    saturday_noon = datetime(2026, 11, 28, 11, 0, tzinfo=UTC)  # 12:00 in Berlin
    raw = demo_raw()
    raw["business_hours"] = {"timezone": "Europe/Berlin"}
    weekdays = SiteConfig.model_validate(raw).business_hours
    assert weekdays.hours().weekdays == frozenset(range(5))
    assert not is_business_hours(saturday_noon, weekdays.hours())
    raw["business_hours"]["days"] = ["tue", "sat"]
    shop = SiteConfig.model_validate(raw).business_hours
    assert shop.hours().weekdays == frozenset({1, 5})
    assert is_business_hours(saturday_noon, shop.hours())


@pytest.mark.parametrize("bad_id", ["Demo", "-demo", "demo_site", "a" * 64, "", "demo site"])
def test_site_id_must_be_a_slug(bad_id: str) -> None:
    raw = demo_raw()
    raw["id"] = bad_id
    with pytest.raises(ValueError, match="id"):
        SiteConfig.model_validate(raw)


def test_file_name_must_match_id(tmp_path: Path) -> None:
    path = write_site(tmp_path, demo_raw(), name="other")
    with pytest.raises(SiteConfigError, match=r"file name must be 'demo\.yaml'"):
        load_site_file(path)


def test_broken_yaml_is_reported_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text("id: demo\nname: [unclosed\n", encoding="utf-8")
    with pytest.raises(SiteConfigError, match="not valid YAML"):
        load_site_file(path)


def test_two_sites_cannot_share_a_widget_key(tmp_path: Path) -> None:
    first = demo_raw()
    second = demo_raw()
    second["id"] = "other"
    write_site(tmp_path, first)
    write_site(tmp_path, second)
    with pytest.raises(SiteConfigError, match=r"widget\.public_key"):
        load_sites(tmp_path)


def test_a_site_words_its_own_sales_moments_and_the_catalog_stays_neutral() -> None:
    from frontdesk.conversation.texts import TEXTS, say

    site = SiteConfig.model_validate(demo_raw())
    demo_offer = say("skill.propose_demo", "en", overrides=site.texts, site=site.name)
    assert "book a short demo" in demo_offer  # the demo keeps its copy, from its file
    # The product's own catalog names no demo, case study or sales pitch.
    for key in ("skill.propose_demo", "skill.collect_email", "handoff.stall", "booking.ask_email"):
        for text in TEXTS[key].values():
            assert not re.search(r"demo|case stud|кейс|work email|workflows", text, re.I), text
    # A site that words only English still answers a French visitor in French.
    english_only = {"skill.propose_demo": {"en": "Ride with us! 👇"}}
    assert (
        say("skill.propose_demo", "fr", overrides=english_only) == TEXTS["skill.propose_demo"]["fr"]
    )
    assert say("skill.propose_demo", "nl", overrides={"skill.propose_demo": {"en": "Hi 👇"}}) != (
        "Hi 👇"
    )


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        ({"skill.propose_dmeo": {"en": "Book 👇"}}, "unknown text 'skill.propose_dmeo'"),
        ({"booking.ask_email": {"en": "Hi {name}"}}, "booking.ask_email.en uses {name}"),
    ],
)
def test_site_texts_with_unknown_keys_or_placeholders_fail_to_load(
    tmp_path: Path, texts: dict[str, dict[str, str]], message: str
) -> None:
    raw = {**demo_raw(), "texts": texts}
    with pytest.raises(SiteConfigError) as error:
        load_site_file(write_site(tmp_path, raw, "demo"))
    assert message in str(error.value)


def test_pricing_reply_falls_back_to_english_and_defaults_to_none() -> None:
    site = SiteConfig.model_validate(demo_raw())
    assert site.pricing_reply_in("ru").startswith("Стоимость")
    bare = SiteConfig.model_validate({**demo_raw(), "pricing_reply": {"en": "Ask us."}})
    assert bare.pricing_reply_in("de") == "Ask us."
    neutral = {k: v for k, v in demo_raw().items() if k not in ("pricing_reply", "texts")}
    assert SiteConfig.model_validate(neutral).pricing_reply_in("en") == ""


def test_the_contact_a_handoff_asks_for_is_the_sites_choice() -> None:
    from pydantic import ValidationError

    assert SiteConfig.model_validate(demo_raw()).handoff.contact == "email"  # the default
    for way in ("email", "phone", "either"):
        raw = demo_raw()
        raw["handoff"]["contact"] = way
        assert SiteConfig.model_validate(raw).handoff.contact == way
    raw = demo_raw()
    raw["handoff"]["contact"] = "fax"
    with pytest.raises(ValidationError, match="contact"):
        SiteConfig.model_validate(raw)
    raw = demo_raw()
    raw["handoff"]["contact_wait_seconds"] = -1
    with pytest.raises(ValidationError, match="contact_wait_seconds"):
        SiteConfig.model_validate(raw)

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

"""The `frontdesk` command line, run as a user would run it."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from frontdesk.settings import DEMO_DIR

pytestmark = pytest.mark.integration


def run_cli(*args: str, env_data: Path) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "FRONTDESK_DATA_DIR": str(env_data), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "frontdesk", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_validate_passes_on_the_demo_site(tmp_path: Path) -> None:
    result = run_cli("sites", "validate", env_data=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "demo" in result.stdout


def test_validate_names_the_field_of_a_broken_copy(tmp_path: Path) -> None:
    broken = tmp_path / "demo.yaml"
    shutil.copy(DEMO_DIR / "sites" / "demo.yaml", broken)
    broken.write_text(broken.read_text().replace("timezone: Europe/Berlin", "timezone: Nowhere/X"))
    result = run_cli("sites", "validate", str(broken), env_data=tmp_path)
    assert result.returncode == 1
    assert "business_hours.timezone" in result.stderr
    assert "Nowhere/X" in result.stderr


def test_validate_shows_the_weekly_schedule_and_warns_on_suspicious_ranges(
    tmp_path: Path,
) -> None:
    import yaml

    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["business_hours"] = {
        "timezone": "Europe/Berlin",
        "weekly": {
            "tue-fri": ["09:30-13:00", "14:00-18:30"],
            "sat": ["10:00-14:00", "13:00-15:00"],
            "sun": ["18:00-01:00"],
        },
        "holidays": "DE-SN",
        "closed": ["2026-12-24", "2026-12-31"],
    }
    shop = tmp_path / "demo.yaml"
    shop.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    result = run_cli("sites", "validate", str(shop), env_data=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    assert ["tue-fri", "09:30-13:00,", "14:00-18:30"] in lines
    assert ["mon", "closed"] in lines and ["sat", "10:00-15:00"] in lines
    assert ["closed", "2026-12-24,", "2026-12-31"] in lines
    assert "sat: 10:00-14:00 and 13:00-15:00 overlap" in result.stderr
    assert "sun: 18:00-01:00 ends before it starts" in result.stderr


def test_validate_reports_the_tone_and_own_texts_in_the_other_register(tmp_path: Path) -> None:
    import yaml

    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    assert raw["tone"] == "formal"
    del raw["tone"]  # the default
    site = tmp_path / "demo.yaml"
    site.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    result = run_cli("sites", "validate", str(site), env_data=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Tone: formal (Sie, vous" in result.stdout
    assert "addresses visitors" not in result.stderr

    raw["tone"] = "informal"  # the demo's own texts say "Sie": each one is named
    site.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    result = run_cli("sites", "validate", str(site), env_data=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Tone: informal (du, tu" in result.stdout
    assert "pricing_reply.de addresses visitors formally, but tone is informal" in " ".join(
        result.stderr.split()
    )

    raw["tone"] = "casual"
    site.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    result = run_cli("sites", "validate", str(site), env_data=tmp_path)
    assert result.returncode == 1
    assert "tone" in result.stderr and "formal" in result.stderr


def test_db_upgrade_creates_the_database(tmp_path: Path) -> None:
    result = run_cli("db", "upgrade", env_data=tmp_path / "d")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "d" / "frontdesk.db").exists()


def test_help_is_available_for_every_command(tmp_path: Path) -> None:
    for args in (
        ["--help"],
        ["serve", "--help"],
        ["sites", "validate", "--help"],
        ["db", "upgrade", "--help"],
        ["demo", "--help"],
    ):
        result = run_cli(*args, env_data=tmp_path)
        assert result.returncode == 0, (args, result.stderr)
        assert "Usage" in result.stdout

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

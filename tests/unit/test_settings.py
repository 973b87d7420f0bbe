from pathlib import Path

import pytest

from frontdesk.settings import Settings

pytestmark = pytest.mark.unit


def test_defaults_put_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert settings.database_url == f"sqlite:///{tmp_path / 'frontdesk.db'}"
    assert settings.port == 8000
    assert settings.engine == "local"


def test_environment_overrides_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTDESK_PORT", "9123")
    monkeypatch.setenv("FRONTDESK_LOG_LEVEL", "DEBUG")
    settings = Settings()
    assert settings.port == 9123
    assert settings.log_level == "DEBUG"


def test_explicit_value_beats_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTDESK_PORT", "9123")
    monkeypatch.setenv("FRONTDESK_DATABASE_URL", "postgresql://env/db")
    settings = Settings(port=7000, database_url="sqlite:///explicit.db")
    assert settings.port == 7000
    assert settings.database_url == "sqlite:///explicit.db"


def test_invalid_environment_value_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTDESK_PORT", "not-a-port")
    with pytest.raises(ValueError, match="port"):
        Settings()

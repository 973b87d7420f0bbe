"""The PostgreSQL + pgvector tests skip on a machine without pgvector, and fail under CI.

A CI run that skipped them would pass without ever exercising the production search path
(as it did where a prebuilt pgvector died with SIGILL on the machine's CPU)."""

from __future__ import annotations

import pytest

from tests.integration.production import conftest

pytestmark = pytest.mark.unit

MISSING = "pgvector is not installed in the PostgreSQL on 127.0.0.1:5432: run `make pgvector`"


def test_a_missing_pgvector_fails_the_run_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "_pgvector_unusable", lambda: MISSING)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"make pgvector.*must run"):
        conftest.require_pgvector()


def test_a_missing_pgvector_skips_with_what_to_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "_pgvector_unusable", lambda: MISSING)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="make pgvector"):
        conftest.require_pgvector()


def test_a_working_pgvector_gives_the_admin_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "_pgvector_unusable", lambda: None)
    monkeypatch.setenv("CI", "true")
    assert conftest.require_pgvector() == conftest.PG_ADMIN

"""Real loopback receivers (HTTP for Slack/webhooks, aiosmtpd for email), a site wired to
them, and a runtime over a throwaway SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from handoff_support import MakeHandoff, acme_yaml

from frontdesk.handoff.outbox import enqueue_handoff
from frontdesk.handoff.packets import HandoffRequest
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.store.db import transaction
from frontdesk.store.models import Handoff
from tests.conftest import stack_of
from tests.support.loopback import HttpReceiver, SmtpReceiver


@pytest.fixture
def http() -> Iterator[HttpReceiver]:
    with HttpReceiver(slow_s=1.0) as receiver:
        yield receiver


@pytest.fixture
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture
def acme_sites(tmp_path: Path, http: HttpReceiver) -> Path:
    folder = tmp_path / "acme-sites"
    folder.mkdir()
    (folder / "acme.yaml").write_text(acme_yaml(http), encoding="utf-8")
    return folder


@pytest.fixture
def acme_settings(tmp_path: Path, acme_sites: Path, smtp: SmtpReceiver) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        sites_dir=acme_sites,
        smtp_host="127.0.0.1",
        smtp_port=smtp.port,
        smtp_from="frontdesk@acme.test",
        smtp_timeout_s=5,
        handoff_http_timeout_s=0.3,
        dispatcher_poll_s=0.02,
    )


@pytest.fixture
def acme_workers(
    request: pytest.FixtureRequest, acme_settings: Settings
) -> Iterator[list[Runtime]]:
    """One runtime per worker of the test's `stack` (tests/conftest.py): one on the
    embedded default, two sharing PostgreSQL and Redis on the production stack."""
    runtimes = [build_runtime(w) for w in stack_of(request).worker_settings(acme_settings)]
    yield runtimes
    for runtime in runtimes:
        runtime.close()


@pytest.fixture
def acme(acme_workers: list[Runtime]) -> Runtime:
    return acme_workers[0]


@pytest.fixture
def make_handoff(acme: Runtime) -> MakeHandoff:
    """Write a handoff and its outbox rows as a finished turn would; returns its id."""
    counter = iter(range(1, 10_000))

    def make(
        session_id: str = "sess-1",
        reason: str = "hot_lead",
        level: str = "hot",
        email: str | None = "ana@northwind.io",
        business_hours: bool = True,
        runtime: Runtime | None = None,
    ) -> str:
        rt = runtime or acme
        values: dict[str, Any] = {
            "qualification": {"problem_fit": "confirmed", "authority_fit": "confirmed"},
            "visitor_profile": {"email": email, "company_name": "Northwind"},
        }
        with transaction(rt.sessions) as session:
            row: Handoff = enqueue_handoff(
                session,
                HandoffRequest(
                    site=rt.site("acme").config,
                    session_id=session_id,
                    turn=next(counter),
                    handoff={
                        "reason": reason,
                        "lead_level": level,
                        "business_hours": business_hours,
                    },
                    values=values,
                    message="I'd like to talk to sales",
                    language="en",
                ),
            )
            return row.id

    return make

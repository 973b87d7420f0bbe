"""A handoff asked for on the shop's lunch break promises the afternoon's reopening, and the
CRM task is due then: the promise and the packet read the same opening hours."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from sqlalchemy import select

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.store.models import Handoff

pytestmark = pytest.mark.integration

SHOP_HOURS = {
    "timezone": "Europe/Berlin",
    "weekly": {"tue-fri": ["09:30-13:00", "14:00-18:30"], "sat": ["10:00-14:00"]},
    "holidays": "DE-SN",
    "closed": ["2026-12-24", "2026-12-31"],
}


@pytest.fixture
async def chat(ingested_demo: Settings, tmp_path: Path) -> AsyncIterator[ChatService]:
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    raw["business_hours"] = SHOP_HOURS
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "demo.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    service = ChatService(build_runtime(Settings(data_dir=data, sites_dir=sites)))
    yield service
    await service.close()
    service.runtime.close()


@pytest.mark.parametrize(
    ("language", "message", "promise"),
    [
        ("en", "Can I speak to someone?", "back today at 14:00"),
        ("de", "Kann ich bitte mit einem Menschen sprechen?", "ab heute um 14:00 wieder da"),
    ],
)
async def test_a_handoff_on_the_lunch_break_promises_the_afternoon_reopening(
    chat: ChatService, language: str, message: str, promise: str
) -> None:
    # Tuesday 8 December 2026, 12:30 UTC = 13:30 in Berlin: closed for lunch until 14:00.
    chat.clock = lambda: datetime(2026, 12, 8, 12, 30, tzinfo=UTC)
    session = f"lunch-{language}"
    site = chat.runtime.site("demo")
    result = await chat.ask(site, session, message, VisitorContext())

    assert result.route == "HANDOFF" and result.handoff is not None
    assert promise in result.answer
    with chat.runtime.sessions() as db:
        (handoff,) = db.scalars(select(Handoff).where(Handoff.session_id == session))
    assert handoff.business_hours is False
    assert handoff.packet["follow_up_due"] == "2026-12-08T13:00:00+00:00"  # 14:00 in Berlin

"""A real Radicale CalDAV server on loopback for every appointment test, and the chat of a
site booking into it (invitations on a loopback SMTP receiver)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from frontdesk.conversation.service import ChatService
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from tests.integration.appointments.chat_support import NOW, PAGE, SITE
from tests.support.loopback import SmtpReceiver
from tests.support.radicale_server import PASSWORD, USER, RadicaleServer


@pytest.fixture
def radicale(tmp_path: Path) -> Iterator[RadicaleServer]:
    server = RadicaleServer(tmp_path / "radicale").start()
    yield server
    server.stop()


@pytest.fixture
def smtp() -> Iterator[SmtpReceiver]:
    with SmtpReceiver() as receiver:
        yield receiver


@pytest.fixture
def tone() -> str:
    return "formal"


@pytest.fixture
def calendar_extra() -> str:
    """More keys of the site's `calendar` section (YAML, indented two spaces)."""
    return ""


@pytest.fixture
async def chat(
    radicale: RadicaleServer,
    smtp: SmtpReceiver,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tone: str,
    calendar_extra: str,
) -> AsyncIterator[ChatService]:
    monkeypatch.setenv("WERKSTATT_CALDAV_PASSWORD", PASSWORD)
    sites = tmp_path / "sites"
    (sites / "kb").mkdir(parents=True)
    text = SITE.format(url=radicale.calendar_url, user=USER) + calendar_extra
    (sites / "werkstatt.yaml").write_text(text + f"tone: {tone}\n", encoding="utf-8")
    (sites / "kb" / "about.md").write_text(PAGE, encoding="utf-8")
    settings = Settings(
        data_dir=tmp_path / "data",
        sites_dir=sites,
        smtp_host="127.0.0.1",
        smtp_port=smtp.port,
        smtp_from="frontdesk@radwerk.example",
        public_url="http://127.0.0.1:8000",
    )
    runtime = build_runtime(settings)
    site = runtime.site("werkstatt")
    KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
    service = ChatService(runtime)
    service.clock = lambda: NOW
    yield service
    await service.close()
    runtime.close()

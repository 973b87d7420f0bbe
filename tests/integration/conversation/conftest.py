"""A ChatService over the demo site whose knowledge base is ingested once per test session
(`ingested_demo` in tests/conftest.py): real SQLite, real MiniLM, the real local engine."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from frontdesk.conversation.service import ChatService
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings


@pytest.fixture
def demo_settings(ingested_demo: Settings, tmp_path: Path) -> Settings:
    """A private copy of the ingested data folder, so tests never see each other's turns."""
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    return ingested_demo.model_copy(update={"data_dir": data, "database_url": ""})


@pytest.fixture
async def service(demo_settings: Settings) -> AsyncIterator[ChatService]:
    settings = Settings(data_dir=demo_settings.data_dir, sites_dir=demo_settings.sites_dir)
    chat = ChatService(build_runtime(settings))
    yield chat
    await chat.close()
    chat.runtime.close()


@pytest.fixture
def session_id() -> str:
    return str(uuid.uuid4())

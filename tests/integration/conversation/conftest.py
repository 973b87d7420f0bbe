"""A demo site with its knowledge base ingested once per test module (real SQLite, real
MiniLM embeddings, the real local engine)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from rich.console import Console

from frontdesk.conversation.service import ChatService
from frontdesk.demo_setup import ingest_sources
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings


def demo_sites(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "demo.yaml"
    text = (DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8")
    target.write_text(text.replace("[../kb]", f"[{DEMO_DIR / 'kb'}]"), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def ingested_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings of a data folder whose demo knowledge base is already ingested."""
    root = tmp_path_factory.mktemp("demo")
    settings = Settings(data_dir=root / "data", sites_dir=demo_sites(root / "sites"))
    runtime = build_runtime(settings)
    ingest_sources(runtime, Console(quiet=True), only_if_empty=True)
    runtime.close()
    yield settings
    shutil.rmtree(root, ignore_errors=True)


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

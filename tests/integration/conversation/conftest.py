"""A ChatService over the demo site whose knowledge base is ingested once per test session
(`ingested_demo` in tests/conftest.py): real SQLite, real MiniLM, the real local engine."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from frontdesk.conversation.service import ChatService
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from tests.conftest import remove_unless_shared, shared_once


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


VELOTROVE = Path(__file__).resolve().parents[2] / "fixtures" / "velotrove"


@pytest.fixture(scope="session")
def ingested_velotrove(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings of a data folder with the three-page Velotrove site ingested (real SQLite,
    real embeddings): a company the product was never tuned on, with every default."""
    from rich.console import Console

    from frontdesk.demo_setup import ingest_sources

    def build(root: Path) -> None:
        sites = root / "sites"
        sites.mkdir()
        site_file = (VELOTROVE / "sites" / "velotrove.yaml").read_text(encoding="utf-8")
        (sites / "velotrove.yaml").write_text(
            site_file.replace("[../kb]", f"[{VELOTROVE / 'kb'}]"), encoding="utf-8"
        )
        runtime = build_runtime(Settings(data_dir=root / "data", sites_dir=sites))
        ingest_sources(runtime, Console(quiet=True), only_if_empty=True)
        runtime.close()

    root = shared_once(tmp_path_factory, "velotrove", build)
    yield Settings(data_dir=root / "data", sites_dir=root / "sites")
    remove_unless_shared(root)


@pytest.fixture
async def velotrove(ingested_velotrove: Settings, tmp_path: Path) -> AsyncIterator[ChatService]:
    data = tmp_path / "velotrove-data"
    shutil.copytree(ingested_velotrove.data_dir, data)
    settings = Settings(data_dir=data, sites_dir=ingested_velotrove.sites_dir)
    chat = ChatService(build_runtime(settings))
    yield chat
    await chat.close()
    chat.runtime.close()

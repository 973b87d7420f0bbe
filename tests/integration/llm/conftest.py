"""An ingested demo knowledge base and sites whose `engine` block points at an LLM."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from frontdesk.conversation.payload import CompleteEvent, TokenEvent, TurnEvent, VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.demo_setup import ingest_sources
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from tests.conftest import remove_unless_shared, shared_once
from tests.support.llama import LlamaServer, start_server


def write_site(folder: Path, engine: dict[str, Any] | None = None, top_k: int = 7) -> Path:
    """The demo site file with its knowledge path made absolute and another engine block."""
    folder.mkdir(parents=True, exist_ok=True)
    data = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    data["knowledge"]["sources"] = [str(DEMO_DIR / "kb")]
    data["knowledge"]["top_k"] = top_k
    if engine is not None:
        data["engine"] = engine
    (folder / "demo.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def ingested_kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data folder whose demo knowledge base is ingested once per run (tests copy it)."""

    def build(root: Path) -> None:
        settings = Settings(data_dir=root / "data", sites_dir=write_site(root / "sites"))
        runtime = build_runtime(settings)
        ingest_sources(runtime, Console(quiet=True), only_if_empty=True)
        runtime.close()

    root = shared_once(tmp_path_factory, "llm-demo", build)
    yield root / "data"
    remove_unless_shared(root)


@pytest.fixture
def make_settings(ingested_kb: Path, tmp_path: Path) -> Any:
    """Settings over a private copy of the ingested data with the given engine block."""

    def make(engine: dict[str, Any] | None = None, top_k: int = 7, **values: Any) -> Settings:
        data = tmp_path / "data"
        if not data.exists():
            shutil.copytree(ingested_kb, data)
        sites = write_site(tmp_path / f"sites-{uuid.uuid4().hex[:6]}", engine, top_k)
        return Settings(data_dir=data, sites_dir=sites, **values)

    return make


@pytest.fixture
def session_id() -> str:
    return str(uuid.uuid4())


async def run_turn(service: ChatService, session: str, text: str) -> list[TurnEvent]:
    site = service.runtime.site("demo")
    return [event async for event in service.stream_turn(site, session, text, VisitorContext())]


def streamed_text(events: list[TurnEvent]) -> str:
    return "".join(e.content for e in events if isinstance(e, TokenEvent))


def complete(events: list[TurnEvent]) -> CompleteEvent:
    final = events[-1]
    assert isinstance(final, CompleteEvent), final
    return final


@pytest.fixture(scope="session")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """One SmolLM2 server for the run: loading the model once serves every test of the tier."""
    server = start_server(tmp_path_factory.mktemp("llama") / "server.log")
    yield server
    server.stop()

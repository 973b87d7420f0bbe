"""A whole site asked questions through the real graph: its site file and pages ingested into
a fresh store (real SQLite, the default multilingual embedder, the local engine), a chat
service over them, and a visitor's turn read back as the graph's final state."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService, thread_id
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings


def ingested_site(
    root: Path, site_file: str, pages: Path, extra: Mapping[str, str] | None = None
) -> Runtime:
    """`site_file` and the pages of the folder `pages` (with the `extra` pages, by file
    name) under `root/sites`, every page ingested into `root/data`: the runtime over them."""
    site_id = str(yaml.safe_load(site_file)["id"])
    sites = root / "sites"
    sites.mkdir()
    shutil.copytree(pages, sites / "kb")
    for name, page in (extra or {}).items():
        (sites / "kb" / name).write_text(page, encoding="utf-8")
    (sites / f"{site_id}.yaml").write_text(site_file, encoding="utf-8")
    runtime = build_runtime(Settings(data_dir=root / "data", sites_dir=sites))
    site = runtime.site(site_id)
    report = KnowledgeBase(runtime.engine).ingest_path(site.config, sites / "kb", progress=False)
    assert len(report.ingested) == len(list((sites / "kb").iterdir()))
    return runtime


async def chat_service(runtime: Runtime) -> AsyncIterator[ChatService]:
    """A chat service over `runtime` for one test (a fixture's body); closes both after."""
    chat = ChatService(runtime)
    yield chat
    await chat.close()
    runtime.close()


async def site_turn(
    service: ChatService, site_id: str, session: str, message: str
) -> dict[str, Any]:
    """The visitor's `message` in `session`, then the turn's final graph state."""
    await service.ask(service.runtime.site(site_id), session, message, VisitorContext())
    graph = await service.graph()
    config = {"configurable": {"thread_id": thread_id(site_id, session)}}
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values

"""Helpers for tests that run the real conversation graph (`ChatService`).

The demo knowledge base is ingested once per test session into a template data folder;
each test copies it, so only the first real-service test pays for the embeddings.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

from frontdesk.settings import DEMO_DIR, Settings

_template: dict[str, Path] = {}


def service_unavailable_reason() -> str | None:
    """Why the real `ChatService` cannot be used here, or None when it can."""
    try:
        importlib.import_module("frontdesk.conversation.service")
    except Exception as exc:
        return f"frontdesk.conversation.service is not importable yet ({exc})"
    return None


def ingested_data_dir(base: Path, sites_dir: Path, target: Path) -> Path:
    """A data folder whose store has the demo site's knowledge base ingested."""
    if "data" not in _template:
        from frontdesk.knowledge.service import KnowledgeBase
        from frontdesk.runtime import build_runtime

        template = base / "ingested-demo"
        runtime = build_runtime(Settings(data_dir=template, sites_dir=sites_dir))
        try:
            report = KnowledgeBase(runtime.engine).ingest_path(
                runtime.sites["demo"].config, DEMO_DIR / "kb", progress=False
            )
            assert not report.failed, report.failed
        finally:
            runtime.close()
        _template["data"] = template
    shutil.copytree(_template["data"], target, dirs_exist_ok=True)
    return target

"""The API's one door into knowledge ingestion (`frontdesk.knowledge`).

Kept to a single function so the upload route does not depend on how the knowledge
package is organised; when it cannot be imported the route answers 501.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import Request

from frontdesk.runtime import Runtime
from frontdesk.sites.registry import LoadedSite


class IngestionUnavailable(RuntimeError):
    """The knowledge package (or one of its dependencies) is not installed or not ready."""


def open_knowledge_base(runtime: Runtime) -> Any:
    """The runtime's knowledge base, or a new `KnowledgeBase` on its engine."""
    existing = getattr(runtime, "knowledge", None)
    if existing is not None:
        return existing
    try:
        from frontdesk.knowledge.search.query_cache import query_cache_for
        from frontdesk.knowledge.service import KnowledgeBase
    except ImportError as exc:
        raise IngestionUnavailable(f"knowledge ingestion is not available ({exc})") from exc
    # The runtime's own settings (its Redis), not the process-wide ones: an app built with
    # explicit settings must not read, nor fix in the cache, those of the environment.
    return KnowledgeBase(runtime.engine, query_cache=query_cache_for(runtime.settings))


def knowledge_base(request: Request) -> Any:
    """The app's knowledge base (one per process, shared by the upload API, the console
    and the statistics)."""
    knowledge: Any = getattr(request.app.state, "knowledge", None)
    if knowledge is None:
        knowledge = open_knowledge_base(request.app.state.runtime)
        request.app.state.knowledge = knowledge
    return knowledge


def ingest_upload(knowledge: Any, site: LoadedSite, data: bytes, filename: str) -> dict[str, Any]:
    """Ingest one uploaded file into the site's index; a JSON-ready report (blocking)."""
    report = knowledge.ingest_upload(site.config, data, filename)
    _queue_trust_report(knowledge, site, report)
    if isinstance(report, dict):
        return dict(report)
    if dataclasses.is_dataclass(report) and not isinstance(report, type):
        return dataclasses.asdict(report)
    if hasattr(report, "model_dump"):
        dumped: dict[str, Any] = report.model_dump(mode="json")
        return dumped
    return {"report": str(report)}


def _queue_trust_report(knowledge: Any, site: LoadedSite, report: Any) -> None:
    """New or changed content: the site's trust report runs again (in the background)."""
    engine = getattr(getattr(knowledge, "index", None), "engine", None)
    changed = any(getattr(report, key, None) for key in ("ingested", "updated", "removed"))
    if engine is not None and changed:
        from frontdesk.store.trust import queue_after_sync

        queue_after_sync(engine, site.config.id)


def merge_reports(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One summary for several files: lists concatenated, dicts merged, numbers added."""
    merged: dict[str, Any] = {}
    for report in reports:
        for key, value in report.items():
            if isinstance(value, list):
                merged.setdefault(key, []).extend(value)
            elif isinstance(value, dict):
                merged.setdefault(key, {}).update(value)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                merged[key] = merged.get(key, 0) + value
            else:
                merged[key] = value
    return merged

"""The answer node gives the local writer the site's embedder and bar (the site's own
support bar, `knowledge/search/topic.py`): passages in another language are always read by
meaning, those in the visitor's only when the site lets it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.answer import _site_meaning
from frontdesk.engines.base import SiteMeaning
from frontdesk.knowledge.models import RetrievalResult
from frontdesk.knowledge.search.topic import TopicProfile
from frontdesk.settings import DEMO_DIR
from frontdesk.sites.schema import SiteConfig

pytestmark = pytest.mark.unit


async def _no_search(query: str, language: str) -> RetrievalResult:
    return RetrievalResult.model_validate({"status": "no_result"})


async def _profile() -> TopicProfile:
    return TopicProfile(support_threshold=0.853, off_topic_ceiling=0.84, probes=12)


def runtime(reads_meaning: bool, embedder: Any, profile: Any = _profile) -> Any:
    raw = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    raw.setdefault("engine", {})["local_reads_meaning"] = reads_meaning
    context = TurnContext(
        site=SiteConfig.model_validate(raw),
        engines=None,  # type: ignore[arg-type]  # not called here
        retrieve=_no_search,
        topic_profile=profile,
        embedder=embedder,
    )
    return SimpleNamespace(context=context)


async def test_a_site_that_opts_in_gets_its_embedder_and_its_own_support_bar() -> None:
    embedder = object()
    meaning = await _site_meaning(runtime(True, embedder))
    assert meaning == SiteMeaning(embedder, 0.853)  # type: ignore[arg-type]


async def test_by_default_the_writer_reads_words_only_in_the_visitors_language() -> None:
    assert SiteConfig.model_fields["engine"].default_factory().local_reads_meaning is False  # type: ignore[misc]
    embedder = object()
    meaning = await _site_meaning(runtime(False, embedder))
    assert meaning == SiteMeaning(embedder, 0.853, own_language=False)  # type: ignore[arg-type]


async def test_no_profile_no_bar_no_meaning() -> None:
    assert await _site_meaning(runtime(True, object(), profile=None)) is None
    assert await _site_meaning(runtime(True, None)) is None

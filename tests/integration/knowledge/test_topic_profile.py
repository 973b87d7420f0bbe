"""A site's topic profile on a real SQLite index: measured on its own content, rebuilt
when that content changes, and the self-calibrated threshold it gives searches."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from frontdesk.knowledge.models import Document
from frontdesk.knowledge.search.topic import PROBES
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import DEFAULT_RELEVANCE_THRESHOLDS, SiteKnowledge

pytestmark = pytest.mark.integration

SiteFactory = Callable[..., SiteKnowledge]


def page(doc_id: str, title: str, text: str) -> Document:
    return Document(doc_id=doc_id, title=title, text=text, kind="markdown", source=doc_id)


def test_the_profile_follows_the_content(kb: KnowledgeBase, make_site: SiteFactory) -> None:
    site = make_site("bikes")
    kb.ingest_documents(site, [page("a.md", "Bike plans", "Classic and Electric bike plans.")])
    first = kb.topic_profile(site)
    assert first.probes == len(PROBES["en"])
    assert first is kb.topic_profile(site)  # cached while the content is unchanged
    assert "bike" in first.terms
    kb.ingest_documents(site, [page("b.md", "Stolen bike", "Report a stolen bike within 24h.")])
    second = kb.topic_profile(site)
    assert second is not first  # a new index revision measures again
    assert second.terms[0] == "bike"


def test_probes_of_the_site_languages_are_searched(
    kb: KnowledgeBase, make_site: SiteFactory
) -> None:
    site = make_site("clinic")
    kb.ingest_documents(site, [page("a.md", "Horario", "Abrimos de lunes a viernes.")])
    profile = kb.topic_profile(site, ("es", "en"))
    assert profile.probes == len(PROBES["en"]) + len(PROBES["es"])


def test_an_unmeasured_model_gets_a_support_bar_but_no_relevance_threshold(
    kb: KnowledgeBase, make_site: SiteFactory
) -> None:
    site = make_site("hashed")  # hash:256 has no measured default threshold
    assert site.config.embedding not in DEFAULT_RELEVANCE_THRESHOLDS
    kb.ingest_documents(site, [page("a.md", "Plans", "We offer two plans.")])
    profile = kb.topic_profile(site)
    assert profile.relevance_threshold is None
    assert profile.support_threshold >= profile.off_topic_ceiling
    result = kb.search(site, "What plans do you offer?")
    assert result.status == "ok" and result.threshold is None


def test_a_calibrated_threshold_always_wins(kb: KnowledgeBase, make_site: SiteFactory) -> None:
    site = make_site("calibrated", relevance_threshold=0.99)
    kb.ingest_documents(site, [page("a.md", "Plans", "We offer two plans.")])
    result = kb.search(site, "What plans do you offer?")
    assert (result.status, result.threshold) == ("no_result", 0.99)
    assert kb.topic_profile(site).support_threshold >= 0.99

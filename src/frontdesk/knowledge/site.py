"""`SiteKnowledge`: what the knowledge base needs to know about a site, and the
thresholds, offsets and weights its search and ingest take from the site's config or,
when the site sets none, from its embedding model's measured defaults."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from frontdesk.knowledge.ingest.ingestor import IngestOptions
from frontdesk.knowledge.search.language_pairs import DEFAULT_CROSS_LANGUAGE_OFFSETS
from frontdesk.knowledge.search.query import DEFAULT_HEADING_WEIGHT, SearchOptions
from frontdesk.knowledge.search.titles import default_title_weight
from frontdesk.sites.knowledge import AUTO, KnowledgeConfig

if TYPE_CHECKING:
    from frontdesk.sites.schema import SiteConfig

# Used when a site has no calibrated threshold. Calibrate per site with
# `frontdesk kb calibrate`; see docs/knowledge.md for how this value was chosen.
DEFAULT_RELEVANCE_THRESHOLDS: dict[str, float] = {
    "local:multilingual-e5-small": 0.79,
    "local:all-MiniLM-L6-v2": 0.35,
}
PROACTIVE_MARGIN = 0.10
# e5's cosines span a third of MiniLM's range (0.75–0.93 vs 0.1–0.8): a smaller margin.
PROACTIVE_MARGINS: dict[str, float] = {"local:multilingual-e5-small": 0.05}
# An English site's second model when its `english_embedding` is "auto": measured for the
# default model only (benchmarks/RESULTS.md, "Ways to combine the two models").
DEFAULT_SECOND_MODELS: dict[str, str] = {"local:multilingual-e5-small": "local:all-MiniLM-L6-v2"}


def second_model(config: KnowledgeConfig) -> str | None:
    """The second model the site's settings name for English sites: "auto" is the one
    measured with its embedding model (none for other models); None: off."""
    if config.english_embedding == AUTO:
        return DEFAULT_SECOND_MODELS.get(config.embedding)
    return config.english_embedding


@dataclass(frozen=True)
class SiteKnowledge:
    """What the knowledge base needs to know about a site."""

    site_id: str
    config: KnowledgeConfig
    language: str = "en"

    @classmethod
    def of(cls, site: SiteConfig | SiteKnowledge) -> SiteKnowledge:
        if isinstance(site, SiteKnowledge):
            return site
        return cls(site_id=site.id, config=site.knowledge, language=site.default_language)

    def relevance_threshold(self) -> float | None:
        if self.config.relevance_threshold is not None:
            return self.config.relevance_threshold
        return DEFAULT_RELEVANCE_THRESHOLDS.get(self.config.embedding)

    def cross_language_offset(self) -> float:
        """What a passage in another language than the question adds to its cosine: the
        site's calibrated offset, else its model's (`language_pairs.py`)."""
        if self.config.cross_language_offset is not None:
            return self.config.cross_language_offset
        return DEFAULT_CROSS_LANGUAGE_OFFSETS.get(self.config.embedding, 0.0)

    def title_weight(self) -> float:
        """The page title's share of the dense rank: the site's, else its model's default."""
        if self.config.title_weight is not None:
            return self.config.title_weight
        return default_title_weight(self.config.embedding)

    def proactive_threshold(self) -> float | None:
        if self.config.proactive_threshold is not None:
            return self.config.proactive_threshold
        threshold = self.relevance_threshold()
        margin = PROACTIVE_MARGINS.get(self.config.embedding, PROACTIVE_MARGIN)
        return None if threshold is None else min(1.0, threshold + margin)

    def search_options(self, top_k: int | None = None) -> SearchOptions:
        return SearchOptions(
            top_k=top_k or self.config.top_k,
            relevance_threshold=self.relevance_threshold(),
            proactive_threshold=self.proactive_threshold(),
            language=self.language,
            heading_weight=(
                DEFAULT_HEADING_WEIGHT
                if self.config.heading_weight is None
                else self.config.heading_weight
            ),
            title_weight=self.title_weight(),
            cross_language_offset=self.cross_language_offset(),
        )

    def with_model(self, model: str) -> SiteKnowledge:
        """The site searched with another model (its serving generation's, during a
        re-embed): the site's threshold and offset were set for its configured model, so
        that model's defaults apply. Its second model stays the configured model's."""
        config = self.config.model_copy(
            update={
                "embedding": model,
                "english_embedding": second_model(self.config),
                "relevance_threshold": None,
                "proactive_threshold": None,
                "cross_language_offset": None,
            }
        )
        return replace(self, config=config)

    def ingest_options(self, *, progress: bool = True) -> IngestOptions:
        return IngestOptions(
            chunk_size=self.config.chunk_size,
            chunk_overlap=self.config.chunk_overlap,
            language=self.language,
            progress=progress,
            title_vectors=self.title_weight() > 0,
        )

"""The knowledge section of a site file: its sources, web crawls and their schedules."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import (
    Discriminator,
    Field,
    HttpUrl,
    Tag,
    field_validator,
    model_validator,
)

from frontdesk.sites.common import Strict

_INTERVAL = re.compile(r"^(\d+)\s*([smhd])$")


_INTERVAL_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# `english_embedding`'s default: the second model measured with the site's embedding model.
AUTO = "auto"


def interval_seconds(schedule: str) -> int | None:
    """`30m`, `6h`, `1d` → seconds; None when `schedule` is not an interval (a cron line)."""
    match = _INTERVAL.match(schedule.strip())
    return int(match.group(1)) * _INTERVAL_SECONDS[match.group(2)] if match else None


class Politeness(Strict):
    concurrency: int = Field(default=4, ge=1, le=32, description="Requests in flight per host.")
    crawl_delay_s: float = Field(
        default=0.0,
        ge=0.0,
        le=60.0,
        description="Pause between requests to one host (robots.txt Crawl-delay wins if longer).",
    )


class WebSource(Strict):
    """A website the knowledge base learns (crawled by `frontdesk kb crawl` and the worker)."""

    url: HttpUrl = Field(description="Start URL; only pages of the same site are crawled.")
    sitemap: HttpUrl | None = Field(
        default=None, description="Sitemap (or sitemap index); default: robots.txt Sitemap lines."
    )
    include: list[str] = Field(
        default_factory=list, description="Regexes; when given, a URL must match one."
    )
    exclude: list[str] = Field(default_factory=list, description="Regexes of URLs to skip.")
    max_pages: int = Field(default=1000, ge=1, le=100_000)
    max_depth: int = Field(default=5, ge=0, le=50, description="Link hops from the start URL.")
    schedule: str | None = Field(
        default=None,
        description="Re-sync schedule: an interval (`30m`, `6h`, `1d`) or a cron line "
        "(`0 3 * * *`, UTC). None: only on demand.",
    )
    user_agent: str = Field(default="FrontdeskBot/0.1 (+https://github.com/frontdesk)")
    politeness: Politeness = Field(default_factory=Politeness)
    timeout_s: float = Field(
        default=15.0, gt=0, le=120, description="Timeout of each connect and each read."
    )
    page_deadline_s: float = Field(
        default=60.0,
        gt=0,
        le=600,
        description="Deadline of one whole download (headers and body, however slowly the "
        "server sends it); a page over it is skipped this time.",
    )
    crawl_deadline_s: float = Field(
        default=3600.0,
        gt=0,
        le=86_400,
        description="Deadline of one crawl (robots.txt, sitemaps, pages); the pages read by "
        "then are applied, as when `max_pages` cuts a crawl.",
    )
    max_page_bytes: int = Field(
        default=5_000_000, ge=1024, le=100_000_000, description="Larger pages are skipped."
    )
    max_sitemaps: int = Field(
        default=50, ge=1, le=10_000, description="Sitemap files read per crawl (indexes too)."
    )
    max_sitemap_urls: int = Field(
        default=100_000,
        ge=1,
        le=10_000_000,
        description="`<loc>` entries read from the sitemaps per crawl. Reading also stops "
        "once `max_pages` page URLs are queued.",
    )
    max_sitemap_bytes: int = Field(
        default=50_000_000,
        ge=1024,
        le=1_000_000_000,
        description="Sitemap XML read per crawl, after gunzip (all sitemaps together).",
    )
    auth_header_env: str = Field(
        default="",
        pattern=r"^$|^[A-Z_][A-Z0-9_]*$",
        description="Name of an environment variable holding an `Authorization` header value "
        "for private help centres (never the secret itself).",
    )
    allow_private_network: bool = Field(
        default=False,
        description="Allow addresses on private, loopback or link-local networks "
        "(intranets and tests).",
    )

    @field_validator("include", "exclude")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regex ({exc})") from exc
        return patterns

    @field_validator("schedule")
    @classmethod
    def _schedule_parses(cls, schedule: str | None) -> str | None:
        if schedule is None or interval_seconds(schedule) is not None:
            return schedule
        from croniter import croniter

        if not croniter.is_valid(schedule):
            raise ValueError(
                f"schedule {schedule!r} is neither an interval like 6h nor a cron line "
                "like '0 3 * * *'"
            )
        return schedule

    @property
    def start_url(self) -> str:
        return str(self.url)


def _source_kind(value: object) -> str:
    return "file" if isinstance(value, str) else "web"


# A string is a file or folder, a mapping a website: errors name only the kind meant.
KnowledgeSource = Annotated[
    Annotated[str, Tag("file")] | Annotated[WebSource, Tag("web")],
    Discriminator(_source_kind),
]


class KnowledgeConfig(Strict):
    sources: list[KnowledgeSource] = Field(
        default_factory=list,
        description="Files or folders to ingest, relative to the site file's folder, and "
        "websites to crawl (`- url: https://…`).",
    )
    top_k: int = Field(default=7, ge=1, le=50, description="Chunks retrieved per query.")
    relevance_threshold: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Minimum relevance score; set by `frontdesk kb calibrate`.",
    )
    cross_language_offset: float | None = Field(
        default=None,
        ge=0.0,
        le=0.2,
        description="Added to the cosine of a passage in another language than the "
        "question, so one threshold fits both; set by `frontdesk kb calibrate` (default: "
        "the embedding model's, docs/knowledge.md).",
    )
    proactive_threshold: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Score above which a case-study hit is surfaced proactively "
        "(default: relevance_threshold + 0.10).",
    )
    heading_weight: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Weight in the hybrid search's fusion of the list ranked by words in "
        "titles and headings alone (dense 1.0, words 0.2); 0 turns it off "
        "(default: the product's, docs/knowledge.md).",
    )
    title_weight: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Share of the page title's cosine in a passage's dense rank (the "
        "passage's own cosine counts 1); 0 turns it off (default: 0.5 for "
        "multilingual-e5-small, 0 for other models; docs/knowledge.md).",
    )
    chunk_size: int = Field(default=512, ge=64, le=4096, description="Chunk size in tokens.")
    chunk_overlap: int = Field(default=64, ge=0, le=1024, description="Overlap in tokens.")
    embedding: str = Field(
        default="local:multilingual-e5-small",
        description="Embedding model as provider:model (local, openai, ollama); changing it "
        "re-embeds in the background (docs/knowledge.md).",
    )
    english_embedding: str | None = Field(
        default=AUTO,
        description="On a site whose language is English, a second model that indexes the "
        "pages too: English questions are ranked by both (e5's chunks lifted by their "
        "page's rank in the second model's search; the threshold stays `embedding`'s). "
        "auto: all-MiniLM-L6-v2 beside the default model, none beside others; null: off "
        "(docs/knowledge.md).",
    )

    @model_validator(mode="after")
    def _overlap_below_size(self) -> KnowledgeConfig:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("chunk_overlap must be smaller than chunk_size")
        return self

    @property
    def file_sources(self) -> list[str]:
        return [source for source in self.sources if isinstance(source, str)]

    @property
    def web_sources(self) -> list[WebSource]:
        return [source for source in self.sources if isinstance(source, WebSource)]

    @property
    def effective_proactive_threshold(self) -> float | None:
        if self.proactive_threshold is not None:
            return self.proactive_threshold
        if self.relevance_threshold is None:
            return None
        return min(1.0, self.relevance_threshold + 0.10)

"""The configuration of one site (tenant): what the operator writes in `sites/<id>.yaml`."""

from __future__ import annotations

import itertools
import re
from datetime import date, time
from typing import Annotated, Literal

from pydantic import (
    Discriminator,
    Field,
    HttpUrl,
    PrivateAttr,
    Tag,
    field_validator,
    model_validator,
)

from frontdesk.conversation.register import Tone, address_forms
from frontdesk.leads.hours import (
    MINUTES_PER_DAY,
    BusinessHours,
    IanaTimezone,
    OpeningRange,
    clock_text,
    holiday_region,
)
from frontdesk.sites.calendar import CalendarConfig
from frontdesk.sites.common import WEEKDAYS, Language, Strict, Weekday, day_ranges, weekday_keys

SUPPORTED_LANGUAGES = ("en", "ru", "fr", "de", "es", "it", "pt", "nl")
SITE_ID_PATTERN = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")

Dimension = Literal["problem", "authority", "company", "timing"]
DIMENSIONS: tuple[Dimension, ...] = ("problem", "authority", "company", "timing")
EngineName = Literal["local", "llm"]
RoutingMode = Literal["local", "llm", "hybrid"]
# How the team reaches a visitor whose handoff nobody can answer live.
ContactWay = Literal["email", "phone", "either"]


_INTERVAL = re.compile(r"^(\d+)\s*([smhd])$")
_INTERVAL_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


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


class ProactiveRule(Strict):
    """A message the widget shows by itself (a bubble beside the launcher)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$", description="Remembers 'once'.")
    message: dict[Language, str] = Field(min_length=1, description="Text per language.")
    delay_s: float = Field(default=30.0, ge=0, le=3600, description="Seconds on the page.")
    url_patterns: list[str] = Field(
        default_factory=list,
        description="Glob patterns on the page path (`/pricing*`); empty: every page.",
    )
    once_per_visitor: bool = Field(
        default=True, description="Shown at most once per browser (else once per tab)."
    )

    @field_validator("message")
    @classmethod
    def _short_messages(cls, messages: dict[str, str]) -> dict[str, str]:
        if any(not text.strip() or len(text) > 300 for text in messages.values()):
            raise ValueError("proactive messages must be 1-300 characters")
        return messages


SERVER_ORIGINS = "self"
"""In `widget.allowed_origins`: whatever origins this Frontdesk server is served on."""


class WidgetConfig(Strict):
    public_key: str = Field(
        min_length=16, description="Key the widget sends; resolves the site on every request."
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins allowed to call the API with this key (scheme://host[:port]); "
        "`self`: the origins this Frontdesk server is served on (FRONTDESK_PUBLIC_URL, else "
        "its listening address), for pages Frontdesk serves itself such as the demo page.",
    )
    fallback_url: str = Field(default="", description="Contact page shown when chat fails.")
    session_ttl_hours: float = Field(
        default=168.0,
        gt=0,
        le=24 * 365,
        description="How long a visitor's conversation survives reloads and navigation "
        "after their last message (the browser forgets it, the server refuses it).",
    )
    greeting: dict[Language, str] = Field(
        default_factory=dict,
        description="First message on first open, per language (default: one naming the "
        "site). Suggested questions come from `starter_questions`.",
    )
    proactive: list[ProactiveRule] = Field(
        default_factory=list, description="Messages the widget shows by itself."
    )
    identity_secret_env: str = Field(
        default="",
        pattern=r"^$|^[A-Z_][A-Z0-9_]*$",
        description="Environment variable holding the secret the site signs visitor "
        "identities with (HMAC-SHA256 of the user id). Empty: identities are ignored.",
    )

    @field_validator("allowed_origins")
    @classmethod
    def _origins_have_scheme(cls, origins: list[str]) -> list[str]:
        for origin in origins:
            if origin in ("*", SERVER_ORIGINS):
                continue
            if not re.match(r"^https?://[^/]+$", origin):
                raise ValueError(
                    f"origin {origin!r} must look like https://example.com (or be "
                    f"{SERVER_ORIGINS!r}: the origins this server is served on)"
                )
        return origins


class RoleEngines(Strict):
    """Engine per model role: `local`, or a LangChain `provider:model` string."""

    fast: str = Field(default="local", description="Classification, extraction, grading.")
    main: str = Field(default="local", description="Writing answers.")
    judge: str = Field(default="local", description="Evaluation.")


StructuredOutput = Literal["auto", "function_calling", "json_schema", "json_mode", "json_object"]


class EngineConfig(Strict):
    """Keys left out fall back to the process settings (FRONTDESK_LLM_*); see docs/llm.md."""

    name: EngineName = Field(default="local", description="local or llm.")
    roles: RoleEngines = Field(default_factory=RoleEngines)
    routing_mode: RoutingMode = Field(
        default="local", description="Who routes: local/llm/hybrid (llm sites default: hybrid)."
    )
    hybrid_confidence: float = Field(
        default=0.6, ge=0.0, le=1.0, description="Below this local confidence, ask the LLM."
    )
    fallback: str = Field(default="", description="Fallback model (provider:model) for every role.")
    base_url: str = Field(default="", description="OpenAI-compatible / Ollama / Azure endpoint.")
    api_key_env: str = Field(
        default="", description="Name of the environment variable holding the API key."
    )
    timeout_s: float | None = Field(default=None, gt=0, description="Per-call timeout.")
    max_retries: int | None = Field(default=None, ge=0, le=10, description="Retries per call.")
    stream_timeout_ms: int | None = Field(
        default=None, ge=1, description="First-token timeout of writers (LLM_STREAM_TIMEOUT_MS)."
    )
    structured_output: StructuredOutput = Field(
        default="auto", description="How classifiers get JSON: tools, json_schema, json_object."
    )
    complexity_routing: bool = Field(
        default=False, description="Simple questions are written by the fast model."
    )
    local_reads_meaning: bool = Field(
        default=False,
        description="Local writer: when no sentence shares the visitor's words, quote one "
        "that says the same in other words (its embedding clears the site's own support "
        "bar). Answers more, abstains less (docs/evaluation.md).",
    )
    options: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="Extra keyword arguments for init_chat_model."
    )


class FormField(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    question: dict[str, str] = Field(description="The question per language code.")
    required: bool = True


class FormGroup(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    fields: list[FormField] = Field(min_length=1)


class ProfilingForm(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    groups: list[FormGroup] = Field(min_length=1)

    @property
    def field_ids(self) -> list[str]:
        return [f.id for group in self.groups for f in group.fields]


class QualificationConfig(Strict):
    dimensions: list[Dimension] = Field(default_factory=lambda: list(DIMENSIONS))
    interest_threshold: float = Field(
        default=0.7, ge=0.0, le=10.0, description="Cumulative interest that makes a lead hot."
    )
    stall_turn_threshold: int = Field(
        default=6, ge=1, description="Turns without a proposal before a stall is declared."
    )
    forms: list[ProfilingForm] = Field(default_factory=list)


class SkillsConfig(Strict):
    enabled: list[str] = Field(
        default_factory=lambda: [
            "propose_demo",
            "collect_email",
            "ask_profiling_question",
            "suggest_follow_up",
        ]
    )
    cta_label: dict[str, str] = Field(
        default_factory=lambda: {"en": "Contact us"}, description="CTA button text per language."
    )
    booking_url: str = Field(default="", description="CTA / booking page URL.")
    cta_min_turn: int = Field(default=2, ge=0, description="Earliest turn a CTA may be shown.")


def _overlaps(ranges: tuple[OpeningRange, ...]) -> list[tuple[OpeningRange, OpeningRange]]:
    ordered = sorted(ranges)
    return [(a, b) for a, b in itertools.pairwise(ordered) if b.start < a.end]


class BusinessHoursConfig(Strict):
    """When the team is there. Either the weekly form (`weekly`, `holidays`, `closed`,
    `special`: several ranges a day, with minutes) or the simple form (`start`, `end`,
    `days`: one range on the working days), never both."""

    timezone: IanaTimezone = Field(description="IANA timezone, e.g. Europe/Berlin.")
    weekly: dict[str, list[str]] | None = Field(
        default=None,
        description='Opening ranges per day key: {"tue-fri": ["09:30-13:00", "14:00-18:30"], '
        '"sat": ["10:00-14:00"]}. A day not named is closed; 22:00-02:00 runs overnight.',
    )
    holidays: str | None = Field(
        default=None,
        description="Closed on the public holidays of a country or region: DE, DE-SN, US-CA.",
    )
    closed: list[date] = Field(default_factory=list, description="Dates closed: [2026-12-24].")
    special: dict[date, list[str]] = Field(
        default_factory=dict,
        description='Dated hours that replace the weekly ones: {2026-12-23: ["10:00-16:00"]}.',
    )
    start: time | None = Field(default=None, description="Simple form: opening time (09:00).")
    end: time | None = Field(default=None, description="Simple form: closing time (18:00).")
    days: list[Weekday] | None = Field(
        default=None,
        min_length=1,
        description="Simple form: the days the team works, e.g. [mon, tue, wed, thu, fri, sat].",
    )
    same_day_cutoff: time | None = Field(
        default=None,
        description="Latest time a same-day follow-up is promised (simple form default 16:00; "
        "weekly form default two hours before the day's last closing).",
    )
    # The pure value every reader uses, built once when the file is validated.
    _hours: BusinessHours = PrivateAttr()

    @property
    def simple_form(self) -> bool:
        return self.weekly is None

    def hours(self) -> BusinessHours:
        """These hours as the pure module's value (`leads.hours`)."""
        return self._hours

    def weekly_ranges(self) -> tuple[tuple[OpeningRange, ...], ...]:
        """Monday-first opening ranges as written (not merged)."""
        if self.weekly is None:
            start, end = self.start or time(9, 0), self.end or time(18, 0)
            opening = OpeningRange(
                start.hour * 60 + start.minute, (end.hour * 60 + end.minute) or MINUTES_PER_DAY
            )
            days = {WEEKDAYS.index(day) for day in self.days or WEEKDAYS[:5]}
            return tuple((opening,) if index in days else () for index in range(7))
        week: list[tuple[OpeningRange, ...]] = [() for _ in range(7)]
        for key, values in self.weekly.items():
            for index in weekday_keys(key):
                week[index] = day_ranges(f"weekly.{key}", values)
        return tuple(week)

    def warnings(self) -> list[str]:
        """Hours that load but look wrong: overnight ranges and overlapping ranges."""
        found: list[str] = []
        days: list[tuple[str, tuple[OpeningRange, ...]]] = [
            (WEEKDAYS[i], r) for i, r in enumerate(self.weekly_ranges())
        ]
        days += [(d.isoformat(), day_ranges(f"special.{d}", v)) for d, v in self.special.items()]
        for name, ranges in days:
            found += [
                f"{name}: {r} ends before it starts; it is read as open overnight until "
                f"{clock_text(r.end - MINUTES_PER_DAY)} the next day"
                for r in ranges
                if r.overnight
            ]
            found += [
                f"{name}: {a} and {b} overlap; they are read as one range"
                for a, b in _overlaps(ranges)
            ]
        return found

    @field_validator("weekly")
    @classmethod
    def _day_keys(cls, value: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        if value is None:
            return None
        seen: dict[int, str] = {}
        for key, values in value.items():
            for index in weekday_keys(key):
                if index in seen:
                    raise ValueError(
                        f"{WEEKDAYS[index]} is named by both {seen[index]!r} and {key!r}: "
                        "give each day its ranges once"
                    )
                seen[index] = key
            day_ranges(f"weekly.{key}", values)
        return value

    @field_validator("holidays")
    @classmethod
    def _known_region(cls, value: str | None) -> str | None:
        if value is not None:
            holiday_region(value)
        return value

    @field_validator("special")
    @classmethod
    def _special_ranges(cls, value: dict[date, list[str]]) -> dict[date, list[str]]:
        for day, values in value.items():
            if not values:
                raise ValueError(f"special.{day}: no ranges; list the date under closed instead")
            day_ranges(f"special.{day}", values)
        return value

    @model_validator(mode="after")
    def _one_form(self) -> BusinessHoursConfig:
        simple = [name for name in ("start", "end", "days") if getattr(self, name) is not None]
        if self.weekly is not None and simple:
            raise ValueError(
                f"{', '.join(simple)}: simple-form keys cannot be mixed with weekly; "
                "write every day's ranges under weekly"
            )
        if self.weekly is None:
            start, end = self.start or time(9, 0), self.end or time(18, 0)
            cutoff = self.same_day_cutoff or time(16, 0)
            if start >= end and end != time(0, 0):
                raise ValueError(f"start ({start}) must be before end ({end})")
            if not start <= cutoff <= end:
                raise ValueError("same_day_cutoff must lie between start and end")
        elif not any(self.weekly.values()):
            raise ValueError("weekly opens on no day: name at least one day with its ranges")
        both = sorted(set(self.closed) & set(self.special))
        if both:
            raise ValueError(
                f"{', '.join(d.isoformat() for d in both)} is both closed and in special: "
                "keep it in one of them"
            )
        hours = BusinessHours(
            timezone=self.timezone,
            weekly=self.weekly_ranges(),
            public_holidays=self.holidays,
            closed=frozenset(self.closed),
            special={d: day_ranges(f"special.{d}", v) for d, v in self.special.items()},
            same_day_cutoff=self.same_day_cutoff or (time(16, 0) if self.weekly is None else None),
        )
        self._hours = hours
        return self


class WebhookChannel(Strict):
    url: HttpUrl
    secret: str = Field(
        default="",
        description="Signing secret (Standard Webhooks): `whsec_<base64 of 24-64 random "
        "bytes>` is verifiable as is by any Standard Webhooks library; another string is "
        "used as its UTF-8 bytes. Empty: deliveries are not signed.",
    )

    @field_validator("secret")
    @classmethod
    def _spec_secret(cls, secret: str) -> str:
        if secret.startswith("whsec_"):
            body = secret.removeprefix("whsec_")
            if not re.fullmatch(r"[A-Za-z0-9+/]{16,}={0,2}", body) or len(body) % 4:
                raise ValueError("a whsec_ secret must be base64 (at least 12 bytes)")
        return secret


class HandoffConfig(Strict):
    slack_webhook_url: HttpUrl | None = None
    webhooks: list[WebhookChannel] = Field(default_factory=list)
    fallback_email: str = Field(
        default="", pattern=r"^$|^[^@\s]+@[^@\s]+\.[^@\s]+$", description="Last-resort inbox."
    )
    retry_delays_s: list[float] = Field(
        default_factory=lambda: [1.0, 3.0, 9.0],
        max_length=10,
        description="Waits between delivery attempts; attempts = 1 + len(retry_delays_s).",
    )
    crm_record_url: str = Field(
        default="",
        description="Link to a CRM record in Slack messages; {lead_id} is replaced. "
        "Empty: no button.",
    )
    slack_signing_secret: str = Field(
        default="",
        max_length=200,
        description="Live takeover's Slack bridge: the Slack app's signing secret. Set, "
        "handoff messages carry their session and a reply in the message's thread "
        "reaches the visitor's chat (Events API at /v1/slack/events/{site}). Empty: off.",
    )
    live_wait_seconds: int = Field(
        default=120,
        ge=10,
        le=3600,
        description="Live takeover: how long an accepted handoff rings the operators online "
        "before the visitor is told a person will follow up by email.",
    )
    contact: ContactWay = Field(
        default="email",
        description="What the visitor is asked for when a handoff cannot be answered live "
        "(outside business hours, or no operator online) and no way to reach them is known: "
        "an e-mail address, a phone number, or either.",
    )
    contact_wait_seconds: int = Field(
        default=900,
        ge=0,
        le=86_400,
        description="How long such a handoff waits for the visitor's answer before it goes "
        "to the team marked 'no contact: asked, no answer'. A contact or a refusal sends it "
        "at once.",
    )

    @field_validator("retry_delays_s")
    @classmethod
    def _non_negative_delays(cls, delays: list[float]) -> list[float]:
        if any(delay < 0 for delay in delays):
            raise ValueError("retry delays must be >= 0 seconds")
        return delays


class EnrichmentProvider(Strict):
    """An HTTP enrichment API (Snitcher / Enrich.so style), called with POST JSON
    `{"site_id", "ip_hash", "user_agent", "page_url"}`; never sent a raw IP."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    url: HttpUrl
    headers: dict[str, str] = Field(default_factory=dict, description="e.g. an API key.")
    timeout_s: float = Field(default=2.0, gt=0, le=30)


class EnrichmentConfig(Strict):
    enabled: bool = True
    cache_ttl_s: float = Field(default=3600.0, ge=0, description="In-process cache lifetime.")
    providers: list[EnrichmentProvider] = Field(default_factory=list)


class AbuseLimits(Strict):
    max_message_chars: int = Field(default=15_000, ge=100)
    hack_block_after: int = Field(default=2, ge=1)
    # A hack block lifts this long after the last confident attack (docs/injection.md).
    hack_block_minutes: int = Field(default=60, ge=1)
    # The confidence an attack needs to count toward the block; below it, only a refusal.
    hack_confident_at: float = Field(default=0.85, gt=0.0, le=1.0)
    spam_block_after: int = Field(default=3, ge=2)


class RateLimits(Strict):
    per_session_per_minute: int = Field(default=20, ge=1)
    per_ip_per_minute: int = Field(default=60, ge=1)
    per_site_per_day: int = Field(default=20_000, ge=1)


class PrivacyConfig(Strict):
    retention_days: int = Field(default=90, ge=1, description="GDPR retention of conversations.")


def _english_only() -> list[Language]:
    return ["en"]


class SiteConfig(Strict):
    """One site served by Frontdesk, with its own knowledge base, widget key and data."""

    id: str = Field(description="Slug: lowercase letters, digits and dashes, ≤ 63 chars.")
    name: str = Field(min_length=1)
    default_language: Language = "en"
    languages: list[Language] = Field(default_factory=_english_only)
    team_language: Language | None = Field(
        default=None,
        description="The language the team reads: handoff e-mails, Slack messages and the "
        "`summary` of webhooks are written in it (one of the widget's eight languages). "
        "Default: `default_language`. It need not be one of `languages`: a German team may "
        "serve an English-only site.",
    )
    tone: Tone = Field(
        default="formal",
        description="How the assistant addresses visitors: `formal` (Sie, vous, usted, Lei, "
        "вы, u, o senhor) or `informal` (du, tu, tú, tu, ты, je, você). The widget, the "
        "replies, suggestions, booking and handoff messages all follow it; English has one "
        "register.",
    )
    instructions: str = Field(default="", description="Site-level instructions for writers.")
    starter_questions: dict[Language, list[str]] = Field(
        default_factory=dict,
        description="Example questions per language: suggestion chips on greetings and "
        "redirects, and the topics the assistant says it can help with.",
    )
    texts: dict[str, dict[Language, str]] = Field(
        default_factory=dict,
        description="The site's own wording for keys of the built-in catalog "
        "(conversation/texts.yaml), per language: the demo offer, booking prompts, a "
        "case-study offer. The built-in texts are neutral; unknown keys or placeholders "
        "are errors.",
    )
    pricing_reply: dict[Language, str] = Field(
        default_factory=dict,
        description="Reply to questions about prices, per language (with a figure-free "
        "sentence from the knowledge base). Empty: prices are answered from the knowledge "
        "base like any other fact.",
    )
    knowledge: KnowledgeConfig = Field(default_factory=KnowledgeConfig)
    widget: WidgetConfig
    engine: EngineConfig = Field(default_factory=EngineConfig)
    qualification: QualificationConfig = Field(default_factory=QualificationConfig)
    skills: SkillsConfig = Field(default_factory=SkillsConfig)
    business_hours: BusinessHoursConfig
    calendar: CalendarConfig | None = Field(
        default=None,
        description="The team's CalDAV calendar: free slots offered and booked in the chat. "
        "Without it, booking uses skills.booking_url (a link) or an e-mail.",
    )
    handoff: HandoffConfig = Field(default_factory=HandoffConfig)
    enrichment: EnrichmentConfig = Field(default_factory=EnrichmentConfig)
    abuse: AbuseLimits = Field(default_factory=AbuseLimits)
    rate_limits: RateLimits = Field(default_factory=RateLimits)
    privacy: PrivacyConfig = Field(default_factory=PrivacyConfig)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not SITE_ID_PATTERN.match(value):
            raise ValueError(
                f"site id {value!r} must be 1-63 lowercase letters, digits or dashes, "
                "starting and ending with a letter or digit"
            )
        return value

    @field_validator("texts")
    @classmethod
    def _known_texts(cls, texts: dict[str, dict[Language, str]]) -> dict[str, dict[Language, str]]:
        from frontdesk.conversation.texts import TEXTS, placeholders

        for key, variants in texts.items():
            if key not in TEXTS:
                raise ValueError(f"unknown text {key!r}; known: {', '.join(sorted(TEXTS))}")
            allowed = placeholders(TEXTS[key]["en"]) | {"site"}  # the name is always known
            for language, text in variants.items():
                unknown = placeholders(text) - allowed
                if unknown:
                    raise ValueError(
                        f"{key}.{language} uses {{{'}, {'.join(sorted(unknown))}}}; "
                        f"this text may use {', '.join(sorted(allowed)) or 'no placeholders'}"
                    )
        return texts

    def tone_warnings(self) -> list[str]:
        """The site's own texts that address visitors in the other register than its
        `tone` (a formal site whose greeting says "du"): replies would mix the two."""
        other = "informal" if self.tone == "formal" else "formal"
        own: list[tuple[str, str, str]] = [
            (f"texts.{key}.{lang}", str(lang), text)
            for key, variants in self.texts.items()
            for lang, text in variants.items()
        ]
        own += [(f"pricing_reply.{lang}", str(lang), t) for lang, t in self.pricing_reply.items()]
        own += [
            (f"widget.greeting.{lang}", str(lang), t) for lang, t in self.widget.greeting.items()
        ]
        own += [
            (f"widget.proactive.{rule.id}.{lang}", str(lang), text)
            for rule in self.widget.proactive
            for lang, text in rule.message.items()
        ]
        own += [
            (f"starter_questions.{lang}", str(lang), question)
            for lang, questions in self.starter_questions.items()
            for question in questions
        ]
        return [
            f"{where} addresses visitors {other}ly, but tone is {self.tone}: {text!r}"
            for where, lang, text in own
            if other in address_forms(text, lang)
        ]

    @property
    def language_of_team(self) -> Language:
        """The language handoffs are written in: `team_language`, else `default_language`."""
        return self.team_language or self.default_language

    def pricing_reply_in(self, language: str) -> str:
        """The configured pricing reply in `language` (English, then any, as fallback)."""
        replies = {str(code): text for code, text in self.pricing_reply.items()}
        return replies.get(language) or replies.get("en") or next(iter(replies.values()), "")

    @model_validator(mode="after")
    def _default_language_supported(self) -> SiteConfig:
        if self.default_language not in self.languages:
            raise ValueError(
                f"default_language {self.default_language!r} is not in languages {self.languages}"
            )
        return self

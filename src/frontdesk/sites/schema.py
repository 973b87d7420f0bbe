"""The configuration of one site (tenant): what the operator writes in `sites/<id>.yaml`."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import (
    Field,
    HttpUrl,
    field_validator,
    model_validator,
)

from frontdesk.conversation.register import Tone, address_forms
from frontdesk.sites.calendar import CalendarConfig
from frontdesk.sites.common import Language, Strict
from frontdesk.sites.handoff import HandoffConfig
from frontdesk.sites.hours import BusinessHoursConfig
from frontdesk.sites.knowledge import KnowledgeConfig

SUPPORTED_LANGUAGES = ("en", "ru", "fr", "de", "es", "it", "pt", "nl")


SITE_ID_PATTERN = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


Dimension = Literal["problem", "authority", "company", "timing"]


DIMENSIONS: tuple[Dimension, ...] = ("problem", "authority", "company", "timing")


EngineName = Literal["local", "llm"]


RoutingMode = Literal["local", "llm", "hybrid"]


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

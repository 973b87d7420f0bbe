"""What the widget shows before the visitor types: a greeting and suggested questions per
language, and the site's proactive messages — all from the site file, with defaults
built from the site's name and its knowledge base (pure functions, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from frontdesk.conversation.texts import say
from frontdesk.engines.local.answering.suggester import as_question
from frontdesk.sites.schema import SUPPORTED_LANGUAGES, SiteConfig

MAX_SUGGESTIONS = 3


def greeting(site: SiteConfig, language: str) -> str:
    """The site's greeting in `language`, else a default one in that language and the
    site's register."""
    text = site.widget.greeting.get(language)  # type: ignore[call-overload]
    if text:
        return str(text)
    return say("widget.greeting", language, tone=site.tone, site=site.name)


def suggestions(site: SiteConfig, language: str, titles: Sequence[str]) -> list[str]:
    """The site's starter questions in `language`; else the titles of its pages that are
    questions in that language, as they are. A page's name ("FAQ", "Contact") is not a
    question a visitor asks, so it is never dressed up as one."""
    configured = site.starter_questions.get(language)  # type: ignore[call-overload]
    if configured:
        return [str(q) for q in configured[:MAX_SUGGESTIONS]]
    picked: list[str] = []
    for title in titles:
        question = as_question(title, language) if title else None
        if question and question not in picked:
            picked.append(question)
        if len(picked) >= MAX_SUGGESTIONS:
            break
    return picked


def proactive_rules(site: SiteConfig) -> list[dict[str, Any]]:
    return [rule.model_dump() for rule in site.widget.proactive]


def widget_settings(site: SiteConfig, titles: Sequence[str]) -> dict[str, Any]:
    """Everything `GET /v1/widget/config` tells the widget about its site."""
    languages = list(dict.fromkeys([site.default_language, *site.languages]))
    return {
        "site": {
            "name": site.name,
            "default_language": site.default_language,
            "languages": languages,
            # The register the widget's own strings follow (`tone` in the site file).
            "tone": site.tone,
        },
        "limits": {"max_message_chars": site.abuse.max_message_chars},
        "session": {"ttl_hours": site.widget.session_ttl_hours},
        "privacy": {"retention_days": site.privacy.retention_days},
        "identity": {"enabled": bool(site.widget.identity_secret_env)},
        # Every language the widget speaks: its `lang` may differ from the site's.
        "greeting": {lang: greeting(site, lang) for lang in SUPPORTED_LANGUAGES},
        "suggestions": {lang: suggestions(site, lang, titles) for lang in languages},
        "proactive": proactive_rules(site),
    }

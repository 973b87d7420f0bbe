"""What the widget shows before the visitor types: a greeting and suggested questions per
language, and the site's proactive messages — all from the site file, with defaults
built from the site's name and its knowledge base (pure functions, no I/O)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from frontdesk.sites.schema import SUPPORTED_LANGUAGES, SiteConfig

MAX_SUGGESTIONS = 3

DEFAULT_GREETING: dict[str, str] = {
    "en": "Hi! I'm the {site} assistant. Ask me anything — I answer from {site}'s own "
    "documentation.",
    "ru": "Здравствуйте! Я ассистент {site}. Задайте вопрос — я отвечаю по документации {site}.",
    "fr": "Bonjour ! Je suis l'assistant de {site}. Posez votre question : je réponds à "
    "partir de la documentation de {site}.",
    "de": "Hallo! Ich bin der Assistent von {site}. Fragen Sie mich — ich antworte aus der "
    "Dokumentation von {site}.",
    "es": "¡Hola! Soy el asistente de {site}. Pregúntame lo que quieras: respondo con la "
    "documentación de {site}.",
    "it": "Ciao! Sono l'assistente di {site}. Chiedimi pure: rispondo in base alla "
    "documentazione di {site}.",
    "pt": "Olá! Sou o assistente da {site}. Pergunte o que quiser — respondo com base na "
    "documentação da {site}.",
    "nl": "Hallo! Ik ben de assistent van {site}. Stel je vraag — ik antwoord op basis van "
    "de documentatie van {site}.",
}

TELL_ME_ABOUT: dict[str, str] = {
    "en": "Tell me about {x}",
    "ru": "Расскажите про «{x}»",
    "fr": "Parlez-moi de « {x} »",
    "de": "Erzählen Sie mir von „{x}“",
    "es": "Háblame de «{x}»",
    "it": "Parlami di «{x}»",
    "pt": "Fale-me sobre «{x}»",
    "nl": "Vertel me over {x}",
}

_QUESTION = re.compile(r"\?\s*$")


def greeting(site: SiteConfig, language: str) -> str:
    """The site's greeting in `language`, else a default one in that language."""
    text = site.widget.greeting.get(language)  # type: ignore[call-overload]
    if text:
        return str(text)
    return DEFAULT_GREETING.get(language, DEFAULT_GREETING["en"]).format(site=site.name)


def suggestions(site: SiteConfig, language: str, titles: Sequence[str]) -> list[str]:
    """The site's starter questions in `language`; else questions about its documents
    (questions among the titles first, as they are)."""
    configured = site.starter_questions.get(language)  # type: ignore[call-overload]
    if configured:
        return [str(q) for q in configured[:MAX_SUGGESTIONS]]
    cleaned = [t.strip() for t in titles if t and 3 <= len(t.strip()) <= 80]
    questions = [t for t in cleaned if _QUESTION.search(t)]
    others = [t for t in cleaned if not _QUESTION.search(t)]
    template = TELL_ME_ABOUT.get(language, TELL_ME_ABOUT["en"])
    picked = questions[:MAX_SUGGESTIONS]
    for title in others:
        if len(picked) >= MAX_SUGGESTIONS:
            break
        # "Product: Overview" → the part before a colon names the subject.
        subject = title.split(":")[0].strip() or title
        candidate = template.format(x=subject)
        if candidate not in picked:
            picked.append(candidate)
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

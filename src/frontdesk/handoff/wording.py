"""A handoff in plain words, in the team's language (pure).

The team reads "wants to talk to a person — outside opening hours — wrote 3 messages",
not route and reason codes. The words come from `texts.yaml` beside this module, one
text per key and language (the reply catalog's format and loader); plural forms follow
CLDR's rules through Babel, dates are formatted by Babel on the site's clock.

`summary_lines` is the block every channel starts with: the contact first, then what
happened in plain words, the visitor's question and the assistant's last answer quoted,
the visitor's language and when to reply. Quoted text is one line: a visitor's line
break can never start a line that looks like one of ours.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from importlib.resources import files
from typing import Any
from zoneinfo import ZoneInfo

import yaml
from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_time

from frontdesk.conversation.texts import Catalog, parse_catalog
from frontdesk.guard.visitor_text import clean_field

QUOTE_CHARS = 300  # the visitor's question or last message, in the summary
ANSWER_CHARS = 500  # the assistant's last answer, in the summary
SEPARATOR = " — "


@lru_cache(maxsize=1)
def team_texts() -> Catalog:
    """The catalog of `texts.yaml`, checked like the reply catalog (English everywhere)."""
    raw = yaml.safe_load(files(__package__).joinpath("texts.yaml").read_text("utf-8"))
    return parse_catalog(raw, "handoff/texts.yaml")


def team_text(key: str, team: str, **values: object) -> str:
    """The text for `key` in the `team` language (English when it lacks one), filled."""
    variants = team_texts().formal[key]
    template = variants.get(team) or variants["en"]
    return template.format(**values) if values else template


def reason_words(reason: object, language: str) -> str:
    """Why the handoff happened, as a phrase about the visitor ("wants to talk to a
    person"); a reason without words of its own reads "was handed to the team"."""
    key = f"reason.{reason}"
    return team_text(key if key in team_texts().formal else "reason.other", language)


def messages_words(count: int, language: str) -> str:
    """ "wrote 3 messages", in the plural form CLDR gives `language` for `count`."""
    try:
        category = Locale.parse(language).plural_form(count)
    except (UnknownLocaleError, ValueError):
        category = "other"
    key = f"messages.{category}"
    variants = team_texts().formal.get(key, {})
    if language not in variants:
        key = "messages.other"
    return team_text(key, language, n=count)


def headline(data: Mapping[str, Any], language: str) -> str:
    """ "wants to talk to a person — outside opening hours — wrote 3 messages"."""
    packet = data.get("packet") or {}
    reason = packet.get("handoff_reason") or data.get("reason")
    parts = [reason_words(reason, language)]
    if not data.get("business_hours", True):
        parts.append(team_text("outside_hours", language))
    count = (packet.get("conversation") or {}).get("turn_count")
    if isinstance(count, int) and count > 0:
        parts.append(messages_words(count, language))
    return SEPARATOR.join(parts)


def contact_words(data: Mapping[str, Any], language: str) -> str:
    """The way to reach the visitor ("Contact: ana@example.org, +49 …"), or why there is
    none."""
    reach = data.get("visitor_contact") or {}
    visitor = (data.get("packet") or {}).get("visitor") or data.get("visitor") or {}
    ways = [str(way) for way in (visitor.get("email"), reach.get("phone")) if way]
    if ways:
        return team_text("contact.provided", language, contact=", ".join(ways))
    status = str(reach.get("status") or "not_asked")
    key = f"contact.{status}"
    return team_text(key if key in team_texts().formal else "contact.not_asked", language)


def one_line(text: object, limit: int) -> str:
    return clean_field(text, limit) if text else ""


def language_name(code: object, language: str) -> str:
    """ "Französisch" for `fr` read by a German team (CLDR names, the code when unknown)."""
    try:
        name = Locale.parse(language).languages.get(str(code))
    except (UnknownLocaleError, ValueError):
        name = None
    return str(name or code)


def reply_by(due: object, language: str, zone: str) -> str:
    """The follow-up time on the site's clock, in the team's format, with the zone
    ("07.12.2026, 09:00 CET")."""
    try:
        local = datetime.fromisoformat(str(due)).astimezone(ZoneInfo(zone))
        day = format_date(local, "medium", locale=language)
        return f"{day}, {format_time(local, 'short', locale=language)} {local.tzname()}"
    except (ValueError, UnknownLocaleError, KeyError):
        return str(due)


def summary_lines(data: Mapping[str, Any], language: str, zone: str = "UTC") -> list[str]:
    """The handoff for people: contact, what happened, question, last answer, the last
    message when it is not the question, the visitor's language, when to reply."""
    lines = [contact_words(data, language), headline(data, language)]
    question = one_line(data.get("question"), QUOTE_CHARS)
    if question:
        lines.append(team_text("question", language, text=question))
    answer = one_line(data.get("last_answer"), ANSWER_CHARS)
    if answer:
        lines.append(team_text("last_answer", language, text=answer))
    last = one_line(data.get("last_message"), QUOTE_CHARS)
    if last and last != question:
        lines.append(team_text("last_message", language, text=last))
    if data.get("language"):
        name = language_name(data["language"], language)
        lines.append(team_text("visitor_language", language, language=name))
    if data.get("follow_up_due"):
        when = reply_by(data["follow_up_due"], language, zone)
        lines.append(team_text("follow_up", language, when=when))
    lines.append(team_text("typed_by_visitor", language))
    return lines


def plain_summary(data: Mapping[str, Any], language: str, zone: str = "UTC") -> str:
    """`summary_lines` as one text (the webhook's `summary`)."""
    return "\n".join(summary_lines(data, language, zone))


def subject_words(data: Mapping[str, Any], language: str) -> str:
    """The e-mail subject: site, what happened in plain words, the session — nothing the
    visitor typed."""
    site = data.get("site_name") or data.get("site_id") or ""
    packet = data.get("packet") or {}
    return team_text(
        "subject",
        language,
        site=site,
        what=headline(data, language),
        session=packet.get("session_id") or data.get("session_id") or "",
    )


@dataclass(frozen=True)
class HandoffCard:
    """A handoff as the console's card shows it: the same plain words as the channels."""

    contact: str
    reachable: bool
    headline: str
    question: str
    last_answer: str
    last_message: str
    visitor_language: str
    reply_by: str


def handoff_card(data: Mapping[str, Any], language: str, zone: str = "UTC") -> HandoffCard:
    """The card of a handoff's JSON in `language` (a handoff stored before it quoted a
    question shows the last message as its question)."""
    reach = data.get("visitor_contact") or {}
    visitor = (data.get("packet") or {}).get("visitor") or data.get("visitor") or {}
    question = one_line(data.get("question") or data.get("last_message"), QUOTE_CHARS)
    last = one_line(data.get("last_message"), QUOTE_CHARS)
    return HandoffCard(
        contact=contact_words(data, language),
        reachable=bool(visitor.get("email") or reach.get("phone")),
        headline=headline(data, language),
        question=question,
        last_answer=one_line(data.get("last_answer"), ANSWER_CHARS),
        last_message="" if last == question else last,
        visitor_language=language_name(data["language"], language) if data.get("language") else "",
        reply_by=reply_by(data["follow_up_due"], language, zone)
        if data.get("follow_up_due")
        else "",
    )

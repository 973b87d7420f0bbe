""" "What Frontdesk knows about you" on the Knowledge page: the site's facts (hours per day,
address, phone, e-mail, prices, payment methods), each with the page it was read from, and
the team's corrections of them. A correction wins over the crawl, keeps its author and
date and outlives re-crawls (`frontdesk.facts.corrections`); owners of the site only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import ConsoleSite
from frontdesk.api.deps import ConsoleSiteDep, CsrfDep
from frontdesk.console.i18n import N_
from frontdesk.console.templating import page_messages
from frontdesk.facts.answer import day_name, exceptions, weekly_hours
from frontdesk.facts.calendar import LANGUAGES
from frontdesk.facts.corrections import (
    Correction,
    CorrectionError,
    corrected_fact,
    fact_key,
    latest,
)
from frontdesk.facts.model import FactKind, SiteFact, SiteFacts
from frontdesk.facts.store import CorrectionConflict
from frontdesk.guard.charset import clean_text

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

# Translated where shown (knowledge.html).
KIND_LABELS: dict[str, str] = {
    "hours": N_("Opening hours"),
    "address": N_("Address"),
    "phone": N_("Phone"),
    "email": N_("E-mail"),
    "price": N_("Price"),
    "payment": N_("Payment method"),
}
_ORDER = tuple(KIND_LABELS)


@dataclass(frozen=True)
class FactRow:
    """One line of "What Frontdesk knows about you"."""

    key: str
    kind: FactKind
    about: str  # what the fact is about, for people (a weekday, a service)
    about_value: str  # the same as the form sends it back (weekday number, date, service)
    value: str  # as shown
    edit_value: str  # as the correction form holds it
    url: str = ""
    title: str = ""
    read_from: str = ""
    state: Literal["crawled", "corrected", "removed"] = "crawled"
    author: str = ""
    corrected_at: str = ""
    revision: int = 0


def closed_words() -> set[str]:
    """ "closed" in every supported language (the facts' own reply text) accepts a day as
    closed."""
    from frontdesk.conversation.texts import say

    return {"closed", *(say("facts.closed", language) for language in LANGUAGES)}


def _about(fact: SiteFact) -> tuple[str, str]:
    if fact.kind == "hours":
        if fact.label:
            return fact.label, fact.label
        weekday = fact.weekday or 0
        return day_name(weekday, "en"), str(weekday)
    if fact.kind == "price":
        return fact.label, fact.label
    return "", ""


def _shown(fact: SiteFact) -> tuple[str, str]:
    if fact.kind == "hours":
        hours = ", ".join(f"{a}–{b}" for a, b in fact.ranges)
        return hours or fact.note or "closed", hours.replace("–", "-") or "closed"
    return fact.value, fact.value


def _row(fact: SiteFact, revisions: dict[str, int]) -> FactRow:
    key = fact_key(fact)
    about, about_value = _about(fact)
    value, edit_value = _shown(fact)
    return FactRow(
        key=key,
        kind=fact.kind,
        about=about,
        about_value=about_value,
        value=value,
        edit_value=edit_value,
        url=fact.url,
        title=fact.title or fact.doc_id,
        read_from="" if fact.corrected else f"{fact.origin} ({fact.region})",
        state="corrected" if fact.corrected else "crawled",
        author=fact.author,
        corrected_at=fact.corrected_at.replace("T", " ")[:16],
        revision=revisions.get(key, 0),
    )


def fact_rows(facts: SiteFacts, history: list[Correction]) -> list[FactRow]:
    """The facts as the answers use them (weekly hours from one source, the team's days in
    place of the page's), then the facts the team removed, which can be handed back."""
    revisions: dict[str, int] = {}
    for correction in history:
        revisions[correction.key] = max(revisions.get(correction.key, 0), correction.revision)
    shown: list[SiteFact] = [*weekly_hours(facts), *exceptions(facts)]
    shown += [fact for fact in facts.facts if fact.kind != "hours"]
    rows = sorted(
        (_row(fact, revisions) for fact in shown),
        key=lambda row: _ORDER.index(row.kind),
    )
    for correction in latest(history).values():
        if correction.action != "remove":
            continue
        kind = correction.key.split(":", 1)[0]
        rows.append(
            FactRow(
                key=correction.key,
                kind=kind,  # type: ignore[arg-type]
                about="",
                about_value="",
                value=correction.key.split(":", 1)[1],
                edit_value="",
                state="removed",
                author=correction.author,
                corrected_at=f"{correction.at.astimezone(UTC):%Y-%m-%d %H:%M}",
                revision=revisions.get(correction.key, 0),
            )
        )
    return rows


def facts_view(knowledge: Any, site: ConsoleSite) -> dict[str, Any]:
    """The section's context: rows and the kinds a fact can be added as (blocking)."""
    if getattr(knowledge, "corrections", None) is None:
        return {"fact_rows": [], "fact_kinds": KIND_LABELS}
    facts = knowledge.site_facts(site.site.config)
    history = knowledge.corrections.history(site.id)
    return {"fact_rows": fact_rows(facts, history), "fact_kinds": KIND_LABELS}


@router.post("/knowledge/facts", dependencies=[CsrfDep])
async def correct_fact(
    request: Request,
    site: ConsoleSiteDep,
    action: Annotated[Literal["save", "remove", "undo"], Form()],
    kind: Annotated[str, Form(max_length=16)] = "",
    about: Annotated[str, Form(max_length=200)] = "",
    value: Annotated[str, Form(max_length=1000)] = "",
    key: Annotated[str, Form(max_length=512)] = "",
    revision: Annotated[int, Form(ge=0)] = 0,
) -> Response:
    """Correct a fact (save a row), remove it, hand it back to the crawl (undo), or add one
    (save without a key). Bad input or a correction made meanwhile by someone else saves
    nothing and shows the form again with what was typed."""
    from frontdesk.api.ingestion import knowledge_base
    from frontdesk.console.knowledge_pages import _page

    site.require("owner")
    knowledge = knowledge_base(request)
    draft = {"key": key, "kind": kind, "about": about, "value": value, "field": ""}
    t = page_messages(request, site.user)

    async def fail(message: str, field: str, status: int) -> Response:
        return await _page(
            request, site, error=message, status=status, fact_draft={**draft, "field": field}
        )

    if knowledge.corrections is None:
        return await fail(
            t.gettext("Facts cannot be corrected: the knowledge base has no store."), "", 409
        )
    rows = await run_in_threadpool(facts_view, knowledge, site)
    by_key = {row.key: row for row in rows["fact_rows"]}
    if key and key not in by_key:
        return await fail(t.gettext("No such fact on this site: reload the page."), "", 404)
    if key:  # a row's fact keeps what it is about: only its value is corrected
        kind, about = by_key[key].kind, by_key[key].about_value
    author = site.user.email
    fact: SiteFact | None = None
    if action == "save":
        try:
            fact = corrected_fact(
                clean_text(kind),
                clean_text(about),
                clean_text(value),
                language=site.site.config.default_language,
                author=author,
                at=datetime.now(UTC),
                closed_words=closed_words(),
            )
        except CorrectionError as exc:
            return await fail(t.gettext("Not saved. %(problem)s", problem=exc), exc.field, 422)
        if not key:
            key = fact_key(fact)
            if key in by_key and by_key[key].state != "removed":
                message = t.gettext(
                    "Not saved. About: this fact is already listed; correct it in its row."
                )
                return await fail(message, "About", 409)
            if key in by_key:  # a removed fact added again
                revision = by_key[key].revision
            else:  # never listed, or handed back to the crawl earlier
                revision = await run_in_threadpool(knowledge.corrections.revision, site.id, key)
    elif not key:
        return await fail(t.gettext("Choose the fact to remove or hand back."), "", 422)
    stored_action: Literal["set", "remove", "revert"] = {
        "save": "set",
        "remove": "remove",
        "undo": "revert",
    }[action]  # type: ignore[assignment]
    try:
        await run_in_threadpool(
            knowledge.corrections.correct,
            site.id,
            key,
            stored_action,
            fact,
            author=author,
            expected=revision,
        )
    except CorrectionConflict as exc:
        who = exc.current.author if exc.current else t.gettext("someone")
        when = f"{exc.current.at.astimezone(UTC):%Y-%m-%d %H:%M}" if exc.current else ""
        message = t.gettext(
            "Not saved: %(who)s changed this fact at %(when)s UTC while you were editing. "
            "Your input is still in the form: check the new value and save again.",
            who=who,
            when=when,
        )
        return await fail(message, "Value", 409)
    notice = {
        "save": t.gettext("Saved. Answers use your correction from now on."),
        "remove": t.gettext("Removed. Answers no longer use this fact."),
        "undo": t.gettext("Handed back: answers use what the pages state."),
    }[action]
    return await _page(request, site, notice=notice)

"""The site's facts as a source of their own: a question about opening hours, a phone
number, an address, an e-mail, the price of a named service or payment methods is answered
from what the site's pages state in structure, cited to the page (`frontdesk.facts`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import asdict
from datetime import date, datetime, timedelta
from typing import cast

from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.citations import trusted_answer
from frontdesk.conversation.nodes.common import Update, emit_words, language_of, site_say, timed
from frontdesk.conversation.state import ChatState
from frontdesk.conversation.substates import DateDump, FactReply, SiteFactDump
from frontdesk.facts.answer import (
    KIND_MARGINS,
    DateAsked,
    FactLine,
    best_service,
    dated_reply,
    exception_reply,
    exceptions_on,
    fact_question,
    hours_reply,
    kinds_found,
    names_unlisted_method,
    price_reply,
    simple_reply,
    weekly_hours,
)
from frontdesk.facts.calendar import days_named
from frontdesk.facts.dates import dates_named, relative_days_named
from frontdesk.facts.kinds import question_texts
from frontdesk.facts.meaning import kind_scores, service_scores
from frontdesk.facts.model import FactKind, SiteFact, SiteFacts
from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk
from frontdesk.knowledge.search.language_pairs import relevance
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.leads.hours import public_holiday_named
from frontdesk.sites.hours import BusinessHoursConfig


def _fact_dump(fact: SiteFact) -> SiteFactDump:
    return cast(SiteFactDump, asdict(fact))


def _fact_load(data: SiteFactDump) -> SiteFact:
    return SiteFact(
        kind=data["kind"],
        value=data["value"],
        origin=data["origin"],
        position=data["position"],
        region=data["region"],
        label=data["label"],
        weekday=data["weekday"],
        ranges=tuple((opens, closes) for opens, closes in data["ranges"] or ()),
        note=data["note"],
        amount=data["amount"],
        currency=data["currency"],
        doc_id=data["doc_id"],
        url=data["url"],
        title=data["title"],
        author=data["author"],
        corrected_at=data["corrected_at"],
        corrects=data["corrects"],
    )


def _date_dump(asked: DateAsked) -> DateDump:
    return DateDump(
        offset=asked.offset, day=asked.day.isoformat(), holiday=asked.holiday, closed=asked.closed
    )


def _date_load(data: DateDump) -> DateAsked:
    return DateAsked(
        data["offset"], date.fromisoformat(data["day"]), data["holiday"], data["closed"]
    )


def _match(
    question: str,
    language: str,
    facts: SiteFacts,
    found: frozenset[FactKind],
    ctx: TurnContext,
    passages: Sequence[str] = (),
) -> FactReply | None:
    """The facts that answer the question, as the state keeps them (None: not a question
    about a fact this site states). Runs the embedding model: called in a thread."""
    embedder = ctx.facts_embedder
    margins = KIND_MARGINS.get(embedder.name) if embedder is not None else None
    if embedder is None or margins is None or not facts.facts:
        return None
    days = days_named(question, language)
    offsets = relative_days_named(question, language)
    scores = kind_scores(embedder, question, language)
    asked = fact_question(scores, days, facts.kinds, margins, found, offsets)
    if asked is None:
        return None
    chosen: tuple[SiteFact, ...] = facts.of_kind(asked.kind)
    if asked.kind == "payment" and names_unlisted_method(
        question,
        [fact.value for fact in chosen],
        passages,
        [*question_texts("payment", language), *question_texts("payment", "en")],
    ):
        return None  # the pages say what the list leaves out
    if asked.kind == "price":
        prices = facts.of_kind("price")
        # The labels are in the site's language: a question in another language is scored
        # with the model's cross-language offset, as passages are (`language_pairs.py`).
        offset = SiteKnowledge.of(ctx.site).cross_language_offset()
        service_near = [
            relevance(score, language, ctx.site.default_language, offset)
            for score in service_scores(embedder, question, prices)
        ]
        service = best_service(prices, service_near, question=question)
        if service is None:
            return None  # no priced service named: the pages may still answer
        chosen = (service,)
    reply = FactReply(kind=asked.kind, days=list(asked.days), facts=[_fact_dump(f) for f in chosen])
    if asked.offsets:
        reply["dates"] = [
            _date_dump(item)
            for item in dates_asked(asked.offsets, ctx.site.business_hours, ctx.now, language)
        ]
    elif asked.kind == "hours":
        # A date or month ("el 24 de diciembre", "en août"), read by CLDR's month names.
        named = dates_named(question, (language, "en"))
        on = [(mention.month, mention.day) for mention in named]
        if on and not asked.days and exceptions_on(facts, on):
            reply["on"] = [[month, day or 0] for month, day in on]
        elif not weekly_hours(facts):
            return None  # no weekly hours read: the pages say them in their own words
    return reply


def dates_asked(
    offsets: tuple[int, ...], config: BusinessHoursConfig, now: datetime, language: str
) -> list[DateAsked]:
    """The dates `offsets` days from today on the site's wall clock, each with what the
    site file says of it: a public holiday of its region (named in the visitor's language)
    or a dated closure."""
    hours = config.hours()
    today = now.astimezone(hours.zone).date()
    asked = []
    for offset in offsets:
        day = today + timedelta(days=offset)
        holiday = ""
        if hours.public_holidays:
            holiday = public_holiday_named(day, hours.public_holidays, language) or ""
        asked.append(DateAsked(offset, day, holiday, day in hours.closed))
    return asked


@timed
async def match_facts(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Does the question ask about a fact the site states? Read by the site's embedding
    model with the turn's search as a second opinion (`routes.after_match_facts`)."""
    ctx = runtime.context
    if ctx.facts is None:
        return {"fact_reply": None}
    facts = await ctx.facts()
    language = language_of(state, runtime)
    retrieval = RetrievalResult.model_validate(state.get("retrieval") or {"status": "no_result"})
    passages = [chunk.content for chunk in retrieval.chunks] if retrieval.status == "ok" else []
    found = kinds_found(facts, passages)
    match = await asyncio.to_thread(
        _match,
        state["input"],
        language,
        facts,
        found,
        ctx,
        passages,
    )
    return {"fact_reply": match}


@timed
async def fact_answer_writer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """The reply from the facts, in the visitor's language, each line cited to its page."""
    reply = state.get("fact_reply")
    if not reply:
        raise ValueError("fact_answer_writer without a matched fact")
    language = language_of(state, runtime)
    facts = SiteFacts(tuple(_fact_load(item) for item in reply["facts"]))

    def say(key: str, lang: str, **values: str) -> str:
        return site_say(runtime, key, lang, **values)

    kind = reply["kind"]
    on = [(month, day or None) for month, day in reply.get("on") or []]
    if kind == "hours" and reply.get("dates"):
        asked = [_date_load(item) for item in reply.get("dates") or []]
        lead, lines = dated_reply(facts, asked, language, say)
    elif kind == "hours" and on:
        lead, lines = exception_reply(facts, on, language, say)
    elif kind == "hours":
        lead, lines = hours_reply(facts, tuple(reply["days"]), language, say)
    elif kind == "price":
        lead, lines = price_reply(facts.facts[0], language, say)
    else:
        lead, lines = simple_reply(facts, kind, language, say)
    answer, sources = _cited(lead, lines)
    emit_words("fact_answer_writer", answer)
    return trusted_answer(answer, sources, f"the site's own {kind} facts")


def _cited(lead: str, lines: list[FactLine]) -> tuple[str, list[RetrievedChunk]]:
    """The reply text with `[n]` after each line (one number per page) and the pages. A
    fact the team corrected in the console has no page: its line is not cited."""
    pages: dict[str, RetrievedChunk] = {}
    # What each page states, as the source's excerpt: every cited line's words on it (a
    # week's hours, not the one row of the last day), table cells without their "|".
    stated: dict[str, list[str]] = {}
    rendered: list[str] = []
    for line in lines:
        fact = line.fact
        key = fact.url or fact.doc_id
        if fact.corrected or not key:
            rendered.append(line.text)
            continue
        value = " ".join(fact.value.replace("|", " ").split())
        if value not in stated.setdefault(key, []):
            stated[key].append(value)
        if key not in pages:
            pages[key] = RetrievedChunk(
                chunk_id=f"fact:{fact.doc_id}:{fact.position}",
                doc_id=fact.doc_id,
                title=fact.title,
                url=fact.url,
                content="",
                score=1.0,
                source=fact.url or fact.doc_id,
                chunk_index=0,
            )
        pages[key] = pages[key].model_copy(update={"content": "\n".join(stated[key])})
        rendered.append(f"{line.text} [{list(pages).index(key) + 1}]")
    if len(pages) == 1 and all(text.endswith(" [1]") for text in rendered):
        # one page says it all: one citation, at the end
        rendered = [text.removesuffix(" [1]") for text in rendered]
        rendered[-1] += " [1]"
    if len(rendered) == 1 and lead:
        return f"{lead} {rendered[0]}", list(pages.values())
    body = "\n".join(f"- {text}" for text in rendered)
    return (f"{lead}\n{body}" if lead else body), list(pages.values())

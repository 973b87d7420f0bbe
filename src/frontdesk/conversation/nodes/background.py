"""Deferred execution: starters fire background work as the turn starts (beside
the classifiers) and return at once; awaiters collect it only on the ANSWER path; the
other paths have it cancelled by `intent_router`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TypedDict

from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.common import Update, history_turns, language_of, timed
from frontdesk.conversation.outcomes import strongly_supported_by_site, supported_by_site
from frontdesk.conversation.state import ChatState, collected_values
from frontdesk.conversation.substates import SiteSupport, VisitorProfile, retrieval_dump
from frontdesk.engines.local.answering.parts import question_parts
from frontdesk.facts.answer import KIND_MARGINS, SMALL_TALK_KIND, asked_kind, kinds_found
from frontdesk.facts.meaning import kind_scores
from frontdesk.facts.model import FactKind
from frontdesk.knowledge.models import RetrievalResult

PART_PASSAGES = 2  # passages each question of a several-question message adds
MAX_PASSAGES = 12


class SearchFound(TypedDict):
    """The background search's result, awaited by `retrieval_awaiter`."""

    search_query: str
    retrieval: RetrievalResult


async def _rewrite_and_search(state: ChatState, runtime: Runtime[TurnContext]) -> SearchFound:
    ctx = runtime.context
    language = language_of(state, runtime)
    history = history_turns(state["messages"], ctx.context_window_turns)
    query = await ctx.engines.rewriter.rewrite(state["input"], history, language)
    questions = [part.text for part in question_parts(state["input"], language) if part.asks]
    try:
        if len(questions) < 2:
            result = await ctx.retrieve(query, language)
        else:  # each question of the message gets its own passages beside the whole's
            found = await asyncio.gather(
                ctx.retrieve(query, language), *(ctx.retrieve(q, language) for q in questions)
            )
            result = merge_results(found[0], found[1:])
    except Exception as exc:  # the answer path turns this into an honest "can't answer"
        result = RetrievalResult.error(f"search_failure: {type(exc).__name__}")
    return {"search_query": query, "retrieval": result}


def merge_results(whole: RetrievalResult, parts: Sequence[RetrievalResult]) -> RetrievalResult:
    """The whole message's passages, then the best few of each question's not yet in."""
    chunks = list(whole.chunks)
    seen = {chunk.chunk_id for chunk in chunks}
    for part in parts:
        for chunk in [c for c in part.chunks if c.chunk_id not in seen][:PART_PASSAGES]:
            chunks.append(chunk)
            seen.add(chunk.chunk_id)
    if not chunks:
        return whole
    scores = [r.top_score for r in (whole, *parts) if r.top_score is not None]
    return whole.model_copy(
        update={
            "status": "ok",
            "reason": None,
            "chunks": chunks[:MAX_PASSAGES],
            "top_score": max(scores) if scores else None,
        }
    )


@timed
async def retrieval_task_starter(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    runtime.context.start_task("retrieval", _rewrite_and_search(state, runtime))
    return {}


@timed
async def enricher_task_starter(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    runtime.context.start_task("enrichment", runtime.context.enrich(runtime.context.visitor))
    return {}


async def _profile(state: ChatState, runtime: Runtime[TurnContext]) -> VisitorProfile:
    # The local engine's profile is what the visitor told us in forms; an LLM engine
    # may infer more. Either way it is background work awaited only when answering.
    return {key: value for key, value in collected_values(state).items() if value}


@timed
async def visitor_profile_task_starter(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    runtime.context.start_task("profile", _profile(state, runtime))
    return {}


@timed
async def enricher_awaiter(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    profile = await runtime.context.await_task("enrichment")
    return {"visitor_profile": profile} if profile else {}


@timed
async def visitor_profile_awaiter(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    profile = await runtime.context.await_task("profile")
    return {"visitor_profile": profile} if profile else {}


@timed
async def retrieval_awaiter(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    found = await runtime.context.await_task("retrieval")
    if found is None:  # never started (e.g. a replayed state): search now
        found = await _rewrite_and_search(state, runtime)
    result: RetrievalResult = found["retrieval"]
    return {"search_query": found["search_query"], "retrieval": retrieval_dump(result)}


@timed
async def site_support_check(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Does the site's own content support this message? Asked only when the classifier
    heard an everyday request or small talk (`routes.after_skill_selector`): the search
    started with the turn, so this waits for it instead of searching again."""
    ctx = runtime.context
    found = await ctx.await_task("retrieval")
    if found is None:  # never started (e.g. a replayed state): search now
        found = await _rewrite_and_search(state, runtime)
    result: RetrievalResult = found["retrieval"]
    profile = await ctx.topic_profile() if ctx.topic_profile is not None else None
    bar = profile.support_threshold if profile is not None else result.threshold
    word_bar = profile.word_support_threshold if profile is not None else None
    lexical = _word_support(state["input"], result)
    everyday = await ctx.everyday(state["input"]) if ctx.everyday is not None else None
    reads_everyday = everyday is not None and everyday.reads_as_everyday
    # A question for one of the business's own facts stands for the site's support, but
    # not a message that reads as an everyday request ("what day is the next holiday",
    # "help with credit card points"): like any other, that needs both signals at once.
    fact, business = (
        (None, None)
        if reads_everyday
        else await _asked_fact(state["input"], state.get("language") or "en", result, ctx)
    )
    support = SiteSupport(
        score=result.top_score,
        threshold=round(bar if bar is not None else 1.0, 4),
        lexical=round(lexical, 4),
        supported=supported_by_site(
            result.status,
            result.top_score,
            bar,
            lexical,
            word_bar,
            everyday=reads_everyday,
        ),
        strong=strongly_supported_by_site(result.status, result.top_score, bar, lexical),
        everyday=None if everyday is None else round(everyday.nearest, 4),
        everyday_bar=None if everyday is None else round(everyday.bar, 4),
        fact=fact,
        business=None if business is None else round(business, 4),
    )
    return {"site_support": support}


async def _asked_fact(
    question: str, language: str, result: RetrievalResult, ctx: TurnContext
) -> tuple[str | None, float | None]:
    """The kind of fact the message asks for, read by the site's embedding model with the
    turn's search as a second opinion (as `match_facts` reads it): its hours, address,
    phone… are the business's own, whatever the classifier heard. With it, the cosine of
    the message with its nearest question any business is asked (`kinds.yaml`, small
    talk aside), which an everyday request does not come as near as its own kind."""
    embedder = ctx.facts_embedder
    margins = KIND_MARGINS.get(embedder.name) if embedder is not None else None
    if embedder is None or margins is None:
        return None, None
    found: frozenset[FactKind] = frozenset()
    if ctx.facts is not None and result.status == "ok":
        found = kinds_found(await ctx.facts(), [chunk.content for chunk in result.chunks])
    scores = await asyncio.to_thread(kind_scores, embedder, question, language)
    business = max((v for kind, v in scores.items() if kind != SMALL_TALK_KIND), default=None)
    return asked_kind(scores, margins, found), business


def _word_support(question: str, result: RetrievalResult) -> float:
    """The best share of the question's content words found in one of the top passages."""
    from frontdesk.engines.local.answering.grader import lexical_match
    from frontdesk.engines.local.answering.text import guess_language

    language = guess_language(question)
    return max(
        (lexical_match(question, chunk, language) for chunk in result.chunks[:3]), default=0.0
    )

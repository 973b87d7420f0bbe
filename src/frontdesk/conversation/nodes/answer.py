"""The ANSWER path: skills, grading, gates, the grounded writer, verification, self-critique."""

from __future__ import annotations

import asyncio
import logging
import re
import time

import numpy as np
from langgraph.runtime import Runtime

from frontdesk.conversation import outcomes
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.citations import CitationRenumberer, citations_of
from frontdesk.conversation.nodes.common import (
    Update,
    chunks_from,
    emit,
    emit_words,
    history_turns,
    language_of,
    site_say,
    timed,
)
from frontdesk.conversation.route_table import WRITER_FAILURE
from frontdesk.conversation.state import (
    ChatState,
    booking_of,
    interest_of,
    skill_selection_of,
    skills_of,
    turn_of,
)
from frontdesk.conversation.substates import (
    Evaluation,
    TeamMatch,
    Verification,
    chunk_dump,
    retrieval_dump,
)
from frontdesk.engines.base import AnswerRequest, SiteMeaning, WriterUnavailableError
from frontdesk.engines.local.answering.parts import names_missing
from frontdesk.improvement.team_answers import (
    answer_part,
    is_team_document,
    question_part,
    team_language,
)
from frontdesk.knowledge.models import RetrievalResult
from frontdesk.text.embedding import Embedder

log = logging.getLogger(__name__)
DEFAULT_THRESHOLD = 0.35
_CITATION_MARK = re.compile(r"\s?\[\d+\]")


@timed
async def skill_applier(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Deterministic skill rules with this turn's signals."""
    from frontdesk.conversation.nodes.analysis import intent_from_state
    from frontdesk.engines.base import SkillChoice
    from frontdesk.engines.local.skills import apply_skill_rules

    ctx = runtime.context
    choice = apply_skill_rules(
        SkillChoice(skills=skills_of(state)),
        intent=intent_from_state(state),
        current_signals=tuple(interest_of(state).get("current", ())),
        turn_number=turn_of(state),
        cta_min_turn=ctx.site.skills.cta_min_turn,
        booking_status=booking_of(state).get("status", "idle"),
    )
    return {"skill_selection": {**skill_selection_of(state), "skills": list(choice.skills)}}


def _threshold(runtime: Runtime[TurnContext]) -> float:
    configured = runtime.context.site.knowledge.relevance_threshold
    return DEFAULT_THRESHOLD if configured is None else configured


@timed
async def grade_docs(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Corrective RAG: drop irrelevant chunks; when some survive, the top vector
    hit is kept too as a fallback. When none survive, the relevance gate takes over."""
    result = RetrievalResult.model_validate(state.get("retrieval") or {"status": "no_result"})
    if result.status != "ok" or not result.chunks:
        return {"graded_chunks": [], "team_match": None}
    team_match = await _team_match(state, runtime, result)
    passages = " ".join(f"{c.title} {c.content}" for c in result.chunks)
    if names_missing(state["input"], language_of(state, runtime), passages):
        # The visitor asks about something (Odoo, HIPAA...) no passage mentions: whatever
        # else the passages share with the question, they are about something else.
        return {"graded_chunks": [], "team_match": team_match}
    verdicts = await runtime.context.engines.grader.grade(state["input"], result.chunks)
    # A passage that scores above every everyday request on this site is about the
    # question here, whatever fixed cosine the grader was tuned with (`knowledge/search/topic.py`).
    bar = await _support_bar(runtime)
    kept = [
        chunk
        for chunk, ok in zip(result.chunks, verdicts, strict=True)
        if ok or (bar is not None and chunk.score >= bar)
    ]
    if kept and result.chunks[0] not in kept:
        kept.insert(0, result.chunks[0])
    # A team answer the turn does not give word for word is a passage like any other: its
    # answer may be quoted, never the list of questions the team wrote it for.
    kept = [
        chunk.model_copy(update={"content": answer_part(chunk.content)})
        if is_team_document(chunk.doc_id, chunk.source)
        else chunk
        for chunk in kept
    ]
    return {
        "graded_chunks": [chunk_dump(chunk) for chunk in kept],
        "team_match": team_match,
    }


async def _team_match(
    state: ChatState, runtime: Runtime[TurnContext], result: RetrievalResult
) -> TeamMatch | None:
    """How near each team answer's own questions (in the visitor's language) are to the
    question, read by the site's embedding model: a team answer is given word for word
    only when one of them says what the visitor asked (`outcomes.preferred_team_answer`)."""
    embedder = runtime.context.facts_embedder
    language = state.get("language")
    team = [
        chunk
        for chunk in result.chunks
        if is_team_document(chunk.doc_id, chunk.source)
        and (language is None or team_language(chunk.doc_id) == language)
    ]
    if not team or embedder is None:
        return None
    bar = outcomes.team_question_bar(embedder.name)
    questions = {chunk.doc_id: question_part(chunk.content) for chunk in team}
    similarity = await asyncio.to_thread(_question_similarity, embedder, state["input"], questions)
    return TeamMatch(similarity=similarity, bar=bar)


def _question_similarity(
    embedder: Embedder, question: str, questions: dict[str, tuple[str, ...]]
) -> dict[str, float]:
    """Per team answer, the best cosine of one of its questions with the visitor's; both
    read as questions (the model's query side)."""
    asked = np.asarray(embedder.embed_query(question)).reshape(-1)
    found: dict[str, float] = {}
    for doc_id, texts in questions.items():
        scores = [
            float(np.asarray(embedder.embed_query(text)).reshape(-1) @ asked) for text in texts
        ]
        found[doc_id] = round(max(scores, default=0.0), 4)
    return found


async def _support_bar(runtime: Runtime[TurnContext]) -> float | None:
    loader = runtime.context.topic_profile
    return None if loader is None else (await loader()).support_threshold


async def _site_meaning(runtime: Runtime[TurnContext]) -> SiteMeaning | None:
    """The site's embedder with its support bar (measured with that embedder): the local
    writer reads passages in another language than the visitor's by meaning, and those in
    the visitor's too when the site lets it (`engine.local_reads_meaning`)."""
    ctx = runtime.context
    if ctx.embedder is None:
        return None
    bar = await _support_bar(runtime)
    if bar is None:
        return None
    own = ctx.site.engine.local_reads_meaning
    return SiteMeaning(ctx.embedder, bar, own_language=own, vectors=ctx.passage_vectors)


@timed
async def retry_retrieval(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Second chance with an expanded query (the retry path)."""
    ctx = runtime.context
    language = language_of(state, runtime)
    query = await ctx.engines.rewriter.expand(state.get("search_query") or state["input"], language)
    started = time.perf_counter()
    try:
        result = await ctx.retrieve(query, language)
    except Exception as exc:
        result = RetrievalResult.error(f"search_failure: {type(exc).__name__}")
    # The second search on its own in the trace: retrieval time, not the answer path's work.
    waited = round((time.perf_counter() - started) * 1000, 3)
    ctx.timings_ms["retry_search"] = ctx.timings_ms.get("retry_search", 0.0) + waited
    return {
        "search_query": query,
        "retrieval": retrieval_dump(result),
        "retries": int(state.get("retries", 0)) + 1,
    }


@timed
async def answer_writer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """The grounded answer, streamed with citations renumbered as the visitor sees them.

    A writer that fails is not the turn's failure: the update says so, with the route the
    table gives a writer failure (`route_table.WRITER_FAILURE`)."""
    try:
        return await _write_answer(state, runtime)
    except WriterUnavailableError as exc:
        log.warning(
            "llm_generation_failure",
            extra={"site": runtime.context.site.id, "error": str(exc)[:300]},
        )
        return {
            "answer": _CITATION_MARK.sub("", exc.partial).strip(),
            "citations": [],
            "writer_failed": True,
            "route": WRITER_FAILURE.route,
            "route_reason": WRITER_FAILURE.reason,
        }


async def _write_answer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    ctx = runtime.context
    chunks = chunks_from(state.get("graded_chunks") or [])
    retrieval = RetrievalResult.model_validate(state.get("retrieval") or {"status": "no_result"})
    top = max((c.score for c in chunks), default=retrieval.top_score)
    low_confidence = outcomes.is_low_confidence(top, _threshold(runtime))
    request = AnswerRequest(
        question=state["input"],
        search_query=state.get("search_query") or state["input"],
        language=language_of(state, runtime),
        chunks=chunks,
        history=history_turns(state["messages"], ctx.context_window_turns),
        site_name=ctx.site.name,
        instructions=ctx.site.instructions,
        skills=skills_of(state),
        pricing_reply=ctx.site.pricing_reply_in(language_of(state, runtime)),
        meaning=await _site_meaning(runtime),
        tone=ctx.site.tone,
        site_language=ctx.site.default_language,
    )
    renumber = CitationRenumberer(len(chunks))
    pieces: list[str] = []
    async for piece in ctx.engines.writer.write(request):
        shown = renumber.feed(piece)
        pieces.append(shown)
        emit("answer_writer", shown)
    tail = renumber.flush()
    pieces.append(tail)
    emit("answer_writer", tail)
    ordered = renumber.reorder(chunks)
    answer = "".join(pieces)
    return {
        "answer": answer,
        "citations": citations_of(
            answer, ordered, language=request.language, translates=ctx.engines.writer.translates
        ),
        # Later checks read [n] against this order, the one the visitor sees.
        "graded_chunks": [chunk_dump(chunk) for chunk in ordered],
        "low_confidence": low_confidence,
    }


@timed
async def verify_facts(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Claim verification: up to 10 claims labelled supported/unsupported."""
    chunks = chunks_from(state.get("graded_chunks") or [])
    answer = state.get("answer") or ""
    # The site's own pricing reply is its policy, not a claim about the passages.
    pricing_reply = runtime.context.site.pricing_reply_in(language_of(state, runtime))
    if pricing_reply:
        answer = answer.replace(pricing_reply, "").strip()
    if not chunks or not answer:
        return {"verification": Verification(claims=[], factuality_score=1.0)}
    result = await runtime.context.engines.verifier.verify(answer, chunks)
    verification = Verification(
        claims=[
            {"text": c.text, "supported": c.supported, "support": round(c.support, 3)}
            for c in result.claims[:10]
        ],
        factuality_score=round(result.factuality_score, 3),
    )
    return {"verification": verification}


@timed
async def evaluate_answer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Self-critique (FULLY / PARTIALLY / CANNOT)."""
    chunks = chunks_from(state.get("graded_chunks") or [])
    result = await runtime.context.engines.evaluator.evaluate(
        state["input"], state.get("answer") or "", chunks
    )
    verification = state.get("verification")
    after = outcomes.route_after_answer(
        coverage=result.coverage,
        answer=state.get("answer") or "",
        factuality=verification["factuality_score"] if verification else 1.0,
    )
    evaluation = Evaluation(
        quality=round(result.quality, 3),
        relevance=round(result.relevance, 3),
        coverage=result.coverage,
        reasoning=result.reasoning,
        after=after,
    )
    return {
        "evaluation": evaluation,
        "routing": outcomes.answer_routing(
            coverage=result.coverage,
            low_confidence=bool(state.get("low_confidence")),
            after=after,
        ),
    }


@timed
async def clarify_handler(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Relevance gate failed: ask a clarifying question and offer a human."""
    text = site_say(runtime, "clarify", language_of(state, runtime))
    emit_words("clarify_handler", text)
    return {"answer": text, "citations": [], "routing": "followup", "low_confidence": False}


@timed
async def offer_human(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """A partial or unsure answer gets a soft escalation line; an answer that did
    not hold up says so honestly and offers a colleague instead of hedging."""
    previous = (state.get("answer") or "").strip()
    pricing_reply = runtime.context.site.pricing_reply_in(language_of(state, runtime))
    if pricing_reply and pricing_reply in previous:
        return {}  # the site's pricing reply closes a price answer (it names who to ask)
    cannot = state.get("routing") == "cannot_answer"
    key = "cannot_answer" if cannot else "offer.partial"
    if cannot and previous and not state.get("citations"):
        key = "offer.human"  # the writer already said it found nothing: only the offer
    text = site_say(runtime, key, language_of(state, runtime))
    emit_words("offer_human", ("\n\n" if previous else "") + text)
    return {"answer": f"{previous}\n\n{text}" if previous else text}

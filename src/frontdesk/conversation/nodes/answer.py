"""The ANSWER path: skills, grading, gates, the grounded writer, verification, self-critique."""

from __future__ import annotations

import re
import time
from typing import Any, Literal

from langgraph.runtime import Runtime

from frontdesk.conversation import routes
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.common import (
    Update,
    chunks_from,
    emit,
    emit_words,
    history_turns,
    language_of,
    timed,
)
from frontdesk.conversation.nodes.failure import handoff_on_writer_failure
from frontdesk.conversation.state import ChatState
from frontdesk.conversation.texts import say
from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering.text import proper_names
from frontdesk.knowledge.models import RetrievalResult, RetrievedChunk

CITATION = re.compile(r"\[(\d+)\]")
DEFAULT_THRESHOLD = 0.35


@timed
async def skill_applier(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Deterministic skill rules with this turn's signals (seed 000)."""
    from frontdesk.conversation.nodes.analysis import intent_from_state
    from frontdesk.engines.base import SkillChoice
    from frontdesk.engines.local.skills import apply_skill_rules

    ctx = runtime.context
    selection = state.get("skill_selection") or {}
    choice = apply_skill_rules(
        SkillChoice(skills=tuple(selection.get("skills", ()))),
        intent=intent_from_state(state),
        current_signals=tuple((state.get("interest_signals") or {}).get("current", ())),
        turn_number=int(state.get("turn_number", 0)),
        cta_min_turn=ctx.site.skills.cta_min_turn,
        booking_status=(state.get("booking") or {}).get("status", "idle"),
    )
    return {"skill_selection": {**selection, "skills": list(choice.skills)}}


def _threshold(runtime: Runtime[TurnContext]) -> float:
    configured = runtime.context.site.knowledge.relevance_threshold
    return DEFAULT_THRESHOLD if configured is None else configured


@timed
async def grade_docs(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Corrective RAG (seed 001): drop irrelevant chunks; when some survive, the top vector
    hit is kept too as a fallback. When none survive, the relevance gate takes over."""
    result = RetrievalResult.model_validate(state.get("retrieval") or {"status": "no_result"})
    if result.status != "ok" or not result.chunks:
        return {"graded_chunks": []}
    names = proper_names(state["input"])
    passages = " ".join(f"{c.title} {c.content}" for c in result.chunks).casefold()
    if any(name.casefold() not in passages for name in names):
        # The visitor asks about something (Odoo, HIPAA...) no passage mentions: whatever
        # else the passages share with the question, they are about something else.
        return {"graded_chunks": []}
    verdicts = await runtime.context.engines.grader.grade(state["input"], result.chunks)
    kept = [chunk for chunk, ok in zip(result.chunks, verdicts, strict=True) if ok]
    if kept and result.chunks[0] not in kept:
        kept.insert(0, result.chunks[0])
    return {"graded_chunks": [chunk.model_dump(mode="json") for chunk in kept]}


def relevance_gate(
    state: ChatState, runtime: Runtime[TurnContext]
) -> Literal["answer_writer", "retry_retrieval", "clarify_handler"]:
    return routes.relevance_gate(
        relevant_chunks=len(state.get("graded_chunks") or []),
        retries=int(state.get("retries", 0)),
        max_retries=runtime.context.max_retries,
    )


@timed
async def retry_retrieval(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Second chance with an expanded query (seed 001 route_or_retry → retry)."""
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
        "retrieval": result.model_dump(mode="json"),
        "retries": int(state.get("retries", 0)) + 1,
    }


class CitationRenumberer:
    """Rewrites `[n]` markers while the answer streams, so the visitor sees [1], [2], ...
    in order of first use. `n` indexes the retrieved chunks; markers that point at no
    chunk are dropped. Works on any split of the text (an LLM may send "[", "2", "]")."""

    def __init__(self, chunk_count: int) -> None:
        self.chunk_count = chunk_count
        self.order: list[int] = []  # original chunk numbers, in order of first citation
        self._pending = ""

    def feed(self, piece: str) -> str:
        out: list[str] = []
        for char in piece:
            if self._pending:
                self._pending += char
                if char == "]":
                    out.append(self._resolve(self._pending))
                    self._pending = ""
                elif not char.isdigit() or len(self._pending) > 5:
                    out.append(self._pending)
                    self._pending = ""
            elif char == "[":
                self._pending = char
            else:
                out.append(char)
        return "".join(out)

    def flush(self) -> str:
        rest, self._pending = self._pending, ""
        return rest

    def _resolve(self, marker: str) -> str:
        digits = marker[1:-1]
        if not digits.isdigit():
            return marker
        number = int(digits)
        if not 1 <= number <= self.chunk_count:
            return ""
        if number not in self.order:
            self.order.append(number)
        return f"[{self.order.index(number) + 1}]"

    def reorder(self, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
        """Chunks so that position n-1 is the chunk the visitor sees as [n]; uncited after."""
        cited = [chunks[n - 1] for n in self.order]
        return cited + [c for i, c in enumerate(chunks, 1) if i not in self.order]


def _citations(answer: str, chunks: list[RetrievedChunk]) -> list[dict[str, Any]]:
    cited: list[dict[str, Any]] = []
    for number in sorted({int(n) for n in CITATION.findall(answer)}):
        if 1 <= number <= len(chunks):
            chunk = chunks[number - 1]
            excerpt = chunk.content if len(chunk.content) <= 280 else chunk.content[:277] + "…"
            cited.append(
                {
                    "index": number,
                    "doc_id": chunk.doc_id,
                    "title": chunk.title,
                    "url": chunk.url,
                    "excerpt": excerpt,
                    "chunk_id": chunk.chunk_id,
                }
            )
    return cited


@timed
@handoff_on_writer_failure
async def answer_writer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    ctx = runtime.context
    chunks = chunks_from(state.get("graded_chunks") or [])
    retrieval = RetrievalResult.model_validate(state.get("retrieval") or {"status": "no_result"})
    top = max((c.score for c in chunks), default=retrieval.top_score)
    low_confidence = routes.is_low_confidence(top, _threshold(runtime))
    request = AnswerRequest(
        question=state["input"],
        search_query=state.get("search_query") or state["input"],
        language=language_of(state, runtime),
        chunks=chunks,
        history=history_turns(state["messages"], ctx.context_window_turns),
        site_name=ctx.site.name,
        instructions=ctx.site.instructions,
        skills=tuple((state.get("skill_selection") or {}).get("skills", ())),
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
        "citations": _citations(answer, ordered),
        # Later checks read [n] against this order, the one the visitor sees.
        "graded_chunks": [chunk.model_dump(mode="json") for chunk in ordered],
        "low_confidence": low_confidence,
    }


@timed
async def verify_facts(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Claim verification (seed 001): up to 10 claims labelled supported/unsupported."""
    chunks = chunks_from(state.get("graded_chunks") or [])
    answer = state.get("answer") or ""
    if not chunks or not answer:
        return {"verification": {"claims": [], "factuality_score": 1.0}}
    result = await runtime.context.engines.verifier.verify(answer, chunks)
    return {
        "verification": {
            "claims": [
                {"text": c.text, "supported": c.supported, "support": round(c.support, 3)}
                for c in result.claims[:10]
            ],
            "factuality_score": round(result.factuality_score, 3),
        }
    }


@timed
async def evaluate_answer(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Self-critique (seed 001 evaluate, seed 003 FULLY/PARTIALLY/CANNOT)."""
    chunks = chunks_from(state.get("graded_chunks") or [])
    result = await runtime.context.engines.evaluator.evaluate(
        state["input"], state.get("answer") or "", chunks
    )
    verification = state.get("verification") or {}
    after = routes.route_after_answer(
        coverage=result.coverage,
        answer=state.get("answer") or "",
        factuality=float(verification.get("factuality_score", 1.0)),
    )
    return {
        "evaluation": {
            "quality": round(result.quality, 3),
            "relevance": round(result.relevance, 3),
            "coverage": result.coverage,
            "reasoning": result.reasoning,
            "after": after,
        },
        "routing": routes.answer_routing(
            coverage=result.coverage,
            low_confidence=bool(state.get("low_confidence")),
            after=after,
        ),
    }


def route_or_retry(state: ChatState) -> Literal["stall_check", "offer_human"]:
    """Keep a full answer as it is; anything less ends with an offer of a person."""
    after = (state.get("evaluation") or {}).get("after", "auto")
    if after not in ("auto", "human", "error"):
        raise ValueError(f"unknown evaluation outcome {after!r}")
    if after == "auto" and state.get("routing") == "answered":
        return "stall_check"
    return "offer_human"


@timed
async def clarify_handler(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Relevance gate failed: ask a clarifying question and offer a human (seed 003)."""
    text = say("clarify", language_of(state, runtime))
    emit_words("clarify_handler", text)
    return {"answer": text, "citations": [], "routing": "followup", "low_confidence": False}


@timed
async def offer_human(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Seed 003: a partial or unsure answer gets a soft escalation line; an answer that did
    not hold up says so honestly and offers a colleague instead of hedging."""
    previous = (state.get("answer") or "").strip()
    cannot = state.get("routing") == "cannot_answer"
    if cannot and previous and not state.get("citations"):
        return {}  # the writer already said it found nothing citable; don't say it twice
    key = "cannot_answer" if cannot else "offer.partial"
    text = say(key, language_of(state, runtime))
    emit_words("offer_human", ("\n\n" if previous else "") + text)
    return {"answer": f"{previous}\n\n{text}" if previous else text}

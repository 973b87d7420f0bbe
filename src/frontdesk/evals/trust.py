"""A site's trust report: questions from its own pages, run through the real graph.

    questions = await make_questions(passages, config, counts)        # local or LLM engine
    report = await run_report(service, site, questions, ...)           # one fresh session each

The turns go through `ChatService.ask`, the path the API takes, on a scratch store (so no
conversation, lead or analytics row of the served site is written), while searches read
the served site's own index (`open_trust_workspace`). What is measured and how it is
scored is in `trust_score.py`; how questions are made in `trust_questions.py`.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, Field
from sqlalchemy import Engine, text

from frontdesk.evals.dataset import EvalItem, ItemInput, Metadata
from frontdesk.evals.runner import Outcome, run_item
from frontdesk.evals.trust_probes import off_topic_probes, unanswerable_probes
from frontdesk.evals.trust_questions import (
    QuestionCounts,
    SourcePassage,
    TrustQuestion,
    generated_questions,
)
from frontdesk.evals.trust_score import TrustTurn, examples, figures
from frontdesk.evals.workspace import UnknownSiteError, Workspace, scratch_workspace
from frontdesk.settings import Settings
from frontdesk.sites.schema import SiteConfig

T = TypeVar("T", bound=BaseModel)
Advance = Callable[[], None]
MAX_PAGE_CHARS = 1800  # what the model sees of a page when it writes questions


class StructuredCall(Protocol):
    """`engines.llm.structured.StructuredCaller.__call__`: a value, or None on failure."""

    async def __call__(self, schema: type[T], messages: Sequence[Any], job: str) -> T | None: ...


class ReportError(RuntimeError):
    """The report cannot run (no content, unknown site); the message says what to do."""


# -- the site's pages ---------------------------------------------------------------------
def read_passages(engine: Engine, index_key: str, config: SiteConfig) -> list[SourcePassage]:
    """Every stored passage of the site (its serving index), in each page's language."""
    from frontdesk.text.language import detect_language

    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT doc_id, title, heading_path, content FROM knowledge_chunks"
                " WHERE site_id = :key ORDER BY doc_id, chunk_index"
            ),
            {"key": index_key},
        ).all()
    languages = set(config.languages) | {config.default_language}
    language_of: dict[str, str] = {}
    passages = []
    for doc_id, title, heading_path, content in rows:
        if doc_id not in language_of:
            found = detect_language(f"{title}. {content[:400]}", config.default_language)
            language_of[doc_id] = found if found in languages else config.default_language
        headings = tuple(str(h) for h in json.loads(heading_path or "[]"))
        passages.append(SourcePassage(doc_id, title, content, language_of[doc_id], headings))
    return passages


def site_text(passages: Sequence[SourcePassage]) -> str:
    return "\n".join(f"{p.title}\n{p.content}" for p in passages).casefold()


# -- questions ----------------------------------------------------------------------------
class PageQuestions(BaseModel):
    """Questions a visitor could ask that the page answers."""

    reasoning: str = Field(description="What the page covers, in one or two sentences.")
    questions: list[str] = Field(description="Questions in the page's language.")


class UnansweredQuestions(BaseModel):
    """Questions a visitor of this site could ask that its pages do not answer."""

    reasoning: str = Field(description="What the site covers and what it leaves out.")
    questions: list[str] = Field(description="Questions in the site's language.")


def _page_prompt(passage: SourcePassage, wanted: int) -> list[Any]:
    from langchain_core.messages import HumanMessage, SystemMessage

    return [
        SystemMessage(
            "You write test questions for a website's assistant. Write questions a visitor "
            "might ask that THIS page answers, as a visitor would phrase them (do not copy "
            f"sentences). Language: {passage.language}. Answer with JSON."
        ),
        HumanMessage(
            f"Write {wanted} question(s).\n\nPage title: {passage.title}\n\n"
            f"{passage.content[:MAX_PAGE_CHARS]}"
        ),
    ]


def _unanswerable_prompt(titles: Sequence[str], language: str, wanted: int) -> list[Any]:
    from langchain_core.messages import HumanMessage, SystemMessage

    listed = "\n".join(f"- {title}" for title in titles[:60])
    return [
        SystemMessage(
            "You write test questions for a website's assistant. Write questions a visitor "
            "of this site might plausibly ask that the listed pages do NOT answer (a detail, "
            "place, date or option the site does not mention). Language: "
            f"{language}. Answer with JSON."
        ),
        HumanMessage(f"Write {wanted} question(s). The site's pages:\n{listed}"),
    ]


async def llm_generated(
    call: StructuredCall, passages: Sequence[SourcePassage], count: int, salt: str
) -> list[TrustQuestion]:
    """Up to `count` questions written by the model, one page at a time, pages spread as
    the local generator spreads them."""
    first: dict[str, SourcePassage] = {}
    for passage in passages:
        first.setdefault(passage.doc_id, passage)
    pages = generated_questions(passages, count * 3, salt)  # the same page order
    order = list(dict.fromkeys(q.doc_id for q in pages)) or list(first)
    chosen: list[TrustQuestion] = []
    seen: set[str] = set()
    for doc_id in order:
        if len(chosen) >= count:
            break
        passage = first[doc_id]
        result = await call(PageQuestions, _page_prompt(passage, 1), "trust_questions")
        for question in (result.questions if result else [])[:1]:
            if question.strip() and question.casefold() not in seen:
                seen.add(question.casefold())
                chosen.append(
                    TrustQuestion("generated", question.strip(), passage.language, "llm",
                                  doc_id, passage.title, passage.content[:300])
                )  # fmt: skip
    return chosen


async def llm_unanswerable(
    call: StructuredCall, passages: Sequence[SourcePassage], language: str, count: int
) -> list[TrustQuestion]:
    titles = list(dict.fromkeys(p.title for p in passages))
    result = await call(
        UnansweredQuestions, _unanswerable_prompt(titles, language, count), "trust_unanswerable"
    )
    found = [q.strip() for q in (result.questions if result else []) if q.strip()]
    return [TrustQuestion("unanswerable", q, language, "llm") for q in found[:count]]


async def make_questions(
    passages: Sequence[SourcePassage],
    config: SiteConfig,
    counts: QuestionCounts,
    call: StructuredCall | None = None,
) -> list[TrustQuestion]:
    """Generated questions, unanswerable and off-topic probes. With `call` (the LLM engine)
    the model writes the generated and unanswerable questions; templates make up any
    shortfall (a failed call), so a report always has all three kinds."""
    if not passages:
        raise ReportError(
            f"site {config.id!r} has no indexed content: ingest or crawl its sources first"
        )
    languages = [config.default_language, *config.languages]
    text_of_site = site_text(passages)
    generated: list[TrustQuestion] = []
    unanswerable: list[TrustQuestion] = []
    if call is not None:
        generated = await llm_generated(call, passages, counts.generated, config.id)
        unanswerable = await llm_unanswerable(
            call, passages, config.default_language, counts.unanswerable
        )
    if len(generated) < counts.generated:
        have = {q.text.casefold() for q in generated}
        more = generated_questions(passages, counts.generated * 2, config.id)
        generated += [q for q in more if q.text.casefold() not in have][
            : counts.generated - len(generated)
        ]
    if len(unanswerable) < counts.unanswerable:
        templated = unanswerable_probes(passages, languages, counts.unanswerable, text_of_site)
        unanswerable += templated[: counts.unanswerable - len(unanswerable)]
    off_topic = off_topic_probes(languages, counts.off_topic, text_of_site)
    return [*generated, *unanswerable, *off_topic]


def llm_caller(config: SiteConfig, settings: Settings) -> StructuredCall | None:
    """The site's fast (else main) model as a structured caller; None on the local engine."""
    from frontdesk.engines.llm.config import resolve_engine
    from frontdesk.engines.llm.models import build_models
    from frontdesk.engines.llm.structured import StructuredCaller

    resolved = resolve_engine(config, settings)
    if not resolved.uses_llm:
        return None
    models = build_models(resolved)
    model = models.fast or models.main
    if model is None:
        return None
    return StructuredCaller(
        model,
        fallback=models.fallback,
        method=resolved.structured_output,
        attempts=resolved.max_retries + 1,
        timeout_s=resolved.timeout_s,
    )


# -- running ------------------------------------------------------------------------------
def _turn(question: TrustQuestion, outcome: Outcome) -> TrustTurn:
    return TrustTurn(
        question=question,
        routing=outcome.routing,
        route=outcome.route,
        answer=outcome.answer,
        cited_doc_ids=outcome.cited_doc_ids,
        chunks=outcome.chunks,
        handoff=outcome.handoff,
        latency_ms=outcome.latency_ms,
        error=outcome.error,
    )


async def ask_all(
    space: Workspace, questions: Sequence[TrustQuestion], advance: Advance | None = None
) -> list[TrustTurn]:
    """Each question as the first message of a fresh session, through the real graph."""
    turns = []
    for number, question in enumerate(questions, start=1):
        item = EvalItem(
            id=f"trust-{number}",
            input=ItemInput(query=question.text),
            metadata=Metadata(site_name=space.site.config.id, category=question.kind),
        )
        turns.append(_turn(question, await run_item(space.service, space.site, item)))
        if advance is not None:
            advance()
    return turns


def build_report(
    site_id: str,
    engine: str,
    turns: Sequence[TrustTurn],
    seconds: float,
    pages: int,
) -> dict[str, Any]:
    return {
        "site": site_id,
        "engine": engine,
        "pages": pages,
        "seconds": round(seconds, 1),
        "figures": {**figures(turns), "pages": pages, "seconds": round(seconds, 1)},
        "examples": examples(turns),
        "questions": [turn.as_dict() for turn in turns],
    }


async def run_report(
    space: Workspace,
    counts: QuestionCounts,
    *,
    call: StructuredCall | None = None,
    on_questions: Callable[[int], None] | None = None,
    advance: Advance | None = None,
) -> dict[str, Any]:
    """Questions from the site's index, asked through the graph, scored."""
    started = time.perf_counter()
    knowledge = space.service.knowledge
    config = space.site.config
    passages = read_passages(knowledge.index.engine, knowledge.index_key(config), config)
    questions = await make_questions(passages, config, counts, call)
    if on_questions is not None:
        on_questions(len(questions))
    await space.service.warm_up()
    turns = await ask_all(space, questions, advance)
    engine = "llm" if call is not None else "local"
    pages = len({p.doc_id for p in passages})
    return build_report(config.id, engine, turns, time.perf_counter() - started, pages)


# -- where the turns run ------------------------------------------------------------------
@asynccontextmanager
async def open_trust_workspace(
    settings: Settings, site_id: str, knowledge_engine: Engine
) -> AsyncIterator[Workspace]:
    """A ChatService whose turns are written to a throwaway store (deleted afterwards) and
    whose searches read the served index on `knowledge_engine` (read only)."""
    try:
        async with scratch_workspace(
            settings, site_id, prefix="frontdesk-trust-", knowledge_engine=knowledge_engine
        ) as space:
            yield space
    except UnknownSiteError as error:
        raise ReportError(str(error)) from error


def counts_for(total: int) -> QuestionCounts:
    """`--questions N`: about 55 % generated, the rest unanswerable and off-topic alike."""
    generated = max(1, round(total * 0.55))
    rest = max(0, total - generated)
    return replace(QuestionCounts(), generated=generated, unanswerable=rest - rest // 2,
                   off_topic=rest // 2)  # fmt: skip

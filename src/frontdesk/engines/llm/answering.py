"""LLM jobs around the answer: rewrite/expand (HyDE-style), grade, verify, evaluate,
suggest. Each returns the local engine's answer when the model fails or is invalid."""

from __future__ import annotations

from collections.abc import Sequence

from frontdesk.conversation.register import Tone, address_instruction
from frontdesk.engines.base import (
    AnswerEvaluatorJob,
    Claim,
    ClaimVerifierJob,
    DocumentGraderJob,
    Evaluation,
    QueryRewriterJob,
    SuggesterJob,
    Turn,
    Verification,
)
from frontdesk.engines.llm.messages import (
    format_history,
    format_passages,
    passage_scrubber,
    task,
    visitor_message,
)
from frontdesk.engines.llm.prompts import PromptBook
from frontdesk.engines.llm.schemas import (
    EvaluationOutput,
    GradeOutput,
    QueryOutput,
    SuggestionsOutput,
    VerificationOutput,
)
from frontdesk.engines.llm.structured import StructuredCaller
from frontdesk.engines.local.answering.rewrite import is_follow_up
from frontdesk.guard.pii import PLACEHOLDER, PiiScrubber
from frontdesk.knowledge.models import RetrievedChunk


def _clean_query(query: str) -> str:
    """Placeholders never reach the search (nor an embedding provider)."""
    return " ".join(PLACEHOLDER.sub(" ", query).split())


def _answer_block(answer: str, scrubber: PiiScrubber) -> str:
    return f"<answer>\n{scrubber.scrub(answer)}\n</answer>"


class _Job:
    def __init__(self, caller: StructuredCaller, prompts: PromptBook) -> None:
        self.caller = caller
        self.prompts = prompts


class LLMQueryRewriter(_Job):
    def __init__(
        self,
        caller: StructuredCaller,
        prompts: PromptBook,
        local: QueryRewriterJob,
        *,
        follow_ups_only: bool = False,
    ) -> None:
        super().__init__(caller, prompts)
        self.local = local
        self.follow_ups_only = follow_ups_only  # hybrid: the LLM only resolves follow-ups

    async def rewrite(self, question: str, history: Sequence[Turn], language: str) -> str:
        if self.follow_ups_only and not is_follow_up(question, history, language):
            return await self.local.rewrite(question, history, language)
        scrubber = PiiScrubber()
        messages = task(
            self.prompts.system("query_rewriter", language=language),
            format_history(history, scrubber),
            visitor_message(question, scrubber),
        )
        out = await self.caller(QueryOutput, messages, "query_rewriter")
        query = _clean_query(out.query) if out else ""
        return query or await self.local.rewrite(question, history, language)

    async def expand(self, question: str, language: str) -> str:
        if self.follow_ups_only:
            return await self.local.expand(question, language)
        messages = task(
            self.prompts.system("query_expander", language=language),
            visitor_message(question, PiiScrubber()),
        )
        out = await self.caller(QueryOutput, messages, "query_expander")
        query = _clean_query(out.query) if out else ""
        return query or await self.local.expand(question, language)


class LLMDocumentGrader(_Job):
    def __init__(
        self, caller: StructuredCaller, prompts: PromptBook, local: DocumentGraderJob
    ) -> None:
        super().__init__(caller, prompts)
        self.local = local

    async def grade(self, question: str, chunks: Sequence[RetrievedChunk]) -> list[bool]:
        if not chunks:
            return []
        scrubber = passage_scrubber(chunks)
        messages = task(
            self.prompts.system("document_grader"),
            format_passages(chunks),
            visitor_message(question, scrubber),
        )
        out = await self.caller(GradeOutput, messages, "document_grader")
        if out is None:
            return await self.local.grade(question, chunks)
        dropped = set(out.irrelevant)
        return [number not in dropped for number in range(1, len(chunks) + 1)]


class LLMClaimVerifier(_Job):
    def __init__(
        self, caller: StructuredCaller, prompts: PromptBook, local: ClaimVerifierJob
    ) -> None:
        super().__init__(caller, prompts)
        self.local = local

    async def verify(self, answer: str, chunks: Sequence[RetrievedChunk]) -> Verification:
        scrubber = passage_scrubber(chunks)
        messages = task(
            self.prompts.system("claim_verifier"),
            format_passages(chunks),
            _answer_block(answer, scrubber),
        )
        out = await self.caller(VerificationOutput, messages, "claim_verifier")
        if out is None:
            return await self.local.verify(answer, chunks)
        claims = tuple(
            Claim(
                text=scrubber.restore(claim.text),
                supported=claim.supported,
                support=1.0 if claim.supported else 0.0,
                chunk_index=claim.passage - 1
                if claim.passage and 1 <= claim.passage <= len(chunks)
                else None,
            )
            for claim in out.claims
        )
        supported = sum(claim.supported for claim in claims)
        return Verification(
            claims=claims, factuality_score=supported / len(claims) if claims else 1.0
        )


class LLMAnswerEvaluator(_Job):
    def __init__(
        self, caller: StructuredCaller, prompts: PromptBook, local: AnswerEvaluatorJob
    ) -> None:
        super().__init__(caller, prompts)
        self.local = local

    async def evaluate(
        self, question: str, answer: str, chunks: Sequence[RetrievedChunk]
    ) -> Evaluation:
        scrubber = passage_scrubber(chunks)
        messages = task(
            self.prompts.system("answer_evaluator"),
            format_passages(chunks),
            visitor_message(question, scrubber),
            _answer_block(answer, scrubber),
        )
        out = await self.caller(EvaluationOutput, messages, "answer_evaluator")
        if out is None:
            return await self.local.evaluate(question, answer, chunks)
        score = round(out.quality / 100, 3)  # relevance = quality / 100
        return Evaluation(
            quality=score, relevance=score, coverage=out.coverage, reasoning=out.reasoning
        )


class LLMSuggester(_Job):
    def __init__(self, caller: StructuredCaller, prompts: PromptBook, local: SuggesterJob) -> None:
        super().__init__(caller, prompts)
        self.local = local

    async def follow_ups(
        self,
        question: str,
        answer: str,
        chunks: Sequence[RetrievedChunk],
        language: str,
        tone: Tone = "formal",
    ) -> list[str]:
        if not chunks:
            return await self.local.follow_ups(question, answer, chunks, language, tone)
        scrubber = passage_scrubber(chunks)
        messages = task(
            self.prompts.system("suggester", language=language, address=address_instruction(tone)),
            format_passages(chunks),
            visitor_message(question, scrubber),
        )
        out = await self.caller(SuggestionsOutput, messages, "suggester")
        questions = [q.strip() for q in (out.questions if out else []) if q.strip()]
        if not questions:
            return await self.local.follow_ups(question, answer, chunks, language, tone)
        return [scrubber.restore(q) for q in questions[:3]]

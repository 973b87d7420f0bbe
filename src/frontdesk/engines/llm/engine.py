"""The `llm` engine: which implementation answers each job, per routing mode.

| job                         | local mode | hybrid mode                         | llm mode |
|-----------------------------|------------|-------------------------------------|----------|
| intent                      | local      | local; LLM if confidence < threshold | LLM      |
| signals, skills             | local      | local                               | LLM      |
| rewrite (retrieval starter) | local      | local; LLM for follow-ups           | LLM      |
| grade                       | local      | local                               | LLM      |
| write                       | main       | main                                | main     |
| verify, evaluate            | judge      | judge                               | judge    |
| suggest                     | fast       | fast                                | fast     |

A role configured as `local` keeps the local implementation whatever the mode, and every
LLM job falls back to its local twin when the model fails or answers out of shape.
"""

from __future__ import annotations

from frontdesk.engines.base import Engines
from frontdesk.engines.llm.answering import (
    LLMAnswerEvaluator,
    LLMClaimVerifier,
    LLMDocumentGrader,
    LLMQueryRewriter,
    LLMSuggester,
)
from frontdesk.engines.llm.classify import (
    HybridIntentJob,
    LLMIntentJob,
    LLMSignalsJob,
    LLMSkillsJob,
)
from frontdesk.engines.llm.config import ResolvedEngine, Role
from frontdesk.engines.llm.models import ModelSet
from frontdesk.engines.llm.prompts import PromptBook
from frontdesk.engines.llm.structured import StructuredCaller
from frontdesk.engines.llm.writer import LLMAnswerWriter


def build_llm_engines(
    engine: ResolvedEngine,
    site_name: str,
    site_instructions: str,
    local: Engines,
    models: ModelSet,
) -> Engines:
    prompts = PromptBook(site_name, site_instructions, langfuse=engine.langfuse_prompts)
    callers: dict[Role, StructuredCaller] = {}
    for role in ("fast", "judge"):
        model = models.role(role)
        if model is not None:
            callers[role] = StructuredCaller(
                model,
                fallback=models.fallback,
                method=engine.structured_output,
                attempts=engine.max_retries + 1,
                timeout_s=engine.timeout_s,
            )
    fast = callers.get("fast")
    judge = callers.get("judge")
    mode = engine.routing_mode

    intent = local.intent
    signals, skills, rewriter, grader = local.signals, local.skills, local.rewriter, local.grader
    if fast is not None:
        llm_intent = LLMIntentJob(fast, prompts, local.intent)
        if mode == "llm":
            intent = llm_intent
            signals = LLMSignalsJob(fast, prompts, local.signals)
            skills = LLMSkillsJob(fast, prompts, local.skills)
            grader = LLMDocumentGrader(fast, prompts, local.grader)
            rewriter = LLMQueryRewriter(fast, prompts, local.rewriter)
        elif mode == "hybrid":
            intent = HybridIntentJob(local.intent, llm_intent, engine.hybrid_confidence)
            rewriter = LLMQueryRewriter(fast, prompts, local.rewriter, follow_ups_only=True)

    writer = local.writer
    if models.main is not None:
        writer = LLMAnswerWriter(
            prompts,
            models.main,
            fast=models.fast,
            fallback=models.fallback,
            attempts=engine.max_retries + 1,
            first_token_timeout_s=engine.stream_timeout_ms / 1000,
            idle_timeout_s=engine.timeout_s,
            complexity_routing=engine.complexity_routing,
        )
    return Engines(
        name=f"llm/{mode}",
        intent=intent,
        signals=signals,
        skills=skills,
        rewriter=rewriter,
        grader=grader,
        writer=writer,
        verifier=LLMClaimVerifier(judge, prompts, local.verifier) if judge else local.verifier,
        evaluator=LLMAnswerEvaluator(judge, prompts, local.evaluator) if judge else local.evaluator,
        suggester=LLMSuggester(fast, prompts, local.suggester) if fast else local.suggester,
        prompt_version=prompts.version,
        models=dict(models.names),
    )

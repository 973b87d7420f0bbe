"""Every structured LLM job with scripted chat models: the model's answer when valid,
retries and the fallback model on errors, the local engine's answer when all fail."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from frontdesk.engines.base import Engines, IntentResult, Turn
from frontdesk.engines.llm.config import ResolvedEngine
from frontdesk.engines.llm.engine import build_llm_engines
from frontdesk.engines.llm.models import ModelSet
from frontdesk.engines.llm.schemas import (
    ClaimOutput,
    EvaluationOutput,
    GradeOutput,
    IntentOutput,
    QualificationLevels,
    QueryOutput,
    SignalsOutput,
    SkillsOutput,
    SuggestionsOutput,
    VerificationOutput,
)
from frontdesk.engines.local.engine import build_local_engines
from frontdesk.knowledge.models import RetrievedChunk
from tests.support.scripted import ScriptedChatModel, Slow

pytestmark = pytest.mark.unit

LOCAL = build_local_engines(None)


def resolved(mode: str = "llm", **values: Any) -> ResolvedEngine:
    defaults: dict[str, Any] = {
        "name": "llm",
        "roles": {"fast": "scripted:fast", "main": "scripted:main", "judge": "scripted:fast"},
        "routing_mode": mode,
        "hybrid_confidence": 0.6,
        "max_retries": 1,
        "timeout_s": 0.5,
        "structured_output": "function_calling",
    }
    return ResolvedEngine(**{**defaults, **values})


def engines(
    fast: list[Any],
    *,
    mode: str = "llm",
    fallback: list[Any] | None = None,
    **values: Any,
) -> tuple[Engines, ScriptedChatModel, ScriptedChatModel | None]:
    fast_model = ScriptedChatModel(outcomes=fast, model_name="fast")
    backup = ScriptedChatModel(outcomes=fallback, model_name="backup") if fallback else None
    models = ModelSet(
        fast=fast_model,
        main=ScriptedChatModel(model_name="main"),
        judge=fast_model,
        fallback=backup,
    )
    return (
        build_llm_engines(resolved(mode, **values), "Acme", "", LOCAL, models),
        fast_model,
        backup,
    )


def chunks() -> list[RetrievedChunk]:
    def one(i: int, text: str) -> RetrievedChunk:
        return RetrievedChunk(
            chunk_id=f"c{i}",
            doc_id=f"d{i}",
            title=f"Doc {i}",
            url="",
            content=text,
            score=0.8,
            source="s",
            chunk_index=0,
        )

    return [one(1, "Sync runs every 5 minutes."), one(2, "SSO uses SAML 2.0.")]


def intent(label: str = "LEARN", confidence: float = 0.9) -> IntentOutput:
    return IntentOutput(reasoning="asks about a feature", intent=label, confidence=confidence)  # type: ignore[arg-type]


async def test_intent_from_the_model() -> None:
    jobs, fast, _ = engines([intent("BOOKING", 0.8)])
    result = await jobs.intent.classify("can I see it in action?", [Turn("hi", "hello")])
    assert (result.intent, result.confidence) == ("BOOKING", 0.8)
    assert result.reasoning.startswith("llm: asks")
    prompt = fast.seen[0]
    assert "<visitor_message>" in prompt[-1].text and "<history>" in prompt[-1].text


async def test_retry_then_success() -> None:
    jobs, fast, _ = engines([ConnectionError("reset"), intent("SUPPORT")])
    assert (await jobs.intent.classify("my login fails", [])).intent == "SUPPORT"
    assert not fast.outcomes


async def test_per_call_timeout_then_fallback_model() -> None:
    jobs, _, backup = engines(
        [Slow(5, intent()), Slow(5, intent())], fallback=[intent("OFFTOPIC", 0.7)]
    )
    result = await jobs.intent.classify("weather?", [])
    assert result.intent == "OFFTOPIC"
    assert backup is not None and not backup.outcomes


async def test_all_failures_fall_back_to_local() -> None:
    local = await LOCAL.intent.classify("How does SSO work in Tessellate?", [])
    jobs, _, _ = engines([RuntimeError("500"), RuntimeError("500")])
    result = await jobs.intent.classify("How does SSO work in Tessellate?", [])
    assert result == local


async def test_invalid_output_falls_back_to_local() -> None:
    # The wrong schema (a grade instead of an intent) never validates as an intent.
    wrong = GradeOutput(reasoning="?", irrelevant=[1])
    jobs, _, _ = engines([wrong, wrong])
    result = await jobs.intent.classify("hello", [])
    assert result == await LOCAL.intent.classify("hello", [])


async def test_json_object_method_with_fake_list_model() -> None:
    """Models without tool calling get the schema in the prompt and answer in JSON."""
    reply = '```json\n{"reasoning": "a greeting", "intent": "OTHER", "confidence": 0.95}\n```'
    model = FakeListChatModel(responses=[reply, "not json at all", "still not"])
    models = ModelSet(fast=model, main=model, judge=model)
    jobs = build_llm_engines(resolved(structured_output="auto"), "Acme", "", LOCAL, models)
    assert (await jobs.intent.classify("hi there", [])).intent == "OTHER"
    fallback = await jobs.intent.classify("hi there", [])  # both replies invalid → local
    assert fallback == await LOCAL.intent.classify("hi there", [])


async def test_hybrid_asks_the_llm_only_below_the_threshold() -> None:
    jobs, fast, _ = engines([intent("STOP_BOOKING", 0.9)], mode="hybrid", hybrid_confidence=1.0)
    confident = await LOCAL.intent.classify("How does SSO work in Tessellate?", [])
    unsure = await jobs.intent.classify("We are 40 people", [])
    assert unsure.intent == "STOP_BOOKING" and "below" in unsure.reasoning
    jobs2, fast2, _ = engines([], mode="hybrid", hybrid_confidence=0.0)
    sure = await jobs2.intent.classify("How does SSO work in Tessellate?", [])
    assert sure == confident and not fast2.seen
    assert len(fast.seen) == 1


async def test_hybrid_routing_keeps_other_classifiers_local() -> None:
    jobs, _, _ = engines([], mode="hybrid")
    assert jobs.signals is LOCAL.signals and jobs.skills is LOCAL.skills
    assert jobs.grader is LOCAL.grader
    jobs_local, _, _ = engines([], mode="local")
    assert jobs_local.intent is LOCAL.intent
    assert type(jobs_local.writer).__name__ == "LLMAnswerWriter"


async def test_signals_merge_with_local_patterns() -> None:
    out = SignalsOutput(
        reasoning="timeline and authority",
        interest_signals=["implementation_timeline"],
        qualification=QualificationLevels(authority_fit="confirmed"),
        flags=["referral_mentioned"],
    )
    jobs, fast, _ = engines([out])
    text = "I'm the CTO, we want to go live next month, can I get a demo? ann@acme.io"
    result = await jobs.signals.detect(text, "en")
    assert {"implementation_timeline", "demo_interest"} <= set(result.interest_signals)
    assert result.qualification["authority_fit"] == "confirmed"
    assert "referral_mentioned" in result.flags
    assert result.email == "ann@acme.io"  # from the local patterns; the LLM never saw it
    assert "ann@acme.io" not in fast.seen[0][-1].text


async def test_skills_rewrite_and_expand() -> None:
    jobs, _, _ = engines(
        [
            SkillsOutput(reasoning="interested", skills=["propose_demo", "propose_demo"]),
            QueryOutput(reasoning="resolve 'it'", query="Tessellate SSO setup [EMAIL_1]"),
            QueryOutput(reasoning="synonyms", query="single sign-on SAML setup"),
        ]
    )
    choice = await jobs.skills.select(IntentResult("LEARN", 0.9), 0.8, 0.7, 3)
    assert choice.skills == ("propose_demo",)
    query = await jobs.rewriter.rewrite("how do I set it up?", [Turn("SSO?", "Yes.")], "en")
    assert query == "Tessellate SSO setup"
    assert await jobs.rewriter.expand("sso", "en") == "single sign-on SAML setup"


async def test_grade_verify_evaluate_suggest() -> None:
    jobs, _, _ = engines(
        [
            GradeOutput(reasoning="doc 2 is about SSO", irrelevant=[2]),
            VerificationOutput(
                reasoning="one of two",
                claims=[
                    ClaimOutput(text="Sync runs every 5 minutes", supported=True, passage=1),
                    ClaimOutput(text="It is free", supported=False),
                ],
            ),
            EvaluationOutput(reasoning="complete", quality=85, coverage="full"),
            SuggestionsOutput(reasoning="next", questions=["Does SSO need SAML?", " "]),
        ]
    )
    docs = chunks()
    assert await jobs.grader.grade("how often does sync run?", docs) == [True, False]
    verification = await jobs.verifier.verify("Sync runs every 5 minutes [1]. It is free.", docs)
    assert verification.factuality_score == 0.5
    assert verification.claims[0].chunk_index == 0
    evaluation = await jobs.evaluator.evaluate("how often?", "Every 5 minutes [1].", docs)
    assert (evaluation.quality, evaluation.relevance, evaluation.coverage) == (0.85, 0.85, "full")
    assert await jobs.suggester.follow_ups("q", "a", docs, "en") == ["Does SSO need SAML?"]


async def test_answer_jobs_fall_back_to_local() -> None:
    jobs, _, _ = engines([RuntimeError("down")] * 8)
    docs = chunks()
    assert await jobs.grader.grade("sync?", docs) == await LOCAL.grader.grade("sync?", docs)
    answer = "Sync runs every 5 minutes [1]."
    assert await jobs.verifier.verify(answer, docs) == await LOCAL.verifier.verify(answer, docs)
    assert await jobs.evaluator.evaluate("sync?", answer, docs) == await LOCAL.evaluator.evaluate(
        "sync?", answer, docs
    )


def test_engines_record_prompt_version_and_models() -> None:
    jobs, _, _ = engines([])
    assert jobs.name == "llm/llm"
    assert jobs.prompt_version and jobs.prompt_version.startswith("v1-")

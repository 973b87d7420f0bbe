"""The trust report's questions written by a real local model: SmolLM2 served by
`python -m llama_cpp.server` on loopback, reached as an `openai:` model with a base_url,
through the same structured-call helper the LLM engine uses. The model is tiny: the test
checks that its questions arrive in shape and are tied to their pages, not their wit."""

from __future__ import annotations

from pathlib import Path

import pytest

from frontdesk.evals.trust import llm_caller, make_questions
from frontdesk.evals.trust_questions import QuestionCounts, SourcePassage
from frontdesk.settings import Settings
from frontdesk.sites.schema import SiteConfig
from tests.support.llama import LlamaServer

pytestmark = [pytest.mark.integration, pytest.mark.llm_local, pytest.mark.timeout(1200)]

PASSAGES = [
    SourcePassage("sso.md", "Single sign-on", "# Single sign-on\n\nEvery plan supports "
                  "sign-in with SAML 2.0 and OIDC identity providers.", "en"),
    SourcePassage("sync.md", "Sync schedule", "# Sync schedule\n\nConnectors sync every five "
                  "minutes on all plans; Enterprise can sync every minute.", "en"),
]  # fmt: skip


async def test_the_local_model_writes_questions_tied_to_their_pages(
    llama: LlamaServer, tmp_path: Path
) -> None:
    site = SiteConfig.model_validate(
        {
            "id": "tiny",
            "name": "Tiny",
            "widget": {"public_key": "pk_tiny_000000000001"},
            "business_hours": {"timezone": "UTC"},
            "engine": {
                "name": "llm",
                "roles": {"fast": "openai:smollm2", "main": "openai:smollm2"},
                "base_url": llama.base_url,
                "structured_output": "json_object",
                "timeout_s": 240,
                "max_retries": 1,
                "options": {"temperature": 0, "max_tokens": 256},
            },
        }
    )
    call = llm_caller(site, Settings(data_dir=tmp_path / "data"))
    assert call is not None  # an llm site gets the model, not the local generator
    questions = await make_questions(
        PASSAGES, site, QuestionCounts(generated=2, unanswerable=2, off_topic=2), call
    )
    written = [q for q in questions if q.method == "llm"]
    assert written, "the model wrote none of the questions"
    for question in written:
        assert question.text.strip()
        if question.kind == "generated":
            assert question.doc_id in {"sso.md", "sync.md"}
    kinds = [q.kind for q in questions]
    assert kinds.count("generated") == 2 and kinds.count("unanswerable") == 2

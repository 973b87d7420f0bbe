"""A pasted 14,000-character message through the real graph: the local engine reads it off
the event loop and only at its start and end, so one visitor's paste does not stall other
visitors' turns. What must survive: the whole message in the transcript, and an answer."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.engines.local import signals

pytestmark = pytest.mark.integration

KB = Path(__file__).resolve().parents[3] / "src" / "frontdesk" / "demo" / "kb"


async def test_a_long_paste_is_classified_off_the_loop_and_kept_whole(
    service: ChatService, session_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    paste = " ".join(p.read_text("utf-8") for p in sorted(KB.glob("*.md")))
    message = ("What does the automation builder do? Our notes:\n" + paste)[:14_000]
    seen: dict[str, list[tuple[bool, int]]] = {"intent": [], "signals": []}
    classifier = service.engines.intent.classifier  # type: ignore[attr-defined]
    predict, detect = classifier.predict, signals.detect_signals

    def spy(name: str, job: Any) -> Any:
        def run(text: str) -> Any:
            seen[name].append((threading.current_thread() is threading.main_thread(), len(text)))
            return job(text)

        return run

    monkeypatch.setattr(classifier, "predict", spy("intent", predict))
    monkeypatch.setattr(signals, "detect_signals", spy("signals", detect))

    site = service.runtime.site("demo")
    result = await service.ask(site, session_id, message, VisitorContext())

    assert result.answer
    for name, calls in seen.items():
        assert calls, f"{name} never ran"
        assert all(not on_loop for on_loop, _ in calls), f"{name} ran on the event loop"
        assert all(read <= 1_700 for _, read in calls), f"{name} read the whole paste"
    history = await service.history(site, session_id)
    assert history[0]["content"] == message

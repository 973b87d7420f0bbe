"""Live human takeover, end to end: a visitor's widget and an operator's console in two
Chromium contexts, on two `frontdesk serve` replicas sharing PostgreSQL and Redis.

The visitor's page loads the widget through a loopback TCP load balancer stand-in
(`tests/support/failover_proxy.py`) that sends every new connection to replica A while A
is up, then to B; the operator uses B's console directly. The assistant runs on the LLM
engine against the loopback simulated provider, so the test can read what the model was
given after the release (the human exchange must be in its memory) and count the model
calls made while the person owned the chat (none).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from browser_support import HostSite, new_context, sign_in, widget

from frontdesk.settings import Settings
from tests.conftest import private_copy
from tests.integration.production.replicas import Replica, ingest_for_replicas
from tests.support.failover_proxy import FailoverProxy
from tests.support.simulator import SimulatedProvider

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.redis]

REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO_ROOT / "docs" / "img"
OPERATOR = "dana@takeover.test"
PASSWORD = "correct horse battery"
SITE_KEY = "pk_demo_tessellate_0001"
COMPLETE = '.turn.assistant[data-state="complete"]'
VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}


@dataclass
class Deployment:
    a: Replica
    b: Replica
    proxy: FailoverProxy
    host: HostSite
    provider: SimulatedProvider
    site_name: str


def _sites(source: Path, target: Path, provider: SimulatedProvider, origins: list[str]) -> str:
    shutil.copytree(source, target)
    demo_file = target / "demo.yaml"
    demo = yaml.safe_load(demo_file.read_text(encoding="utf-8"))
    demo["widget"]["allowed_origins"] = [*demo["widget"]["allowed_origins"], *origins]
    demo["engine"] = {
        "name": "llm",
        "roles": {"fast": "openai:fast", "main": "openai:main", "judge": "openai:fast"},
        "routing_mode": "local",
        "base_url": provider.base_url,
        "max_retries": 0,
    }
    demo["business_hours"] = {**demo["business_hours"], **open_now()}
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")
    return str(demo["name"])


def open_now() -> dict[str, Any]:
    """Business hours in which it is about noon now, whatever the hour and the day the test
    runs: the fixed Etc/GMT zone whose local time is 12:xx (POSIX signs: Etc/GMT-2 is
    UTC+2), every day of the week (CI also runs on weekends)."""
    offset = 12 - datetime.now(UTC).hour
    zone = "Etc/GMT" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"
    days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    return {
        "timezone": zone,
        "start": "06:00",
        "end": "18:00",
        "same_day_cutoff": "17:00",
        "days": days,
    }


def _add_operator(database_url: str) -> None:
    from sqlalchemy.orm import sessionmaker

    from frontdesk.console.passwords import hash_password
    from frontdesk.store.db import make_engine, transaction
    from frontdesk.store.operators import OperatorRepository

    engine = make_engine(database_url)
    try:
        with transaction(sessionmaker(engine)) as session:
            operators = OperatorRepository(session)
            operators.grant(operators.ensure(OPERATOR, hash_password(PASSWORD)), "demo", "agent")
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def deployment(
    ingested_demo: Settings,
    module_pg_url: str,
    module_redis_prefix: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("takeover")
    knowledge = private_copy(ingested_demo.data_dir, root / "knowledge")
    with SimulatedProvider() as provider, HostSite() as host:
        replica_ports: list[int] = []
        proxy = FailoverProxy(replica_ports)
        site_name = _sites(ingested_demo.sites_dir, root / "sites", provider, [host.url, proxy.url])
        env = {
            "FRONTDESK_DATABASE_URL": module_pg_url,
            "FRONTDESK_REDIS_URL": "redis://127.0.0.1:6379/0",
            "FRONTDESK_REDIS_PREFIX": module_redis_prefix,
            "FRONTDESK_SITES_DIR": str(root / "sites"),
            "FRONTDESK_DATA_DIR": str(root / "data"),
            # Without pgvector the replicas read the ingested SQLite index; with it (as
            # `make pgvector` installs) the knowledge lives in PostgreSQL, ingested below.
            "FRONTDESK_KNOWLEDGE_URL": f"sqlite:///{knowledge / 'frontdesk.db'}",
            "FRONTDESK_DEMO_SITE": "false",
        }
        ingest_for_replicas(env)
        a = Replica(env, root, "replica-a")
        b = Replica(env, root, "replica-b")
        try:
            a.wait_ready()
            b.wait_ready()
            replica_ports.extend([a.port, b.port])
            proxy.upstream_ports = list(replica_ports)
            proxy.connections = {port: 0 for port in replica_ports}
            _add_operator(module_pg_url)
            with proxy:
                yield Deployment(a, b, proxy, host, provider, site_name)
        finally:
            a.stop()
            b.stop()


@pytest.fixture(scope="module")
def module_pg_url() -> Iterator[str]:
    from tests.integration.production.conftest import fresh_pg_database

    yield from fresh_pg_database()


@pytest.fixture(scope="module")
def module_redis_prefix() -> Iterator[str]:
    from tests.integration.production.conftest import fresh_redis_prefix

    yield from fresh_redis_prefix()


def visitor_page(deployment: Deployment) -> str:
    proxy = deployment.proxy.url
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Acme docs</title></head>"
        "<body><main><h1>Acme documentation</h1><p>Questions? Use the chat.</p></main>"
        f'<script src="{proxy}/widget.js" defer></script>'
        f'<frontdesk-chat api-url="{proxy}" site-key="{SITE_KEY}" proactive-delay-ms="off" '
        'fallback-url="https://acme.example/contact"></frontdesk-chat>'
        "</body></html>"
    )


def main_calls(provider: SimulatedProvider) -> list[dict[str, Any]]:
    """The answer-writing calls the replicas made (the streamed main-model requests)."""
    return [r for r in provider.requests if r.get("model") == "main" and r.get("stream")]


def visitor_says(chat: Any, text: str) -> None:
    widget(chat, "textarea").fill(text)
    widget(chat, "textarea").press("Enter")


def no_horizontal_scroll(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


def test_an_operator_takes_over_across_replicas_and_a_replica_dies_mid_chat(
    browser: Any, deployment: Deployment
) -> None:
    from playwright.sync_api import expect

    d = deployment
    visitor = new_context(browser)
    operator = new_context(browser)
    errors: list[str] = []
    try:
        d.host.serve("/docs", visitor_page(d))
        chat = visitor.new_page()
        chat.goto(f"{d.host.url}/docs")
        widget(chat, ".launcher").click()
        widget(chat, ".gdpr-ok").click()
        question = "How does Data Sync handle conflicts?"
        visitor_says(chat, question)
        expect(widget(chat, COMPLETE)).to_have_count(1, timeout=60_000)
        assert d.proxy.connections[d.a.port] > 0 and d.proxy.connections[d.b.port] == 0

        # The operator, on the other replica, finds the conversation in the inbox.
        console = operator.new_page()
        console.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        sign_in(console, d.b.url, OPERATOR, PASSWORD, "/console/sites/demo/inbox")
        row = console.locator("tr.conversation", has_text=question)
        expect(row).to_be_visible(timeout=15_000)
        row.locator("a.join").click()
        expect(console.locator("h1")).to_contain_text("Live chat")
        log = console.locator(".live-log")
        expect(log.locator(".msg.visitor").first).to_contain_text(question)
        expect(console.locator(".handoff-card, .context .hint").first).to_be_visible()
        console.locator("button.join").click()
        expect(console.locator(".live-status")).to_have_attribute("data-state", "mine")
        expect(console.locator("button.join")).to_be_hidden()
        expect(console.locator("button.release")).to_be_visible()

        # The visitor sees who joined, on replica A (the bus crossed replicas).
        joined = widget(chat, '.live-note[data-kind="operator_joined"]')
        expect(joined).to_have_count(1, timeout=15_000)
        expect(joined).to_contain_text("joined")
        expect(joined).to_contain_text(d.site_name)

        # Typing, both ways.
        console.locator("#live-text").press_sequentially("Hi", delay=50)
        expect(widget(chat, ".typing-row")).to_be_visible(timeout=10_000)
        widget(chat, "textarea").press_sequentially("One", delay=50)
        expect(console.locator(".live-typing")).to_be_visible(timeout=10_000)
        widget(chat, "textarea").fill("")

        # Operator → visitor.
        first = "Hi, Dana here. Your workspace code is KESTREL-9041."
        console.locator("#live-text").fill(first)
        console.locator("#live-text").press("Enter")
        operator_bubbles = widget(chat, ".turn.operator:not(.typing-row) .bubble")
        expect(operator_bubbles).to_have_count(1, timeout=15_000)
        expect(operator_bubbles.first).to_contain_text(first)
        expect(widget(chat, ".typing-row")).to_have_count(0)

        # Visitor → operator; the assistant stays silent while the person owns the chat.
        calls_before = len(main_calls(d.provider))
        reply = "Thanks Dana, where do I paste it?"
        visitor_says(chat, reply)
        expect(log.locator(".msg.visitor", has_text=reply)).to_have_count(1, timeout=15_000)
        expect(widget(chat, ".turn.user").filter(has_text=reply)).to_have_count(1)
        expect(widget(chat, ".turn.assistant:not([hidden])")).to_have_count(1)
        expect(widget(chat, "textarea")).to_be_enabled()

        # Replica A dies (SIGKILL). The widget reconnects through the proxy to B.
        d.a.process.kill()
        d.a.process.wait(timeout=10)
        second = "Paste it under Settings, then Workspace."
        console.locator("#live-text").fill(second)
        console.locator("#live-text").press("Enter")
        expect(operator_bubbles).to_have_count(2, timeout=30_000)
        expect(operator_bubbles.nth(1)).to_contain_text(second)
        after_crash = "Found it, thank you!"
        visitor_says(chat, after_crash)
        expect(log.locator(".msg.visitor", has_text=after_crash)).to_have_count(1, timeout=15_000)
        assert len(main_calls(d.provider)) == calls_before, "the bot answered a relayed message"
        assert d.proxy.connections[d.b.port] > 0

        # Nothing lost, nothing twice: the visible transcript, message by message.
        texts = [t.strip() for t in operator_bubbles.all_inner_texts()]
        assert len(texts) == 2 and first in texts[0] and second in texts[1], texts
        assert widget(chat, ".turn.user").count() == 3
        expect(joined).to_have_count(1)

        if SCREENSHOTS.is_dir():
            widget(chat, ".panel").screenshot(path=str(SCREENSHOTS / "takeover-visitor.png"))
            console.screenshot(path=str(SCREENSHOTS / "takeover-console.png"))

        # Release: the assistant answers again, with the human exchange in its memory.
        console.locator("button.release").click()
        expect(console.locator(".live-status")).to_have_attribute("data-state", "watching")
        expect(widget(chat, '.live-note[data-kind="released"]')).to_have_count(1, timeout=15_000)
        # A question the knowledge base answers, so the writer model runs and reads the
        # conversation's history (an unanswerable one gets a fixed text, no model call).
        visitor_says(chat, "And how does Data Sync handle conflicts between two edits?")
        expect(widget(chat, COMPLETE)).to_have_count(2, timeout=60_000)
        calls = main_calls(d.provider)
        assert len(calls) > calls_before, "the bot did not answer after the release"
        prompt = str(calls[-1]["messages"])
        assert "KESTREL-9041" in prompt, "the human exchange is not in the bot's memory"
        assert "Paste it under Settings" in prompt

        # A reload restores the whole conversation, operator messages once each.
        chat.reload()
        expect(widget(chat, ".panel")).to_be_visible()  # the widget remembers it was open
        expect(widget(chat, COMPLETE)).to_have_count(2, timeout=15_000)
        restored = widget(chat, ".turn.operator:not(.typing-row) .bubble")
        expect(restored).to_have_count(2)
        chat.wait_for_timeout(1500)  # the stream reconnects: still no duplicate
        expect(restored).to_have_count(2)
        assert not [e for e in errors if "Content Security Policy" in e], errors
    finally:
        visitor.close()
        operator.close()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_live_chat_page_and_the_widget_fit_each_viewport(
    browser: Any, deployment: Deployment, viewport: str
) -> None:
    from playwright.sync_api import expect

    d = deployment
    server = d.b  # replica A may have been killed by the test above
    visitor = new_context(browser, VIEWPORTS[viewport])
    operator = new_context(browser, VIEWPORTS[viewport])
    try:
        page = visitor.new_page()
        d.host.serve("/fit", visitor_page(d))
        page.goto(f"{d.host.url}/fit")
        widget(page, ".launcher").click()
        widget(page, ".gdpr-ok").click()
        question = {"desktop": "Can I export my data?", "phone": "How do I export records?"}
        visitor_says(page, question[viewport])
        expect(widget(page, COMPLETE)).to_have_count(1, timeout=60_000)
        console = operator.new_page()
        sign_in(console, server.url, OPERATOR, PASSWORD, "/console/sites/demo/inbox")
        row = console.locator("tr.conversation", has_text=question[viewport])
        expect(row).to_be_visible(timeout=15_000)
        row.locator("a.join").click()
        console.locator("button.join").click()
        expect(console.locator(".live-status")).to_have_attribute("data-state", "mine")
        expect(console.locator("#live-text")).to_be_visible()
        expect(widget(page, '.live-note[data-kind="operator_joined"]')).to_have_count(
            1, timeout=15_000
        )
        assert no_horizontal_scroll(console), f"the live chat page scrolls sideways ({viewport})"
        assert no_horizontal_scroll(page)
        console.locator("button.close-chat").click()
        expect(widget(page, '.live-note[data-kind="closed"]')).to_have_count(1, timeout=15_000)
    finally:
        visitor.close()
        operator.close()


def test_a_visitor_who_accepts_a_person_rings_the_operator_online(
    browser: Any, deployment: Deployment
) -> None:
    """The operator has a console page open (online, on every replica); the visitor asks
    for a person and says yes: the console rings with a Join button, the widget says
    how long the wait is, and joining from the ring stops it."""
    from playwright.sync_api import expect

    d = deployment
    visitor = new_context(browser)
    operator = new_context(browser)
    try:
        console = operator.new_page()
        sign_in(console, d.b.url, OPERATOR, PASSWORD, "/console/sites/demo/inbox")
        expect(console.locator(".presence")).to_contain_text("1 operator available")
        d.host.serve("/ring", visitor_page(d))
        chat = visitor.new_page()
        chat.goto(f"{d.host.url}/ring")
        widget(chat, ".launcher").click()
        widget(chat, ".gdpr-ok").click()
        widget(chat, ".human-action").click()
        expect(widget(chat, '.handoff[data-status="proposed"]')).to_be_visible(timeout=60_000)
        visitor_says(chat, "yes")
        waiting = widget(chat, '.live-note[data-kind="handoff_waiting"]')
        expect(waiting).to_be_visible(timeout=30_000)
        expect(waiting).to_contain_text("Expected wait: 2 min")
        ring = console.locator(".ring")
        expect(ring).to_be_visible(timeout=15_000)
        expect(ring).to_contain_text("A visitor is waiting for a person")
        if SCREENSHOTS.is_dir():
            console.screenshot(path=str(SCREENSHOTS / "takeover-ringing.png"))
        ring.locator("a", has_text="Join").click()
        expect(console.locator("h1")).to_contain_text("Live chat")
        expect(console.locator(".live-status")).to_have_attribute("data-state", "waiting")
        # The handoff is a card people can read; its raw context packet is one click away.
        card = console.locator(".handoff-card")
        expect(card.locator(".handoff-headline")).to_contain_text("wants to talk to a person")
        expect(card.locator(".handoff-contact")).to_be_visible()
        packet = card.locator("pre.packet")
        expect(packet).to_be_hidden()
        card.locator("details.packet-json summary").click()
        expect(packet).to_be_visible()
        expect(packet).to_contain_text('"handoff_reason"')
        if SCREENSHOTS.is_dir():
            card.screenshot(path=str(SCREENSHOTS / "handoff-card.png"))
        console.locator("button.join").click()
        expect(console.locator(".live-status")).to_have_attribute("data-state", "mine")
        expect(widget(chat, '.live-note[data-kind="operator_joined"]')).to_have_count(
            1, timeout=15_000
        )
        expect(console.locator(".ring")).to_have_count(0)
    finally:
        visitor.close()
        operator.close()

"""The `<frontdesk-chat>` widget in headless Chromium against a live server on loopback.

Which backend each test uses:
- `scripted_server` tests run the real HTTP API, widget and demo page with the scripted
  chat backend (tests/integration/api/scripted_backend.py) standing in for the graph:
  they test the widget and the API, with a known answer, citations and suggestions.
- `test_real_service_*` runs the real `ChatService` (the LangGraph graph on the local
  engine) with the demo knowledge base ingested; it is skipped while
  `frontdesk.conversation.service` is not importable.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_support import Server, StartServer
from scripted_backend import DEMO_CITATIONS, FOLLOW_UP_ANSWER, FOLLOW_UPS, Reply, ScriptedBackend

from frontdesk.conversation.payload import CallToAction, HandoffInfo

pytestmark = pytest.mark.browser

WIDGET = "frontdesk-chat"
TOKEN_DELAY_S = 0.04


def widget(page: Any, selector: str) -> Any:
    """A locator inside the widget's shadow root (Playwright's CSS pierces open roots)."""
    return page.locator(f"{WIDGET} {selector}")


def events(page: Any) -> list[dict[str, Any]]:
    recorded: list[dict[str, Any]] = page.evaluate("window.__fd")
    return recorded


def open_and_acknowledge(page: Any) -> None:
    from playwright.sync_api import expect

    widget(page, ".launcher").click()
    expect(widget(page, ".panel")).to_be_visible()
    expect(widget(page, ".gdpr")).to_be_visible()
    expect(widget(page, "textarea")).to_be_disabled()
    widget(page, ".gdpr-ok").click()
    expect(widget(page, ".gdpr")).to_be_hidden()
    expect(widget(page, "textarea")).to_be_enabled()


def watch_answer_growth(page: Any) -> None:
    """Record the text length of the newest answer every time the shadow DOM changes."""
    page.evaluate(
        """() => {
          window.__lengths = [];
          const root = document.querySelector('frontdesk-chat').shadowRoot;
          new MutationObserver(() => {
            const answers = root.querySelectorAll('.turn.assistant .content');
            const last = answers[answers.length - 1];
            if (last) window.__lengths.push(last.textContent.length);
          }).observe(root, {subtree: true, childList: true, characterData: true});
        }"""
    )


def test_widget_streams_an_answer_with_citations_and_follows_a_chip(
    context: Any, start_server: StartServer, artifacts: Path
) -> None:
    """Scripted backend: open → GDPR → question → progressive tokens → citations → chip."""
    from playwright.sync_api import expect

    backend = ScriptedBackend(
        [Reply(token_delay_s=TOKEN_DELAY_S, delay_before_s=0.6)],
        default=Reply(token_delay_s=TOKEN_DELAY_S),
    )
    server = start_server(backend)
    page = context.new_page()
    page.goto(f"{server.url}/")
    expect(page.locator("h1")).to_contain_text("Automate the work")
    page.screenshot(path=str(artifacts / "01-demo-page.png"))

    open_and_acknowledge(page)
    expect(widget(page, "textarea")).to_be_focused()
    page.screenshot(path=str(artifacts / "02-gdpr-acknowledged.png"))

    watch_answer_growth(page)
    widget(page, "textarea").fill("What is Tessellate Flow?")
    widget(page, "textarea").press("Enter")
    expect(widget(page, ".turn.user .bubble")).to_have_text("What is Tessellate Flow?")
    expect(widget(page, ".typing")).to_be_visible()
    expect(widget(page, '.turn.assistant[data-state="streaming"]')).to_be_visible()
    page.screenshot(path=str(artifacts / "03-streaming.png"))
    answer = widget(page, '.turn.assistant[data-state="complete"]')
    expect(answer).to_be_visible(timeout=15_000)
    expect(widget(page, ".typing")).to_have_count(0)

    lengths: list[int] = page.evaluate("window.__lengths")
    final = lengths[-1]
    partial = sorted({n for n in lengths if 0 < n < final})
    assert len(partial) >= 3, f"tokens should appear progressively, saw lengths {lengths}"

    # Markdown rendered as elements, citations as numbered pills, sources on demand.
    expect(answer.locator(".content strong").first).to_have_text("Tessellate Flow")
    expect(answer.locator(".content li")).to_have_count(2)
    pills = answer.locator(".cite")
    expect(pills.first).to_have_text("1")
    assert pills.count() >= 2
    sources = answer.locator("details.sources")
    expect(sources.locator("summary")).to_have_text("Sources (2)")
    expect(sources.locator("ol")).to_be_hidden()
    pills.first.click()
    expect(sources.locator("ol")).to_be_visible()
    first_source = sources.locator('li[data-index="1"]')
    expect(first_source).to_have_class(re.compile("flash"))
    expect(first_source.locator("a")).to_have_attribute("href", DEMO_CITATIONS[0].url)
    expect(first_source.locator("a")).to_have_attribute("target", "_blank")
    expect(first_source.locator("blockquote")).to_contain_text("workflow-automation")
    expect(widget(page, ".announce")).to_contain_text("Tessellate Flow is a workflow")
    answer.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "04-answer-with-citations.png"))
    widget(page, ".panel").screenshot(path=str(artifacts / "widget-answer.png"))

    # A suggestion chip sends its text as the next message, in the same session.
    chips = widget(page, ".chip")
    expect(chips).to_have_count(2)
    expect(chips.first).to_have_text(FOLLOW_UPS[0])
    chips.first.click()
    expect(widget(page, ".turn.user .bubble").nth(1)).to_have_text(FOLLOW_UPS[0])
    second = widget(page, '.turn.assistant[data-state="complete"]').nth(1)
    expect(second).to_contain_text(FOLLOW_UP_ANSWER[:40], timeout=15_000)
    expect(widget(page, ".chip")).to_have_count(0)
    page.screenshot(path=str(artifacts / "05-follow-up.png"))

    sessions = {call[1] for call in backend.calls}
    assert len(sessions) == 1
    assert [call[2] for call in backend.calls] == ["What is Tessellate Flow?", FOLLOW_UPS[0]]
    names = [event["name"] for event in events(page)]
    assert names[:3] == ["chat_opened", "gdpr_acknowledged", "first_message_sent"]
    for event in events(page):
        assert event["detail"]["session_id"] in sessions
        assert re.match(r"^\d{4}-\d\d-\d\dT", event["detail"]["timestamp"])


def test_a_burst_of_tokens_is_still_revealed_progressively(
    context: Any, start_server: StartServer
) -> None:
    """Scripted backend sending every token at once (as the local engine does)."""
    from playwright.sync_api import expect

    server = start_server(ScriptedBackend(default=Reply(token_delay_s=0.0)))
    page = context.new_page()
    page.goto(f"{server.url}/")
    open_and_acknowledge(page)
    watch_answer_growth(page)
    widget(page, "textarea").fill("What is Tessellate Flow?")
    widget(page, "textarea").press("Enter")
    expect(widget(page, '.turn.assistant[data-state="complete"]')).to_be_visible()
    lengths: list[int] = page.evaluate("window.__lengths")
    final = lengths[-1]
    assert len({n for n in lengths if 0 < n < final}) >= 3, lengths
    expect(widget(page, ".chip")).to_have_count(2)


def test_a_turn_finishes_when_the_browser_draws_no_frames(
    context: Any, start_server: StartServer
) -> None:
    """A tab hidden mid-answer, or a headless browser, may never run an animation frame
    that was asked for; the answer must still be shown and the turn finished (before the
    fix the turn stayed "streaming" and the composer busy for good)."""
    from playwright.sync_api import expect

    server = start_server(ScriptedBackend())
    page = context.new_page()
    page.add_init_script("window.requestAnimationFrame = () => 1;")  # no frame ever comes
    page.goto(f"{server.url}/")
    open_and_acknowledge(page)
    widget(page, "textarea").fill("What is Tessellate Flow?")
    widget(page, "textarea").press("Enter")
    done = widget(page, '.turn.assistant[data-state="complete"]')
    expect(done).to_have_count(1, timeout=15_000)
    expect(done).to_contain_text("workflow-automation and data-sync platform")
    expect(widget(page, ".chip")).to_have_count(2)
    # The composer is free again: the next question goes out and is answered too.
    widget(page, "textarea").fill("And pricing?")
    widget(page, "textarea").press("Enter")
    expect(done).to_have_count(2, timeout=15_000)


def test_api_stopped_shows_the_fallback_with_a_contact_link(
    context: Any, scripted_server: Server, artifacts: Path
) -> None:
    """Scripted backend, then no server at all: the first turn fails → fallback state."""
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{scripted_server.url}/")
    scripted_server.live.stop()

    open_and_acknowledge(page)
    widget(page, "textarea").fill("Hello?")
    widget(page, "textarea").press("Enter")
    fallback = widget(page, ".fallback")
    expect(fallback).to_be_visible(timeout=15_000)
    expect(fallback).to_contain_text("isn't available right now")
    link = fallback.locator("a")
    expected = scripted_server.runtime.sites["demo"].config.widget.fallback_url
    expect(link).to_have_attribute("href", expected)
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_be_focused()
    expect(widget(page, "form")).to_be_hidden()
    page.screenshot(path=str(artifacts / "06-fallback.png"))

    fired = [e for e in events(page) if e["name"] == "fallback_activated"]
    assert [e["detail"]["reason"] for e in fired] == ["connection_error"]
    # Session-permanent: closing and reopening keeps the fallback, and so does a new page.
    widget(page, ".close").click()
    widget(page, ".launcher").click()
    expect(widget(page, ".fallback")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('frontdesk_fallback_active')") == (
        "connection_error"
    )


def test_5xx_on_the_first_turn_falls_back_but_later_errors_stay_inline(
    context: Any, scripted_server: Server
) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    failing = {"on": True}

    def chat_route(route: Any) -> None:
        if failing["on"]:
            route.fulfill(
                status=503,
                content_type="application/json",
                body='{"error": {"code": "unavailable", "message": "down"}}',
            )
        else:
            route.continue_()

    page.route("**/v1/chat", chat_route)
    page.goto(f"{scripted_server.url}/")
    open_and_acknowledge(page)
    widget(page, "textarea").fill("Hi")
    widget(page, "textarea").press("Enter")
    expect(widget(page, ".fallback")).to_be_visible()
    assert [e["detail"]["reason"] for e in events(page) if e["name"] == "fallback_activated"] == [
        "http_error"
    ]

    # A fresh browser session, a good first turn, then a failing second turn.
    second_page = context.browser.new_context().new_page()
    state = {"calls": 0}

    def fail_second(route: Any) -> None:
        state["calls"] += 1
        if state["calls"] == 2:
            route.fulfill(status=500, content_type="application/json", body="{}")
        else:
            route.continue_()

    second_page.route("**/v1/chat", fail_second)
    second_page.goto(f"{scripted_server.url}/")
    open_and_acknowledge(second_page)
    for text in ("First question", "Second question"):
        widget(second_page, "textarea").fill(text)
        widget(second_page, "textarea").press("Enter")
        expect(widget(second_page, ".turn.user")).to_have_count(1 if text.startswith("F") else 2)
        expect(
            widget(second_page, '.turn.assistant:not([data-state="streaming"])').last
        ).not_to_have_attribute("data-state", "waiting", timeout=15_000)
    expect(widget(second_page, ".error")).to_have_count(1)
    expect(widget(second_page, ".fallback")).to_be_hidden()
    expect(widget(second_page, "textarea")).to_be_enabled()
    # Retrying the failed turn works.
    widget(second_page, ".error + .linkish").click()
    expect(widget(second_page, '.turn.assistant[data-state="complete"]')).to_have_count(2)
    second_page.context.close()


def test_answers_cannot_inject_html(context: Any, start_server: StartServer) -> None:
    from playwright.sync_api import expect

    hostile = (
        'Hi <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> '
        "[click](javascript:window.__pwned=3) **bold <b>tag</b>**"
    )
    server = start_server(ScriptedBackend([Reply(answer=hostile, citations=[], follow_ups=[])]))
    page = context.new_page()
    page.goto(f"{server.url}/")
    open_and_acknowledge(page)
    widget(page, "textarea").fill("<i>hello</i>")
    widget(page, "textarea").press("Enter")
    answer = widget(page, '.turn.assistant[data-state="complete"]')
    expect(answer).to_be_visible()
    content = answer.locator(".content")
    expect(content).to_contain_text('<img src=x onerror="window.__pwned=1">')
    assert content.locator("img, script, b, a").count() == 0
    expect(content.locator("strong")).to_have_text("bold <b>tag</b>")
    expect(widget(page, ".turn.user .bubble")).to_have_text("<i>hello</i>")
    assert page.evaluate("window.__pwned") is None


def test_routing_values_drive_rendering(context: Any, start_server: StartServer) -> None:
    """Each routing value's rendering: low confidence → disclaimer above, no sources;
    partial → one related article and a soft escalation link; cannot_answer →
    talk-to-a-human; CTA and handoff."""
    from playwright.sync_api import expect

    backend = ScriptedBackend(
        [
            Reply(routing="low_confidence", low_confidence=True, follow_ups=[]),
            Reply(routing="partially_answered", follow_ups=[]),
            Reply(
                routing="cannot_answer",
                answer="I couldn't find that in our documentation.",
                citations=[],
                follow_ups=[],
                cta=CallToAction(label="Book a demo", url="https://tessellate.example/demo"),
                lead_level="warm",
            ),
        ],
        default=Reply(
            route="HANDOFF",
            routing="high_stakes",
            answer="I'm passing this to our team.",
            citations=[],
            follow_ups=[],
            handoff=HandoffInfo(reason="explicit_request", status="queued"),
            lead_level="hot",
        ),
    )
    server = start_server(backend)
    page = context.new_page()
    page.goto(f"{server.url}/")
    open_and_acknowledge(page)

    def ask(text: str) -> Any:
        before = widget(page, '.turn.assistant[data-state="complete"]').count()
        widget(page, "textarea").fill(text)
        widget(page, "textarea").press("Enter")
        done = widget(page, '.turn.assistant[data-state="complete"]')
        expect(done).to_have_count(before + 1, timeout=15_000)
        return done.nth(before)

    low = ask("Is it fast?")
    expect(low.locator(".disclaimer")).to_contain_text("not fully sure")
    assert low.evaluate("n => n.firstElementChild.className") == "disclaimer"
    expect(low.locator("details.sources")).to_have_count(0)

    partial = ask("Tell me everything")
    expect(partial.locator("details.sources summary")).to_have_text("Related article")
    expect(partial.locator("details.sources li")).to_have_count(1)
    expect(partial.locator(".soft .linkish")).to_have_text("Talk to a support agent")

    cannot = ask("Do you support SAP?")
    expect(cannot.locator(".human")).to_have_text("Talk to a human")
    expect(cannot.locator(".cta")).to_have_attribute("href", "https://tessellate.example/demo")
    cannot.locator(".human").click()
    handoff = widget(page, '.turn.assistant[data-state="complete"]').nth(3)
    expect(handoff.locator(".handoff")).to_contain_text("passed to our team")
    assert backend.calls[-1][2] == "I'd like to talk to a human, please."

    names = [e["name"] for e in events(page)]
    assert "escalation_triggered" in names
    levels = [
        e["detail"]["lead_level"]
        for e in events(page)
        if e["name"] == "qualification_state_changed"
    ]
    assert levels == ["warm", "hot"]
    escalation = next(e for e in events(page) if e["name"] == "escalation_triggered")
    assert escalation["detail"]["handoff_reason"] == "explicit_request"


def test_keyboard_and_screen_reader_flow(context: Any, scripted_server: Server) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{scripted_server.url}/")
    launcher = widget(page, ".launcher")
    expect(launcher).to_have_attribute("aria-expanded", "false")
    launcher.focus()
    page.keyboard.press("Enter")
    expect(launcher).to_have_attribute("aria-expanded", "true")
    expect(widget(page, ".panel")).to_have_attribute("role", "dialog")
    expect(widget(page, ".gdpr-ok")).to_be_focused()
    page.keyboard.press("Enter")
    expect(widget(page, "textarea")).to_be_focused()
    page.keyboard.type("What is Tessellate Flow?")
    page.keyboard.press("Enter")
    expect(widget(page, '.turn.assistant[data-state="complete"]')).to_be_visible(timeout=15_000)
    expect(widget(page, ".log")).to_have_attribute("role", "log")
    expect(widget(page, ".announce")).to_have_attribute("aria-live", "polite")
    expect(widget(page, ".announce")).to_contain_text("Assistant: Tessellate Flow")
    expect(widget(page, "textarea")).to_be_focused()
    page.keyboard.press("Escape")
    expect(widget(page, ".panel")).to_be_hidden()
    expect(launcher).to_be_focused()
    # The GDPR acknowledgement lasts for the browser session.
    page.reload()
    widget(page, ".launcher").click()
    expect(widget(page, ".gdpr")).to_be_hidden()
    expect(widget(page, "textarea")).to_be_enabled()


def embed_page(page: Any, server: Server, attributes: str, path: str = "/embed-test") -> None:
    """Serve a custom host page on the server's origin (so the API accepts its Origin)."""
    key = server.runtime.sites["demo"].config.widget.public_key
    html = (
        "<!doctype html><html lang=en><head><meta charset=utf-8></head><body>"
        "<h1>Host page</h1>"
        f'<script src="/widget.js" defer></script>'
        f'<frontdesk-chat api-url="/" site-key="{key}" fallback-url="https://acme.example/contact" '
        f"{attributes}></frontdesk-chat></body></html>"
    )
    page.route(
        f"**{path}", lambda route: route.fulfill(status=200, content_type="text/html", body=html)
    )
    page.goto(f"{server.url}{path}")


def test_proactive_prompt_once_per_session(context: Any, scripted_server: Server) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    embed_page(page, scripted_server, 'proactive-delay-ms="200" proactive-message="Questions?"')
    bubble = widget(page, ".proactive")
    expect(bubble).to_be_visible()
    expect(bubble).to_contain_text("Questions?")
    expect(widget(page, ".panel")).to_be_hidden()
    page.locator("h1").click()
    expect(bubble).to_be_hidden()
    page.reload()
    page.wait_for_timeout(600)
    expect(widget(page, ".proactive")).to_be_hidden()


def test_theme_position_and_language_attributes(context: Any, scripted_server: Server) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    embed_page(
        page,
        scripted_server,
        'lang="ru" position="bottom-left" accent-color="rgb(220, 38, 38)" proactive-delay-ms="off"',
    )
    launcher = widget(page, ".launcher")
    expect(launcher).to_have_attribute("aria-label", "Открыть чат")
    assert launcher.evaluate("n => getComputedStyle(n).backgroundColor") == "rgb(220, 38, 38)"
    box = launcher.bounding_box()
    assert box is not None and box["x"] < 100
    launcher.click()
    expect(widget(page, ".gdpr-ok")).to_have_text("Понятно")
    expect(widget(page, "textarea")).to_have_attribute("placeholder", "Задайте вопрос…")


def test_missing_api_url_is_a_permanent_fallback(context: Any, scripted_server: Server) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    html = (
        "<!doctype html><html><body><script src='/widget.js' defer></script>"
        "<frontdesk-chat fallback-url='https://acme.example/contact'></frontdesk-chat></body></html>"
    )
    page.route(
        "**/no-api", lambda route: route.fulfill(status=200, content_type="text/html", body=html)
    )
    page.goto(f"{scripted_server.url}/no-api")
    widget(page, ".launcher").click()
    expect(widget(page, ".fallback a")).to_have_attribute("href", "https://acme.example/contact")
    assert any("ConfigurationError" in message for message in messages)


# ---- the real conversation graph --------------------------------------------------------------


def _real_service_reason() -> str | None:
    from real_service import service_unavailable_reason

    return service_unavailable_reason()


@pytest.mark.skipif(_real_service_reason() is not None, reason=str(_real_service_reason()))
def test_real_service_answers_in_the_widget(
    context: Any,
    start_server: StartServer,
    sites_dir: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    artifacts: Path,
) -> None:
    """The real ChatService (LangGraph graph, local engine) with the demo KB ingested."""
    import httpx
    from playwright.sync_api import expect
    from real_service import ingested_data_dir

    data = ingested_data_dir(tmp_path_factory.getbasetemp(), sites_dir, tmp_path / "data")
    server = start_server(None, data_dir=data)
    key = server.runtime.sites["demo"].config.widget.public_key
    # Warm the models up so the first widget turn is within the first-token timeout.
    warm = httpx.post(
        f"{server.url}/v1/ask",
        json={"message": "Hello"},
        headers={"X-Frontdesk-Key": key, "Origin": server.url},
        timeout=120,
    )
    assert warm.status_code == 200, warm.text

    page = context.new_page()
    page.goto(f"{server.url}/")
    open_and_acknowledge(page)
    watch_answer_growth(page)
    widget(page, "textarea").fill("What is Tessellate Flow?")
    widget(page, "textarea").press("Enter")
    answer = widget(page, '.turn.assistant[data-state="complete"]')
    expect(answer).to_be_visible(timeout=60_000)
    expect(widget(page, ".fallback")).to_be_hidden()
    assert answer.locator(".content").inner_text().strip()
    lengths: list[int] = page.evaluate("window.__lengths")
    assert len({n for n in lengths if 0 < n < lengths[-1]}) >= 3, f"no streaming: {lengths}"
    expect(answer.locator(".cite").first).to_be_visible()
    expect(answer.locator("details.sources")).to_be_visible()
    answer.locator(".cite").first.click()
    expect(answer.locator("details.sources ol")).to_be_visible()
    page.evaluate(
        "document.querySelector('frontdesk-chat').shadowRoot.querySelector('.log').scrollTop = 0"
    )
    page.screenshot(path=str(artifacts / "real-service-answer.png"))
    widget(page, ".panel").screenshot(path=str(artifacts / "real-service-widget.png"))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))

"""Continuity in Chromium: the conversation follows the visitor (reloads, pages, tabs),
only with its secret; a first impression; clear limits; feedback on answers.

The scripted backend stands in for the graph (tests/integration/api/scripted_backend.py);
the HTTP API, the store (session keys, feedback) and the widget are real. That the next
answer after a reload runs in the same LangGraph thread is shown with the real graph in
`test_widget_identity.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_support import HostSite, Server, StartServer
from scripted_backend import DEMO_ANSWER, FOLLOW_UP_ANSWER, FOLLOW_UPS, Reply, ScriptedBackend
from test_widget import open_and_acknowledge, widget

pytestmark = pytest.mark.browser

STORE_KEY = "frontdesk_session:pk_demo_tessellate_0001"
COMPLETE = '.turn.assistant[data-state="complete"]'


def host_page(server: Server, path: str, attributes: str = "", origin: str | None = None) -> str:
    key = server.runtime.sites["demo"].config.widget.public_key
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Host</title></head>"
        f"<body><main><h1>Page {path}</h1><a href='/second'>Next page</a></main>"
        f'<script src="{server.url}/widget.js" defer></script>'
        f'<frontdesk-chat api-url="{server.url}" site-key="{key}" proactive-delay-ms="off" '
        f'fallback-url="https://acme.example/contact" {attributes}></frontdesk-chat>'
        "</body></html>"
    )


def html_response(html: str, headers: dict[str, str] | None = None) -> Any:
    def fulfil(route: Any) -> None:
        route.fulfill(status=200, content_type="text/html", body=html, headers=headers)

    return fulfil


def serve_pages(context: Any, server: Server, attributes: str = "") -> None:
    """Two pages of one host site, on the server's origin, in every tab of `context`."""
    for path in ("/first", "/second"):
        context.route(f"{server.url}{path}", html_response(host_page(server, path, attributes)))


def ask(page: Any, text: str) -> Any:
    from playwright.sync_api import expect

    before = widget(page, COMPLETE).count()
    widget(page, "textarea").fill(text)
    widget(page, "textarea").press("Enter")
    done = widget(page, COMPLETE)
    expect(done).to_have_count(before + 1, timeout=15_000)
    return done.nth(before)


def wait_for(page: Any, condition: Any, timeout_s: float = 10.0) -> None:
    for _ in range(int(timeout_s / 0.1)):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError("condition not met in time")


def stored(page: Any) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(page.evaluate(f"localStorage.getItem('{STORE_KEY}')"))
    return value


def test_reload_and_navigation_restore_the_conversation_and_continue_it(
    context: Any, start_server: StartServer, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    backend = ScriptedBackend()
    server = start_server(backend)
    serve_pages(context, server)
    page = context.new_page()
    page.goto(f"{server.url}/first")
    open_and_acknowledge(page)
    ask(page, "What is Tessellate Flow?")
    saved = stored(page)
    assert saved["id"] == backend.calls[0][1]
    assert len(saved["secret"]) >= 40  # the server's secret, never the id
    assert saved["expires"] > page.evaluate("Date.now()")

    page.reload()
    # The panel stays open across pages; the transcript comes back from the server.
    expect(widget(page, ".turn.user .bubble")).to_have_text(["What is Tessellate Flow?"])
    expect(widget(page, COMPLETE)).to_have_count(1)
    expect(widget(page, COMPLETE).first.locator(".cite").first).to_have_text("1")
    expect(widget(page, COMPLETE).first.locator("details.sources summary")).to_have_text(
        "Sources (2)"
    )
    expect(widget(page, ".greeting")).to_have_count(0)
    widget(page, ".panel").screenshot(path=str(artifacts / "widget-restored.png"))
    ask(page, FOLLOW_UPS[0])
    expect(widget(page, COMPLETE).nth(1)).to_contain_text(FOLLOW_UP_ANSWER[:40])

    widget(page, ".close").click()
    page.goto(f"{server.url}/second")
    widget(page, ".launcher").click()
    expect(widget(page, ".turn.user")).to_have_count(2)
    ask(page, "Thanks, and pricing?")
    # One session, one thread: every turn ran with the same session id.
    assert {call[1] for call in backend.calls} == {saved["id"]}
    assert [call[2] for call in backend.calls] == [
        "What is Tessellate Flow?",
        FOLLOW_UPS[0],
        "Thanks, and pricing?",
    ]

    # "New conversation" starts fresh: a new session, the greeting, nothing old.
    widget(page, ".end").click()
    expect(widget(page, ".turn.user")).to_have_count(0)
    expect(widget(page, ".greeting")).to_be_visible()
    assert page.evaluate(f"localStorage.getItem('{STORE_KEY}')") is None
    ask(page, "A new question")
    assert backend.calls[-1][1] != saved["id"]
    page.reload()
    expect(widget(page, ".turn.user .bubble")).to_have_text(["A new question"])


def test_a_second_tab_shows_the_same_conversation(context: Any, start_server: StartServer) -> None:
    from playwright.sync_api import expect

    backend = ScriptedBackend()
    server = start_server(backend)
    serve_pages(context, server)
    first = context.new_page()
    first.goto(f"{server.url}/first")
    open_and_acknowledge(first)
    ask(first, "What is Tessellate Flow?")

    second = context.new_page()
    second.goto(f"{server.url}/second")
    widget(second, ".launcher").click()
    expect(widget(second, ".turn.user .bubble")).to_have_text(["What is Tessellate Flow?"])
    # A turn in one tab shows up in the other.
    ask(first, FOLLOW_UPS[0])
    expect(widget(second, ".turn.user")).to_have_count(2)
    expect(widget(second, COMPLETE).nth(1)).to_contain_text(FOLLOW_UP_ANSWER[:40])
    # ... and a new conversation in one tab empties the other.
    widget(first, ".end").click()
    expect(widget(second, ".turn.user")).to_have_count(0)
    expect(widget(second, ".greeting")).to_be_visible()


def test_a_copied_session_id_restores_nothing(
    browser: Any, context: Any, start_server: StartServer
) -> None:
    from playwright.sync_api import expect

    server = start_server(ScriptedBackend())
    serve_pages(context, server)
    victim = context.new_page()
    victim.goto(f"{server.url}/first")
    open_and_acknowledge(victim)
    ask(victim, "My order number is 4411, where is it?")
    saved = stored(victim)

    # Over HTTP: the id alone, a wrong secret, a guessed one: refused; the secret: the data.
    key = server.runtime.sites["demo"].config.widget.public_key
    base = {"X-Frontdesk-Key": key, "Origin": server.url}
    url = f"{server.url}/v1/sessions/{saved['id']}"
    for headers in (base, {**base, "X-Frontdesk-Session-Secret": "x" * 43}):
        refused = httpx.get(url, headers=headers)
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "session_secret_invalid"
        assert "4411" not in refused.text
        export = httpx.get(f"{url}/export", headers=headers)
        assert export.status_code == 403 and "4411" not in export.text
        erase = httpx.delete(url, headers=headers)
        assert erase.status_code == 403
    # Continuing the session without its secret is refused too (no answer, no context).
    turn = httpx.post(
        f"{server.url}/v1/ask",
        headers=base,
        json={"message": "Repeat my order number", **{"session_id": saved["id"]}},
    )
    assert turn.status_code == 403
    owned = httpx.get(url, headers={**base, "X-Frontdesk-Session-Secret": saved["secret"]})
    assert owned.status_code == 200 and "4411" in owned.text

    # In a browser: another visitor who copied the session id (not the secret).
    other = browser.new_context()
    serve_pages(other, server)
    thief = other.new_page()
    thief.add_init_script(
        f"localStorage.setItem('{STORE_KEY}', JSON.stringify({{id: '{saved['id']}', "
        "secret: 'guessed-secret-guessed-secret-guessed-secr', expires: Date.now() + 9e6, "
        "user: '', rev: 0}));"
    )
    thief.goto(f"{server.url}/first")
    open_and_acknowledge(thief)
    thief.wait_for_timeout(500)
    expect(widget(thief, ".turn.user")).to_have_count(0)
    assert "4411" not in widget(thief, ".log").inner_text()
    other.close()


def test_greeting_suggestions_and_proactive_rule_from_the_site_file(
    context: Any, start_server: StartServer, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    backend = ScriptedBackend()
    server = start_server(
        backend,
        widget={
            "greeting": {"en": "Welcome! Ask about our product.", "de": "Willkommen!"},
            "proactive": [
                {
                    "id": "second-page",
                    "message": {"en": "Comparing options? I can help."},
                    "delay_s": 0.3,
                    "url_patterns": ["/sec*"],
                }
            ],
        },
    )
    key = server.runtime.sites["demo"].config.widget.public_key
    for path in ("/first", "/second"):
        html = host_page(server, path).replace('proactive-delay-ms="off" ', "")
        context.route(f"{server.url}{path}", html_response(html))
    page = context.new_page()
    page.goto(f"{server.url}/first")
    page.wait_for_timeout(800)
    expect(widget(page, ".proactive")).to_be_hidden()  # not on a page the rule names
    page.goto(f"{server.url}/second")
    bubble = widget(page, ".proactive")
    expect(bubble).to_be_visible()
    expect(bubble).to_contain_text("Comparing options? I can help.")
    bubble.locator(".proactive-text").click()
    greeting = widget(page, ".greeting")
    expect(greeting).to_contain_text("Welcome! Ask about our product.")
    starters = server.runtime.sites["demo"].config.starter_questions["en"]
    expect(greeting.locator(".chip")).to_have_text(starters[:3])
    widget(page, ".panel").screenshot(path=str(artifacts / "widget-greeting.png"))
    widget(page, ".gdpr-ok").click()
    greeting.locator(".chip").first.click()
    expect(widget(page, COMPLETE)).to_have_count(1, timeout=15_000)
    assert backend.calls[0][2] == starters[0]
    # Once per visitor: not again on the next visit of that page.
    page.goto(f"{server.url}/second")
    page.wait_for_timeout(800)
    expect(widget(page, ".proactive")).to_be_hidden()
    config = httpx.get(
        f"{server.url}/v1/widget/config", params={"key": key}, headers={"Origin": server.url}
    )
    assert config.json()["greeting"]["de"] == "Willkommen!"
    assert config.json()["greeting"]["fr"].startswith("Bonjour ! Je suis l'assistant de Tessellate")


def test_the_real_limit_a_counter_and_a_cut_paste_are_shown(
    context: Any, start_server: StartServer
) -> None:
    from playwright.sync_api import expect

    server = start_server(ScriptedBackend())
    serve_pages(context, server)
    limit = server.runtime.sites["demo"].config.abuse.max_message_chars
    page = context.new_page()
    page.goto(f"{server.url}/first")
    open_and_acknowledge(page)
    textarea = widget(page, "textarea")
    expect(textarea).to_have_attribute("maxlength", str(limit))
    textarea.fill("x" * 100)
    expect(widget(page, ".counter")).to_be_hidden()
    textarea.fill("x" * int(limit * 0.9))
    expect(widget(page, ".counter")).to_be_visible()
    expect(widget(page, ".counter")).to_contain_text(f"{limit:,} characters")
    textarea.fill("")
    page.evaluate(
        """(n) => {
          const root = document.querySelector('frontdesk-chat').shadowRoot;
          const area = root.querySelector('textarea');
          const data = new DataTransfer();
          data.setData('text/plain', 'y'.repeat(n));
          area.focus();
          area.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
        }""",
        limit + 500,
    )
    notice = widget(page, ".notice")
    expect(notice).to_contain_text(f"cut to {limit:,} characters")


def test_thumbs_and_a_comment_are_stored_and_shown_in_the_transcript(
    context: Any, start_server: StartServer
) -> None:
    from playwright.sync_api import expect

    server = start_server(ScriptedBackend(default=Reply(follow_ups=[])))
    serve_pages(context, server)
    page = context.new_page()
    page.goto(f"{server.url}/first")
    open_and_acknowledge(page)
    first = ask(page, "What is Tessellate Flow?")
    second = ask(page, "And the integrations?")
    first.locator(".vote.up").click()
    expect(first.locator(".vote.up")).to_have_attribute("aria-pressed", "true")
    second.locator(".vote.down").click()
    comment = second.locator(".feedback input")
    expect(comment).to_be_focused()
    comment.fill("It did not list the CRM connectors")
    comment.press("Enter")
    expect(second.locator(".feedback .soft")).to_contain_text("Thanks")

    saved = stored(page)
    key = server.runtime.sites["demo"].config.widget.public_key
    headers = {
        "X-Frontdesk-Key": key,
        "Origin": server.url,
        "X-Frontdesk-Session-Secret": saved["secret"],
    }
    transcript = httpx.get(f"{server.url}/v1/sessions/{saved['id']}", headers=headers).json()
    answers = [m for m in transcript["messages"] if m["role"] == "assistant"]
    assert answers[0]["feedback"] == {"rating": "up", "comment": None}
    assert answers[1]["feedback"] == {
        "rating": "down",
        "comment": "It did not list the CRM connectors",
    }
    # After a reload the votes are shown as given.
    page.reload()
    restored = widget(page, COMPLETE)
    expect(restored.nth(0).locator(".vote.up")).to_have_attribute("aria-pressed", "true")
    expect(restored.nth(1).locator(".vote.down")).to_have_attribute("aria-pressed", "true")
    assert DEMO_ANSWER[2:17] in restored.nth(0).inner_text()


def test_a_wrong_key_or_origin_is_named_in_the_console(
    context: Any, start_server: StartServer
) -> None:
    server = start_server(ScriptedBackend())
    warnings: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    html = host_page(server, "/first").replace("pk_demo_tessellate_0001", "pk_wrong_key_000000")
    page.route(
        f"{server.url}/first",
        lambda route: route.fulfill(status=200, content_type="text/html", body=html),
    )
    page.goto(f"{server.url}/first")
    wait_for(page, lambda: any('site-key "pk_wrong_key_000000" is unknown' in w for w in warnings))

    # A company site on another origin, which the demo site does not allow, with the demo key.
    warnings.clear()
    with HostSite() as stranger:
        stranger.serve("/page", host_page(server, "/page"))
        other = context.new_page()
        other.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        other.goto(f"{stranger.url}/page")
        wait_for(other, lambda: any("allowed_origins" in w for w in warnings))


def test_a_browser_refusing_local_storage_still_keeps_the_conversation_across_pages(
    context: Any, start_server: StartServer
) -> None:
    """As in some private windows: localStorage throws, sessionStorage takes over."""
    from playwright.sync_api import expect

    backend = ScriptedBackend()
    server = start_server(backend)
    serve_pages(context, server)
    context.add_init_script(
        "const set = Storage.prototype.setItem;"
        "Storage.prototype.setItem = function (k, v) {"
        "  if (this === window.localStorage) throw new DOMException('refused', 'SecurityError');"
        "  return set.call(this, k, v); };"
    )
    page = context.new_page()
    page.goto(f"{server.url}/first")
    open_and_acknowledge(page)
    ask(page, "What is Tessellate Flow?")
    assert page.evaluate(f"localStorage.getItem('{STORE_KEY}')") is None
    assert json.loads(page.evaluate(f"sessionStorage.getItem('{STORE_KEY}')"))["id"]
    page.goto(f"{server.url}/second")
    expect(widget(page, ".turn.user .bubble")).to_have_text(["What is Tessellate Flow?"])
    ask(page, FOLLOW_UPS[0])
    assert len({call[1] for call in backend.calls}) == 1


def test_a_visitor_who_opens_the_chat_before_the_settings_arrive_gets_the_sites_greeting(
    context: Any, start_server: StartServer
) -> None:
    from playwright.sync_api import expect

    greeting_text = "Welcome! Ask about our product."
    server = start_server(ScriptedBackend(), widget={"greeting": {"en": greeting_text}})
    context.route(f"{server.url}/slow", html_response(host_page(server, "/slow")))
    held: list[Any] = []  # a slow network: the settings wait until the test lets them go
    context.route("**/v1/widget/config*", lambda route: held.append(route))
    page = context.new_page()
    page.goto(f"{server.url}/slow")
    widget(page, ".launcher").click()
    greeting = widget(page, ".greeting")
    expect(greeting).to_contain_text("Have a question?")  # the generic one meanwhile
    assert len(held) == 1
    held[0].continue_()
    expect(greeting).to_contain_text(greeting_text)
    expect(greeting).to_have_count(1)

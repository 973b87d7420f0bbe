"""The improvement loop in headless Chromium against a live Frontdesk on loopback (the real
conversation graph on the demo knowledge base, local engine, multilingual e5):

a visitor gives an answer 👎 with a comment; the operator sees it in the transcript and in
the content-gap report; writes a team answer from that gap; the same question in a new
visitor session is answered from the team answer, word for word, with its citation. The
pages are checked (and photographed for docs/improvement.md) at 1280x800 and 390x844.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from browser_support import new_context, sign_in, widget
from live_server import LiveServer, free_port

from frontdesk.api.app import create_app
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import DEMO_DIR, Settings

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO_ROOT / "docs" / "img"
OWNER = "owner@improve.test"
PASSWORD = "correct horse battery"
VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
QUESTION = "Do you offer a discount for nonprofit organisations?"
COMMENT = "I wanted to know the nonprofit price"
TEAM_ANSWER = (
    "Yes. Registered nonprofits get 30 % off every plan: write to us with your "
    "registration number and we apply it to your account."
)


@dataclass
class LoopServer:
    url: str
    runtime: Runtime


@pytest.fixture(scope="module")
def loop_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopServer]:
    from real_service import ingested_data_dir, service_unavailable_reason

    reason = service_unavailable_reason()
    if reason:
        pytest.skip(reason)
    from frontdesk.console.passwords import hash_password
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import OperatorRepository

    root = tmp_path_factory.mktemp("improve")
    port = free_port()
    sites = root / "sites"
    shutil.copytree(DEMO_DIR / "sites", sites)
    demo_file = sites / "demo.yaml"
    demo = yaml.safe_load(
        demo_file.read_text(encoding="utf-8").replace("[../kb]", f"[{DEMO_DIR / 'kb'}]")
    )
    demo["widget"]["allowed_origins"] = [
        *demo["widget"]["allowed_origins"],
        f"http://127.0.0.1:{port}",
    ]
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")
    data = ingested_data_dir(tmp_path_factory.getbasetemp(), sites, root / "data")
    settings = Settings(data_dir=data, sites_dir=sites)
    runtime = build_runtime(settings)
    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        operators.grant(operators.ensure(OWNER, hash_password(PASSWORD)), "demo", "owner")
    live = LiveServer(create_app(settings, runtime), port).start(timeout_s=300)
    key = runtime.sites["demo"].config.widget.public_key
    warm = httpx.post(
        f"{live.url}/v1/ask",
        json={"message": "Hello"},
        headers={"X-Frontdesk-Key": key, "Origin": live.url},
        timeout=180,
    )
    assert warm.status_code == 200, warm.text
    yield LoopServer(url=live.url, runtime=runtime)
    live.stop()
    runtime.close()


def watch_errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return errors


def ask(page: Any, url: str, question: str) -> Any:
    from playwright.sync_api import expect

    page.goto(f"{url}/")
    widget(page, ".launcher").click()
    widget(page, ".gdpr-ok").click()
    widget(page, "textarea").fill(question)
    widget(page, "textarea").press("Enter")
    answer = widget(page, '.turn.assistant[data-state="complete"]').last
    expect(answer).to_be_visible(timeout=90_000)
    return answer


def no_overflow(page: Any, name: str) -> None:
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 1, f"{name} overflows by {overflow}px"


def test_a_thumbs_down_becomes_a_gap_then_a_team_answer_the_next_visitor_gets(
    browser: Any, loop_server: LoopServer
) -> None:
    from playwright.sync_api import expect

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    url = loop_server.url
    visitor = new_context(browser)
    operator = new_context(browser)
    later = new_context(browser)
    try:
        # 1. A visitor asks, gets an answer, votes 👎 and says why.
        chat = visitor.new_page()
        first = ask(chat, url, QUESTION)
        first_answer = first.inner_text()
        first.locator(".vote.down").click()
        first.locator(".feedback input").fill(COMMENT)
        first.locator(".feedback input").press("Enter")
        expect(first.locator(".feedback .soft")).to_contain_text("Thanks")

        # 2. The operator sees the vote and the comment in the transcript...
        console = operator.new_page()
        errors = watch_errors(console)
        sign_in(console, url, OWNER, PASSWORD)
        row = console.locator("tr.conversation", has_text=QUESTION)
        expect(row).to_be_visible(timeout=15_000)
        row.locator("a").first.click()
        turn = console.locator("article.turn").first
        expect(turn.locator(".labels .feedback-down")).to_contain_text("visitor: not helpful")
        expect(turn.locator(".feedback-comment")).to_contain_text(COMMENT)

        # ...and in the gap report, reached from the navigation.
        console.locator("nav.pages a", has_text="Gaps").click()
        expect(console.locator("main h1")).to_have_text("Content gaps")
        gap = console.locator("section.gap", has_text=QUESTION)
        expect(gap).to_be_visible()
        expect(gap).to_contain_text("visitor voted not helpful")
        # The warm-up "Hello" was redirected as small talk: not a content gap.
        expect(console.locator("section.gap", has_text="Hello")).to_have_count(0)
        expect(gap.locator(".feedback-comment")).to_contain_text(COMMENT)
        no_overflow(console, "gaps")

        # 3. A team answer from that gap: the form comes with the gap's question.
        gap.locator("button.write-answer").click()
        expect(console.locator("main h1")).to_have_text("New team answer")
        questions = console.locator('textarea[name="questions_en"]')
        expect(questions).to_have_value(QUESTION)
        console.locator('textarea[name="answer_en"]').fill(TEAM_ANSWER)
        no_overflow(console, "team answer form")
        console.screenshot(path=str(SCREENSHOTS / "improvement-team-answer-desktop.png"))
        console.locator("#team-answer-form button[type=submit]").click()
        expect(console.locator("p.ok")).to_contain_text("Saved and live")
        expect(console.locator("tr.team-answer")).to_contain_text(QUESTION)
        expect(console.locator("#team-answer-changes")).to_contain_text(OWNER)
        console.screenshot(path=str(SCREENSHOTS / "improvement-team-answers-desktop.png"))
        assert not errors, errors

        # 4. The same question in a new visitor session: the team's answer, cited.
        fresh = later.new_page()
        second = ask(fresh, url, QUESTION)
        expect(second).to_contain_text(TEAM_ANSWER)
        assert second.inner_text() != first_answer
        expect(second.locator(".cite").first).to_have_attribute(
            "title", "Answer from the Tessellate team"
        )
        second.locator(".sources summary").click()
        expect(second.locator(".sources li").first).to_contain_text(
            "Answer from the Tessellate team"
        )
    finally:
        visitor.close()
        operator.close()
        later.close()


# More of a week's questions, for the screenshots: paraphrases in two languages.
MORE_GAPS = [
    ("Do you ship to Canada?", "cannot_answer", "en"),
    ("Can you deliver orders to Canada?", "low_confidence", "en"),
    ("¿Hacen envíos a Canadá?", "cannot_answer", "es"),
    ("Can I pay by bank transfer?", "followup", "en"),
    ("¿Puedo pagar por transferencia bancaria?", "cannot_answer", "es"),
]


def seed_more_gaps(runtime: Runtime) -> None:
    import uuid

    from frontdesk.store.db import transaction
    from frontdesk.store.repositories import ConversationRepository, StoredTurn

    with transaction(runtime.sessions) as session:
        for question, routing, language in MORE_GAPS:
            ConversationRepository(session).record_turn(
                "demo",
                str(uuid.uuid4()),
                StoredTurn(question, "…", "ANSWER", routing, "LEARN", language),
            )


def test_the_improvement_pages_fit_a_phone(browser: Any, loop_server: LoopServer) -> None:
    from playwright.sync_api import expect

    seed_more_gaps(loop_server.runtime)
    for size, viewport in VIEWPORTS.items():
        context = new_context(browser, viewport)
        try:
            page = context.new_page()
            errors = watch_errors(page)
            sign_in(page, loop_server.url, OWNER, PASSWORD)
            base = f"{loop_server.url}/console/sites/demo"
            page.goto(f"{base}/gaps")
            # Paraphrases across languages are one gap each.
            shipping = page.locator("section.gap", has_text="Canad")
            expect(shipping).to_have_count(1)
            expect(shipping).to_contain_text("¿Hacen envíos a Canadá?")
            expect(shipping).to_contain_text("Do you ship to Canada?")
            expect(page.locator("section.gap", has_text="transfer")).to_have_count(1)
            shots = [("gaps", "/gaps")]
            if size == "phone":
                shots += [
                    ("team-answers", "/team-answers"),
                    ("team-answer", "/team-answers/new?q=en|Do+you+ship+to+Canada%3F"),
                ]
            for name, path in shots:
                page.goto(base + path)
                expect(page.locator("main h1")).to_be_visible()
                no_overflow(page, f"{name} at {size}")
                page.screenshot(path=str(SCREENSHOTS / f"improvement-{name}-{size}.png"))
            assert not errors, errors
        finally:
            context.close()

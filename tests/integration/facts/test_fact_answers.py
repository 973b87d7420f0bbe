"""A small German bike-repair shop (tests/fixtures/radwerk, seven HTML pages with a shared
footer) through the real graph: real SQLite, the default multilingual embedder, the local
engine. Questions about its hours, phone and prices are answered from the facts its pages
state, cited to the page, in the visitor's language."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from frontdesk.conversation.service import ChatService
from frontdesk.knowledge.service import KnowledgeBase
from tests.support.site_chat import chat_service, ingested_site, site_turn

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "radwerk"
SITE = """\
id: radwerk
name: Radwerk Kreuzberg
default_language: de
languages: [de, en]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_radwerk_0001
business_hours:
  timezone: Europe/Berlin
  weekly:
    mon-fri: ["09:00-17:00"]
  holidays: DE-BE
"""


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ChatService]:
    async for chat in chat_service(ingested_site(tmp_path, SITE, FIXTURE)):
        yield chat


def radwerk(root: Path, extra: dict[str, str] | None = None) -> ChatService:
    """The shop's pages (with `extra` pages) ingested, and a chat service over them."""
    return ChatService(ingested_site(root, SITE, FIXTURE, extra))


async def ask(service: ChatService, session: str, message: str) -> dict[str, Any]:
    return await site_turn(service, "radwerk", session, message)


def cited_urls(values: dict[str, Any]) -> set[str]:
    return {citation["url"] for citation in values["citations"]}


async def test_opening_hours_then_saturday_from_the_hours_table(service: ChatService) -> None:
    session = str(uuid.uuid4())
    values = await ask(service, session, "Wann habt ihr geöffnet?")
    answer = values["answer"]
    assert "Dienstag: 09:30–18:30" in answer and "Freitag: 09:30–18:30" in answer, answer
    assert "Samstag: 10:00–14:00" in answer and "Sonntag: geschlossen" in answer, answer
    assert values["routing"] == "answered"
    assert cited_urls(values) == {"https://radwerk.example/kontakt.html"}
    # The source's excerpt is the week the answer cites, not the one row of Monday.
    excerpt = values["citations"][0]["excerpt"]
    assert "9:30" in excerpt and "10:00" in excerpt and "geschlossen" in excerpt, excerpt
    assert "|" not in excerpt, excerpt

    values = await ask(service, session, "Und am Samstag?")
    assert "Samstag: 10:00–14:00 [1]" in values["answer"], values["answer"]
    assert "Dienstag" not in values["answer"]
    assert cited_urls(values) == {"https://radwerk.example/kontakt.html"}


async def test_the_phone_number_from_the_footer(service: ChatService) -> None:
    values = await ask(service, str(uuid.uuid4()), "Wie ist eure Telefonnummer?")
    assert "+493061207788" in values["answer"], values["answer"]
    assert values["answer"].startswith("Telefon:")
    assert len(values["citations"]) == 1


async def test_the_price_of_a_named_service(service: ChatService) -> None:
    values = await ask(service, str(uuid.uuid4()), "Was kostet ein Schlauchwechsel?")
    assert "Schlauch wechseln: 12 €" in values["answer"], values["answer"]
    assert cited_urls(values) == {"https://radwerk.example/preise.html"}


async def test_opening_hours_asked_in_english_on_a_german_site(service: ChatService) -> None:
    values = await ask(service, str(uuid.uuid4()), "What are your opening hours?")
    answer = values["answer"].replace("\u202f", " ")  # CLDR's English times: 9:30 AM
    assert answer.startswith("Opening hours:"), answer
    assert "Saturday: 10:00 AM–2:00 PM" in answer and "Sunday: closed" in answer, answer
    assert cited_urls(values) == {"https://radwerk.example/kontakt.html"}


async def test_a_question_about_services_is_still_answered_from_the_pages(
    service: ChatService,
) -> None:
    values = await ask(service, str(uuid.uuid4()), "Repariert ihr E-Bikes mit Bosch-Motor?")
    assert values.get("fact_reply") is None


async def test_a_team_correction_wins_over_the_page_in_the_answer(service: ChatService) -> None:
    from frontdesk.facts.corrections import corrected_fact
    from frontdesk.facts.store import CorrectionStore

    fact = corrected_fact(
        "hours",
        "Dienstag",
        "10:00-13:00, 14:00-18:00",
        language="de",
        author="jana@radwerk.example",
        at=datetime(2026, 12, 1, tzinfo=UTC),
    )
    CorrectionStore(service.runtime.engine).correct(
        "radwerk", "hours:day:1", "set", fact, author="jana@radwerk.example", expected=0
    )
    values = await ask(service, str(uuid.uuid4()), "Wann habt ihr geöffnet?")
    answer = values["answer"]
    # The team's Tuesday, without a page to cite; the page's other days, cited.
    assert "- Dienstag: 10:00–13:00, 14:00–18:00\n" in answer, answer
    assert "Mittwoch: 09:30–18:30 [1]" in answer, answer
    assert cited_urls(values) == {"https://radwerk.example/kontakt.html"}


@pytest.mark.parametrize(
    ("now", "question", "expected"),
    [
        # 23:30 UTC on 24 December is already the 25th in Berlin: a public holiday in the
        # site file's region, named in the visitor's language.
        (
            datetime(2026, 12, 24, 23, 30, tzinfo=UTC),
            "Habt ihr heute geöffnet?",
            "Heute (Freitag, 25.12.2026): geschlossen (Feiertag: Erster Weihnachtstag)",
        ),
        # A Monday: tomorrow is Tuesday, the published 09:30–18:30 (the site file's
        # 09:00–17:00 is the team's own schedule, not what the site tells visitors).
        (
            datetime(2026, 12, 7, 10, 0, tzinfo=UTC),
            "Haben Sie morgen geöffnet?",
            "Morgen (Dienstag, 08.12.2026): 09:30–18:30 [1]",
        ),
        (
            datetime(2026, 12, 7, 10, 0, tzinfo=UTC),
            "Are you open today?",
            "Today (Monday, Dec 7, 2026): closed [1]",
        ),
    ],
)
async def test_relative_days_in_the_sites_timezone_with_its_holidays(
    service: ChatService, now: datetime, question: str, expected: str
) -> None:
    service.clock = lambda: now
    values = await ask(service, str(uuid.uuid4()), question)
    answer = values["answer"].replace("\u202f", " ")
    assert expected in answer, answer
    assert values["routing"] == "answered"


async def test_how_are_you_today_is_no_question_about_hours(service: ChatService) -> None:
    values = await ask(service, str(uuid.uuid4()), "Wie geht's dir heute? 😊")
    assert values.get("fact_reply") is None


PAYMENT_PAGE = """<!doctype html><html lang="de"><head><meta charset="utf-8">
<title>Bezahlen</title><link rel="canonical" href="https://radwerk.example/bezahlen.html">
</head><body><main><h1>Bezahlen in der Werkstatt</h1>
<p>Die Rechnung bekommen Sie bei der Abholung Ihres Rades.</p>
<p>Wir akzeptieren EC-Karte, Visa und Bargeld.</p>
<h2>Unser Team</h2><p>Heute arbeiten wir zu dritt: Jana, Mehmet und Lukas.</p>
<h2>Wir reparieren</h2><ul><li>Citybikes</li><li>Rennräder</li><li>Lastenräder</li></ul>
</main></body></html>"""


async def test_payment_methods_written_as_prose(tmp_path: Path) -> None:
    chat = radwerk(tmp_path, {"bezahlen.html": PAYMENT_PAGE})
    try:
        facts = chat.knowledge.site_facts(chat.runtime.site("radwerk").config)
        # Only the list about paying: not the team's names, not the bikes it repairs.
        assert [f.value for f in facts.of_kind("payment")] == ["EC-Karte", "Visa", "Bargeld"]
        values = await ask(chat, str(uuid.uuid4()), "Kann ich mit Karte zahlen?")
        answer = values["answer"]
        assert answer.startswith("Zahlungsarten:"), answer
        assert "EC-Karte" in answer and "Bargeld" in answer, answer
        assert cited_urls(values) == {"https://radwerk.example/bezahlen.html"}
    finally:
        await chat.close()
        chat.runtime.close()


@pytest.mark.parametrize(
    "question",
    ["Wie sind Ihre Öffnungszeiten?", "Wie sind eure Öffnungszeiten?", "Öffnungszeiten?"],
)
async def test_the_hours_asked_the_common_german_way(service: ChatService, question: str) -> None:
    """Read against English descriptions only, "Wie sind Ihre Öffnungszeiten?" came out
    nearer the address than the hours (cross-language cosines run lower): each kind is
    also described in the visitor's own language, and the reading that tells the kinds
    apart best counts."""
    values = await ask(service, str(uuid.uuid4()), question)
    assert (values.get("fact_reply") or {}).get("kind") == "hours", values["answer"]
    assert "Samstag: 10:00–14:00" in values["answer"], values["answer"]


DAILY_PAGE = """<!doctype html><html lang="de"><head><meta charset="utf-8">
<title>Notdienst</title><link rel="canonical" href="https://radwerk.example/notdienst.html">
</head><body><main><h1>Pannenhilfe</h1>
<p>Unser mobiler Pannendienst fährt täglich von 7:00 bis 22:00 Uhr.</p>
</main></body></html>"""


async def test_hours_stated_for_every_day_are_read(tmp_path: Path) -> None:
    """A page that says "täglich 7–22 Uhr" names no weekday; its hours are still facts."""
    chat = radwerk(tmp_path, {"notdienst.html": DAILY_PAGE})
    try:
        config = chat.runtime.site("radwerk").config
        facts = KnowledgeBase(chat.runtime.engine).site_facts(config)
        daily = [f for f in facts.of_kind("hours") if f.url.endswith("notdienst.html")]
        assert sorted(f.weekday for f in daily) == list(range(7))
        assert {f.ranges for f in daily} == {(("07:00", "22:00"),)}
    finally:
        await chat.close()
        chat.runtime.close()


CHEQUE_PAGE = """<!doctype html><html lang="de"><head><meta charset="utf-8">
<title>Bezahlen</title><link rel="canonical" href="https://radwerk.example/bezahlen.html">
</head><body><main><h1>Bezahlen in der Werkstatt</h1>
<p>Wir akzeptieren EC-Karte, Visa und Bargeld.</p>
<p>Schecks nehmen wir seit 2024 nicht mehr an.</p>
</main></body></html>"""


async def test_a_way_to_pay_the_list_leaves_out_is_answered_from_the_page(
    tmp_path: Path,
) -> None:
    """ "Kann ich mit Scheck bezahlen?" got the list of accepted methods, which says
    nothing of cheques; the page's own sentence answers it. A method on the list is still
    answered from the list."""
    chat = radwerk(tmp_path, {"bezahlen.html": CHEQUE_PAGE})
    try:
        values = await ask(chat, str(uuid.uuid4()), "Kann ich mit Scheck bezahlen?")
        assert values.get("fact_reply") is None
        assert "nicht mehr an" in values["answer"], values["answer"]
        values = await ask(chat, str(uuid.uuid4()), "Kann ich mit Karte bezahlen?")
        assert (values.get("fact_reply") or {}).get("kind") == "payment", values["answer"]
        assert "EC-Karte" in values["answer"], values["answer"]
    finally:
        await chat.close()
        chat.runtime.close()

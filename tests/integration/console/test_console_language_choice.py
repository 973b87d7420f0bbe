"""The console's language: the browser's Accept-Language by default, an operator's own
choice (stored on the operator) over it, and nobody else's choice on anyone's pages."""

from __future__ import annotations

from typing import Any

import pytest
from console_support import Console, add_operator, page_csrf, seed_conversation, sign_in

from frontdesk.store.operators import OperatorRepository

pytestmark = pytest.mark.integration

GERMAN = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}


def _language_of(console: Console, email: str) -> str | None:
    with console.runtime.sessions() as session:
        operator = OperatorRepository(session).by_email(email)
        assert operator is not None
        return operator.language


def _choose(client: Any, language: str, next_url: str = "/console/sites/demo/inbox") -> Any:
    token = page_csrf(client, "/console/sites/demo/inbox")
    return client.post(
        "/console/language",
        data={"language": language, "next": next_url, "csrf_token": token},
        follow_redirects=False,
    )


def test_the_sign_in_page_speaks_the_browsers_language(console_app: Console) -> None:
    client = console_app.client()
    german = client.get("/console/login", headers=GERMAN)
    assert '<html lang="de">' in german.text
    assert "<h1>Anmelden</h1>" in german.text and "Passwort" in german.text
    french = client.get("/console/login", headers={"Accept-Language": "fr-CH, fr;q=0.9"})
    assert "<h1>Se connecter</h1>" in french.text
    other = client.get("/console/login", headers={"Accept-Language": "ja-JP"})
    assert "<h1>Sign in</h1>" in other.text and '<html lang="en">' in other.text


def test_an_operators_choice_wins_over_the_browser_and_is_theirs_alone(
    console_app: Console, team: dict[str, Any]
) -> None:
    seed_conversation(console_app.runtime, "demo", question="Wo finde ich die Preise?")
    add_operator(console_app.runtime, "second@demo.test", {"demo": "agent"})
    owner = console_app.client()
    owner.headers.update(GERMAN)
    assert sign_in(owner, team["owner"]).status_code == 303
    assert "<h1>Posteingang</h1>" in owner.get("/console/sites/demo/inbox").text

    chosen = _choose(owner, "en", "/console/sites/demo/inbox?lead=hot")
    assert chosen.status_code == 303
    assert chosen.headers["location"] == "/console/sites/demo/inbox?lead=hot"
    assert _language_of(console_app, team["owner"]) == "en"
    inbox = owner.get("/console/sites/demo/inbox")
    assert "<h1>Inbox</h1>" in inbox.text and '<html lang="en">' in inbox.text

    # Another operator with the same German browser still reads German: the choice is
    # the owner's, not the deployment's or the site's.
    second = console_app.client()
    second.headers.update(GERMAN)
    sign_in(second, "second@demo.test")
    assert "<h1>Posteingang</h1>" in second.get("/console/sites/demo/inbox").text
    assert _language_of(console_app, "second@demo.test") is None

    # The choice follows the owner to another browser.
    elsewhere = console_app.client()
    elsewhere.headers.update(GERMAN)
    sign_in(elsewhere, team["owner"])
    assert "<h1>Inbox</h1>" in elsewhere.get("/console/sites/demo/inbox").text

    # Back to following the browser.
    assert _choose(owner, "").status_code == 303
    assert _language_of(console_app, team["owner"]) is None
    assert "<h1>Posteingang</h1>" in owner.get("/console/sites/demo/inbox").text


def test_error_pages_use_the_operators_choice(console_app: Console, team: dict[str, Any]) -> None:
    client = console_app.client()
    client.headers.update(ENGLISH)
    sign_in(client, team["acme_agent"])
    token = page_csrf(client, "/console/sites/acme/inbox")
    client.post("/console/language", data={"language": "de", "csrf_token": token})
    # The agent has no role on demo: the same "not found" as for a site that does not exist.
    missing = client.get("/console/sites/demo/inbox")
    assert missing.status_code == 404
    assert "<h1>Nicht gefunden</h1>" in missing.text


def test_a_choice_needs_the_sessions_csrf_token_and_a_console_language(
    console_app: Console, team: dict[str, Any]
) -> None:
    client = console_app.client()
    sign_in(client, team["owner"])
    forged = client.post("/console/language", data={"language": "ru"}, follow_redirects=False)
    assert forged.status_code == 403
    assert _language_of(console_app, team["owner"]) is None

    unknown = _choose(client, "tlh")
    assert unknown.status_code == 422 and "tlh" in unknown.text
    assert _language_of(console_app, team["owner"]) is None

    # The redirect stays inside the console, whatever `next` says.
    away = _choose(client, "it", "https://evil.example/")
    assert away.headers["location"] == "/console"
    assert _language_of(console_app, team["owner"]) == "it"


def test_signed_out_nobody_can_choose(console_app: Console) -> None:
    response = console_app.client().post(
        "/console/language", data={"language": "de"}, follow_redirects=False
    )
    assert response.status_code in (303, 401)
    assert "/console/login" in response.headers.get("location", "/console/login")


def test_every_page_of_a_site_speaks_german_for_a_german_browser(
    console_app: Console, team: dict[str, Any]
) -> None:
    """Each page's heading in German, and dates on the settings page written the German
    way (CLDR): the pages beyond the inbox are translated too."""
    seed_conversation(console_app.runtime, "demo")
    client = console_app.client()
    client.headers.update(GERMAN)
    sign_in(client, team["owner"])
    headings = {
        "leads": "Leads",
        "knowledge": "Wissen",
        "analytics": "Auswertung",
        "trust": "Vertrauensbericht",
        "gaps": "Inhaltslücken",
        "team-answers": "Team-Antworten",
        "settings": "Einstellungen",
    }
    for page, heading in headings.items():
        response = client.get(f"/console/sites/demo/{page}")
        assert response.status_code == 200, page
        assert f"<h1>{heading}</h1>" in response.text, page
    settings = client.get("/console/sites/demo/settings").text
    hours = settings.split('id="opening-hours"')[1].split("</section>")[0]
    assert "<h2>Öffnungszeiten</h2>" in hours and "Nächste 14 Tage" in hours
    weekdays = ("Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So.")
    upcoming = hours.split('id="upcoming-hours"')[1]
    assert sum(upcoming.count(f"<td>{day}, ") for day in weekdays) == 14, upcoming[:600]


def test_a_refused_form_says_why_in_the_operators_language(
    console_app: Console, team: dict[str, Any]
) -> None:
    """A team answer's problems are worded where they are checked (not in the console)
    and still reach a German operator in German."""
    client = console_app.client()
    client.headers.update(GERMAN)
    sign_in(client, team["owner"])
    token = page_csrf(client, "/console/sites/demo/team-answers/new")
    refused = client.post(
        "/console/sites/demo/team-answers",
        data={"csrf_token": token, "questions_en": "Wie lange dauert der Versand?"},
    )
    assert refused.status_code == 422
    assert "Schreiben Sie die Antwort, die der Besucher bekommen soll." in refused.text
    assert "Write the answer" not in refused.text

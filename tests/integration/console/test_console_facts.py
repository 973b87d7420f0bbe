""" "What Frontdesk knows about you" on the Knowledge page: the facts read from an uploaded
page with their page, and the team's corrections (edit, remove, add, undo), which win over
the crawl, keep their author and date and survive a re-upload. Only owners of that site
correct; a legitimate owner of another site can neither read nor correct them; a form
without the session's CSRF token changes nothing; bad input names its field and keeps what
was typed; two corrections at once never silently lose one."""

from __future__ import annotations

import html
import re
import threading
from typing import Any

import pytest
from console_support import Console, add_operator, page_csrf, sign_in

pytestmark = pytest.mark.integration

KNOWLEDGE = "/console/sites/demo/knowledge"
FACTS = KNOWLEDGE + "/facts"


def kontakt(tuesday: str = "9:30 – 18:30") -> bytes:
    return f"""<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Kontakt</title>
<link rel="canonical" href="https://radwerk.example/kontakt"></head><body><main>
<h1>Kontakt und Öffnungszeiten</h1>
<p>Unsere Werkstatt repariert Fahrräder aller Marken, vom Stadtrad bis zum Lastenrad.</p>
<table><tr><td>Montag</td><td>geschlossen</td></tr>
<tr><td>Dienstag</td><td>{tuesday}</td></tr>
<tr><td>Mittwoch bis Freitag</td><td>9:30 – 18:30</td></tr>
<tr><td>Samstag</td><td>10:00 – 14:00</td></tr></table>
<ul><li>Schlauch wechseln: 12 €</li></ul>
</main><footer><a href="tel:+493061207788">030 612 077 88</a>
<a href="mailto:werkstatt@radwerk.example">E-Mail</a></footer></body></html>""".encode()


def upload(client: Any, page: bytes) -> None:
    csrf = page_csrf(client, KNOWLEDGE)
    response = client.post(
        KNOWLEDGE + "/upload",
        data={"csrf_token": csrf},
        files={"files": ("kontakt.html", page, "text/html")},
    )
    assert response.status_code == 200, response.text[:500]


def rows(page_text: str) -> dict[str, str]:
    """data-key → the row's text (tags stripped, input values kept)."""
    found: dict[str, str] = {}
    for key, body in re.findall(
        r'<tr class="fact[^"]*" data-key="([^"]+)"[^>]*>(.*?)</tr>', page_text, re.S
    ):
        values = " ".join(re.findall(r'name="value"[^>]*value="([^"]*)"', body))
        text = " ".join(re.sub(r"<[^>]+>", " ", body).split())
        found[html.unescape(key)] = html.unescape(f"{text} {values}".strip())
    return found


def revision_of(page_text: str, key: str) -> str:
    row = page_text.split(f'data-key="{key}"', 1)[1]
    found = re.search(r'name="revision" value="(\d+)"', row)
    assert found
    return found.group(1)


def correct(client: Any, **form: str) -> Any:
    csrf = page_csrf(client, KNOWLEDGE)
    return client.post(FACTS, data={"csrf_token": csrf, **form})


def facts_of(console_app: Console) -> Any:
    knowledge = console_app.app.state.knowledge
    return knowledge.site_facts(console_app.runtime.site("demo").config)


def test_the_team_sees_and_corrects_its_facts(console_app: Console, team: Any) -> None:
    owner = console_app.client()
    sign_in(owner, team["owner"])
    upload(owner, kontakt())

    page = owner.get(KNOWLEDGE)
    assert "What Frontdesk knows about you" in page.text
    listed = rows(page.text)
    assert "09:30-18:30" in listed["hours:day:1"] and "Tuesday" in listed["hours:day:1"]
    assert "https://radwerk.example/kontakt" in page.text.split('data-key="hours:day:1"')[1]
    assert "closed" in listed["hours:day:0"] or "geschlossen" in listed["hours:day:0"]
    assert "+493061207788" in listed["phone:+493061207788"]
    assert "werkstatt@radwerk.example" in listed["email:werkstatt@radwerk.example"]
    assert "Schlauch wechseln" in listed["price:schlauch wechseln"]

    # Tuesday corrected: the answers' facts use it, with its author and date.
    saved = correct(
        owner,
        action="save",
        key="hours:day:1",
        revision="0",
        kind="hours",
        about="1",
        value="10:00-13:00, 14:00-18:00",
    )
    assert saved.status_code == 200, saved.text[:500]
    assert "Saved" in saved.text
    tuesday = [f for f in facts_of(console_app).of_kind("hours") if f.weekday == 1]
    assert [(f.origin, f.ranges, f.author) for f in tuesday] == [
        ("team", (("10:00", "13:00"), ("14:00", "18:00")), team["owner"])
    ]
    listed = rows(saved.text)
    assert "corrected by owner@team.test" in listed["hours:day:1"]
    assert "10:00-13:00, 14:00-18:00" in listed["hours:day:1"]

    # The page is uploaded again with other Tuesday hours: the correction still wins.
    upload(owner, kontakt(tuesday="8:00 – 12:00"))
    tuesday = [f for f in facts_of(console_app).of_kind("hours") if f.weekday == 1]
    assert [f.ranges for f in tuesday] == [(("10:00", "13:00"), ("14:00", "18:00"))]

    # Remove the e-mail, add a Sunday and a payment method, hand Tuesday back.
    page = owner.get(KNOWLEDGE).text
    removed = correct(
        owner,
        action="remove",
        key="email:werkstatt@radwerk.example",
        revision="0",
        kind="email",
    )
    assert removed.status_code == 200 and "Removed" in removed.text
    assert not facts_of(console_app).of_kind("email")
    assert "removed by owner@team.test" in rows(removed.text)["email:werkstatt@radwerk.example"]
    added = correct(owner, action="save", kind="hours", about="Sonntag", value="geschlossen")
    assert added.status_code == 200, added.text[:500]
    sunday = [f for f in facts_of(console_app).of_kind("hours") if f.weekday == 6]
    assert [(f.origin, f.ranges) for f in sunday] == [("team", ())]
    paid = correct(owner, action="save", kind="payment", value="Bargeld")
    assert paid.status_code == 200
    assert [f.value for f in facts_of(console_app).of_kind("payment")] == ["Bargeld"]
    page = owner.get(KNOWLEDGE).text
    undone = correct(
        owner,
        action="undo",
        key="hours:day:1",
        revision=revision_of(page, "hours:day:1"),
        kind="hours",
    )
    assert undone.status_code == 200
    tuesday = [f for f in facts_of(console_app).of_kind("hours") if f.weekday == 1]
    assert [(f.origin, f.ranges) for f in tuesday] == [("table", (("08:00", "12:00"),))]


def test_bad_input_names_the_field_and_keeps_what_was_typed(
    console_app: Console, team: Any
) -> None:
    owner = console_app.client()
    sign_in(owner, team["owner"])
    upload(owner, kontakt())
    before = facts_of(console_app)

    bad = correct(
        owner,
        action="save",
        key="hours:day:1",
        revision="0",
        kind="hours",
        about="1",
        value="9:30-",
    )
    assert bad.status_code == 422
    assert (
        "Value: &#39;9:30-&#39; is not a time range" in bad.text
        or "Value: '9:30-'" in html.unescape(bad.text)
    )
    row = bad.text.split('data-key="hours:day:1"', 1)[1].split("</tr>", 1)[0]
    assert 'value="9:30-"' in row and 'aria-invalid="true"' in row

    for form, field in (
        ({"kind": "hours", "about": "Blursday", "value": "10:00-12:00"}, "About"),
        ({"kind": "phone", "about": "", "value": "call us"}, "Value"),
        ({"kind": "email", "about": "", "value": "info@"}, "Value"),
        ({"kind": "price", "about": "Kette wechseln", "value": "18"}, "Value"),
        ({"kind": "price", "about": "", "value": "18 €"}, "About"),
        ({"kind": "hours", "about": "Dienstag", "value": "11:00-12:00"}, "About"),  # listed
    ):
        response = correct(owner, action="save", **form)
        assert response.status_code in (409, 422), form
        text = html.unescape(response.text)
        assert f"{field}:" in text, (form, text[text.find("error") :][:300])
        adding = text.split('id="fact-add"', 1)[1]
        assert f'value="{form["value"]}"' in adding, form  # nothing typed is lost
    assert facts_of(console_app) == before


def test_another_sites_owner_cannot_read_or_correct_these_facts(
    console_app: Console, team: Any
) -> None:
    owner = console_app.client()
    sign_in(owner, team["owner"])
    upload(owner, kontakt())
    before = facts_of(console_app)

    add_operator(console_app.runtime, "owner@acme.test", {"acme": "owner"})
    attacker = console_app.client()
    sign_in(attacker, "owner@acme.test")
    own_csrf = page_csrf(attacker, "/console/sites/acme/knowledge")
    assert attacker.get(KNOWLEDGE).status_code == 404
    stolen = attacker.post(
        FACTS,
        data={
            "csrf_token": own_csrf,
            "action": "save",
            "key": "hours:day:1",
            "revision": "0",
            "kind": "hours",
            "about": "1",
            "value": "closed",
        },
    )
    assert stolen.status_code == 404 and "09:30" not in stolen.text
    # Their own site's form with demo's fact key: no such fact there; demo untouched.
    mine = attacker.post(
        "/console/sites/acme/knowledge/facts",
        data={"csrf_token": own_csrf, "action": "remove", "key": "hours:day:1", "revision": "0"},
    )
    assert mine.status_code == 404
    assert "radwerk" not in attacker.get("/console/sites/acme/knowledge").text

    # The site's own owner without the session's CSRF token: refused, nothing changed.
    forged = owner.post(
        FACTS, data={"action": "remove", "key": "hours:day:1", "revision": "0", "kind": "hours"}
    )
    assert forged.status_code == 403
    # A viewer of the site reads the facts but cannot correct them.
    viewer = console_app.client()
    sign_in(viewer, "viewer@demo.test")
    seen = viewer.get(KNOWLEDGE)
    assert seen.status_code == 200 and "+493061207788" in seen.text
    assert 'action="/console/sites/demo/knowledge/facts"' not in seen.text
    viewer_csrf = page_csrf(viewer, KNOWLEDGE)
    refused = viewer.post(
        FACTS,
        data={"csrf_token": viewer_csrf, "action": "remove", "key": "hours:day:1", "revision": "0"},
    )
    assert refused.status_code == 403
    assert facts_of(console_app) == before


def test_two_corrections_at_once_lose_neither(console_app: Console, team: Any) -> None:
    add_operator(console_app.runtime, "second@team.test", {"demo": "owner"})
    first, second = console_app.client(), console_app.client()
    sign_in(first, team["owner"])
    sign_in(second, "second@team.test")
    upload(first, kontakt())

    # Different facts at the same moment: both kept.
    forms = [
        (first, {"key": "hours:day:5", "kind": "hours", "about": "5", "value": "09:00-13:00"}),
        (second, {"key": "phone:+493061207788", "kind": "phone", "value": "+49 30 999 000"}),
    ]
    tokens = [page_csrf(client, KNOWLEDGE) for client, _ in forms]
    results: list[int] = []
    barrier = threading.Barrier(2)

    def post(index: int) -> None:
        client, form = forms[index]
        barrier.wait()
        response = client.post(
            FACTS, data={"csrf_token": tokens[index], "action": "save", "revision": "0", **form}
        )
        results.append(response.status_code)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [200, 200]
    facts = facts_of(console_app)
    assert [f.ranges for f in facts.of_kind("hours") if f.weekday == 5] == [(("09:00", "13:00"),)]
    assert [f.value for f in facts.of_kind("phone")] == ["+49 30 999 000"]

    # The same fact from the same revision: exactly one is saved, the other is told and
    # keeps what they typed.
    same: list[tuple[str, Any]] = []

    def edit(client: Any, value: str, token: str) -> None:
        barrier.wait()
        response = client.post(
            FACTS,
            data={
                "csrf_token": token,
                "action": "save",
                "key": "hours:day:3",
                "revision": "0",
                "kind": "hours",
                "about": "3",
                "value": value,
            },
        )
        same.append((value, response))

    tokens = [page_csrf(first, KNOWLEDGE), page_csrf(second, KNOWLEDGE)]
    threads = [
        threading.Thread(target=edit, args=(first, "11:00-15:00", tokens[0])),
        threading.Thread(target=edit, args=(second, "12:00-16:00", tokens[1])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = sorted(response.status_code for _, response in same)
    assert codes == [200, 409], codes
    winner = next(value for value, r in same if r.status_code == 200)
    loser, refused = next((value, r) for value, r in same if r.status_code == 409)
    assert "changed this fact" in refused.text
    row = refused.text.split('data-key="hours:day:3"', 1)[1].split("</tr>", 1)[0]
    assert f'value="{loser}"' in row  # the loser's input is kept, to save again on purpose
    wednesday = [f for f in facts_of(console_app).of_kind("hours") if f.weekday == 3]
    opens, closes = winner.split("-")
    assert [f.ranges for f in wednesday] == [((opens, closes),)]


def test_settings_warn_when_the_site_file_and_the_published_hours_disagree(
    console_app: Console, team: Any
) -> None:
    owner = console_app.client()
    sign_in(owner, team["owner"])
    before = owner.get("/console/sites/demo/settings")
    assert before.status_code == 200 and 'id="hours-disagree"' not in before.text
    upload(owner, kontakt())
    page = html.unescape(owner.get("/console/sites/demo/settings").text)
    section = page.split('id="hours-disagree"', 1)[1]
    # demo's file: Monday to Friday 09:00-18:00; the page: Monday closed, Tuesday 09:30-18:30.
    assert (
        "Monday: the site file says 09:00-18:00, the site publishes closed "
        "(https://radwerk.example/kontakt)" in section
    )
    assert "Tuesday: the site file says 09:00-18:00, the site publishes 09:30-18:30" in section
    assert "Saturday: the site file says closed, the site publishes 10:00-14:00" in section

"""Content gaps and team answers in the console, on a real SQLite store and the real
knowledge index (multilingual e5): the gap report groups a site's unanswered questions by
meaning; a team answer written from a gap is searchable at once, edits and retirements
take effect at once and are logged; bad input loses nothing; viewers only read; another
site's operators get 404."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from api_support import ADMIN_KEY, admin_headers
from console_support import Console, add_operator, page_csrf, seed_conversation, sign_in
from starlette.requests import Request

from frontdesk.console.improvement_pages import team_knowledge
from frontdesk.store.db import transaction
from frontdesk.store.improvement import TeamAnswer, TeamAnswerChange
from frontdesk.store.widget import FeedbackRepository

pytestmark = pytest.mark.integration
NEW = "/console/sites/demo/team-answers/new"
ANSWERS = "/console/sites/demo/team-answers"
QUESTION = "Do you offer a discount for nonprofits?"
ANSWER = "Yes: registered nonprofits get 30 % off every plan. Write to us with your registration."


def seed_gaps(console: Console) -> str:
    rt = console.runtime
    seed_conversation(rt, "demo", question=QUESTION, routing="cannot_answer")
    seed_conversation(
        rt, "demo", question="¿Tienen descuento para ONG?", routing="low_confidence", language="es"
    )
    disliked = seed_conversation(rt, "demo", question="Is there nonprofit pricing?")
    with transaction(rt.sessions) as session:
        FeedbackRepository(session).record("demo", disliked, 1, "down", "No word on nonprofits")
    seed_conversation(rt, "demo", question="How do I reset my password?")  # answered: no gap
    seed_conversation(rt, "acme", question="Acme secret gap?", routing="cannot_answer")
    return disliked


def _knowledge(console: Console) -> Any:
    """The knowledge base the app wrote the team answer through."""
    return team_knowledge(Request({"type": "http", "app": console.app}))


def form(csrf: str, **fields: str) -> dict[str, str]:
    return {"csrf_token": csrf, **fields}


def stored_answers(console: Console) -> list[TeamAnswer]:
    with console.runtime.sessions() as session:
        found = session.query(TeamAnswer).all()
        session.expunge_all()
        return found


def test_the_gap_report_groups_questions_by_meaning(console_app: Console, team: Any) -> None:
    seed_gaps(console_app)
    client = console_app.client()
    sign_in(client, team["owner"])
    page = client.get("/console/sites/demo/gaps?days=7")
    assert page.status_code == 200, page.text[:300]
    html = page.text
    assert 'href="/console/sites/demo/gaps"' in html  # in the navigation
    assert html.count('class="card gap"') == 1, html  # three phrasings, two languages: one gap
    assert "¿Tienen descuento para ONG?" in html and QUESTION in html
    assert "visitor voted not helpful" in html and "could not answer" in html
    assert "No word on nonprofits" in html
    assert "reset my password" not in html and "Acme secret" not in html
    assert 'class="write-answer"' in html

    # The admin stats JSON carries the same clusters.
    console_app.runtime.settings.admin_api_key_hash = hashlib.sha256(ADMIN_KEY.encode()).hexdigest()
    stats = client.get("/v1/admin/sites/demo/stats?days=7", headers=admin_headers()).json()
    [gap] = stats["gaps"]
    assert gap["size"] == 3 and gap["trend"] == "new"
    assert set(gap["examples"]) == {"en", "es"}
    assert gap["reasons"] == {"cannot_answer": 1, "low_confidence": 1, "thumbs_down": 1}
    assert gap["passages"][0]["score"] == 0.734
    assert stats["unanswered_questions"] == [{"question": gap["label"], "count": 3}]


def test_roles_viewers_read_and_other_sites_get_404(console_app: Console, team: Any) -> None:
    seed_gaps(console_app)
    viewer = console_app.client()
    sign_in(viewer, "viewer@demo.test")
    assert viewer.get("/console/sites/demo/gaps").status_code == 200
    assert 'class="write-answer"' not in viewer.get("/console/sites/demo/gaps").text
    assert viewer.get(ANSWERS).status_code == 200
    assert viewer.get(NEW).status_code == 403
    csrf = page_csrf(viewer, ANSWERS)
    refused = viewer.post(
        ANSWERS, data=form(csrf, questions_en=QUESTION, answer_en=ANSWER), follow_redirects=False
    )
    assert refused.status_code == 403 and stored_answers(console_app) == []
    outsider = console_app.client()
    sign_in(outsider, team["acme_agent"])
    assert outsider.get("/console/sites/demo/gaps").status_code == 404
    assert outsider.get(ANSWERS).status_code == 404


def test_bad_input_gets_clear_errors_and_loses_nothing(console_app: Console, team: Any) -> None:
    client = console_app.client()
    sign_in(client, team["owner"])
    csrf = page_csrf(client, NEW)

    empty_answer = client.post(ANSWERS, data=form(csrf, questions_en=QUESTION, answer_en="  "))
    assert empty_answer.status_code == 422
    assert "Write the answer the visitor should get." in empty_answer.text
    assert QUESTION in empty_answer.text  # what was typed is still in the form

    no_questions = client.post(ANSWERS, data=form(csrf, questions_en="\n \n", answer_en=ANSWER))
    assert no_questions.status_code == 422
    assert "Add at least one question, one per line." in no_questions.text
    assert ANSWER in no_questions.text

    too_long = client.post(ANSWERS, data=form(csrf, questions_en=QUESTION, answer_en="x" * 5000))
    assert too_long.status_code == 422
    assert "The answer is 5000 characters; at most 1200." in too_long.text
    assert "x" * 5000 in too_long.text

    nothing = client.post(ANSWERS, data=form(csrf))
    assert nothing.status_code == 422 and "at least one language" in nothing.text
    assert stored_answers(console_app) == []  # nothing half-saved


def test_a_team_answer_from_a_gap_is_live_edited_retired_and_logged(
    console_app: Console, team: Any
) -> None:
    seed_gaps(console_app)
    add_operator(console_app.runtime, "agent@demo.test", {"demo": "agent"})
    client = console_app.client()
    sign_in(client, "agent@demo.test")
    gaps = client.get("/console/sites/demo/gaps").text
    link = re.search(r'action="(/console/sites/demo/team-answers/new)"', gaps)
    assert link
    params = re.findall(r'name="q" value="([^"]+)"', gaps)
    prefilled = client.get(NEW, params={"q": [p.replace("&#39;", "'") for p in params]}).text
    assert "¿Tienen descuento para ONG?" in prefilled and QUESTION in prefilled

    csrf = page_csrf(client, NEW)
    saved = client.post(
        ANSWERS,
        data=form(
            csrf,
            questions_en=f"{QUESTION}\nIs there nonprofit pricing?",
            answer_en=ANSWER,
            questions_es="¿Tienen descuento para ONG?",
            answer_es="Sí: las ONG registradas tienen un 30 % de descuento.",
        ),
        follow_redirects=False,
    )
    assert saved.status_code == 303, saved.text[:500]
    [answer] = stored_answers(console_app)
    site = console_app.runtime.sites["demo"].config
    knowledge = _knowledge(console_app)
    found = knowledge.search(site, "nonprofit discount?")
    assert found.status == "ok" and found.chunks[0].doc_id == f"team:{answer.id}:en"
    assert found.chunks[0].title == "Answer from the Tessellate team"
    spanish = knowledge.search(site, "¿descuento para ONG?")
    assert spanish.chunks[0].doc_id == f"team:{answer.id}:es"

    # A bad edit is refused and the saved answer survives, still live.
    edit = f"{ANSWERS}/{answer.id}"
    bad = client.post(edit, data=form(csrf, questions_en=QUESTION, answer_en=""))
    assert bad.status_code == 422
    assert stored_answers(console_app)[0].versions == answer.versions
    assert knowledge.search(site, "nonprofit discount?").chunks[0].doc_id.startswith("team:")

    # A good edit is searchable at once: English changed, Spanish dropped.
    new_text = "Yes: nonprofits get 40 % off. Write to us."
    changed = client.post(
        edit, data=form(csrf, questions_en=QUESTION, answer_en=new_text), follow_redirects=False
    )
    assert changed.status_code == 303
    top = knowledge.search(site, "nonprofit discount?").chunks[0]
    assert "40 %" in top.content
    assert all(d.doc_id != f"team:{answer.id}:es" for d in knowledge.list_documents(site))

    retired = client.post(f"{edit}/retire", data=form(csrf), follow_redirects=False)
    assert retired.status_code == 303
    assert all(not d.doc_id.startswith("team:") for d in knowledge.list_documents(site))
    restored = client.post(f"{edit}/restore", data=form(csrf), follow_redirects=False)
    assert restored.status_code == 303
    assert any(d.doc_id == f"team:{answer.id}:en" for d in knowledge.list_documents(site))

    with console_app.runtime.sessions() as session:
        log = session.query(TeamAnswerChange).order_by(TeamAnswerChange.id).all()
        assert [(c.action, c.operator_email) for c in log] == [
            ("created", "agent@demo.test"),
            ("edited", "agent@demo.test"),
            ("retired", "agent@demo.test"),
            ("restored", "agent@demo.test"),
        ]
        assert log[0].before is None and log[0].after["status"] == "active"
        assert log[1].before["versions"][0]["answer"] == ANSWER
        assert log[1].after["versions"][0]["answer"] == new_text
    history = client.get(edit).text
    assert history.count('class="card change"') == 4 and "agent@demo.test" in history
    listing = client.get(ANSWERS).text
    assert "team-answer-changes" in listing and "restored" in listing


def test_an_answer_the_index_refuses_is_kept_and_says_it_is_not_live(
    console_app: Console, team: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = console_app.client()
    sign_in(client, team["owner"])
    csrf = page_csrf(client, NEW)
    knowledge = _knowledge(console_app)

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(knowledge, "ingest_documents", refuse)
    response = client.post(ANSWERS, data=form(csrf, questions_en=QUESTION, answer_en=ANSWER))
    assert response.status_code == 200  # the redirect to the saved answer's page
    assert "Saved, but not live yet: indexing failed (OSError: disk full)" in response.text
    [kept] = stored_answers(console_app)  # what the operator wrote survives
    assert kept.versions[0]["answer"] == ANSWER and ANSWER in response.text
    monkeypatch.undo()
    again = client.post(
        f"{ANSWERS}/{kept.id}",
        data=form(csrf, questions_en=QUESTION, answer_en=ANSWER),
        follow_redirects=False,
    )
    assert again.status_code == 303
    site = console_app.runtime.sites["demo"].config
    assert any(d.doc_id == f"team:{kept.id}:en" for d in knowledge.list_documents(site))

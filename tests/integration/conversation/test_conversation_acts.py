"""Conversation acts through the real graph on a small German business's site (the
bike-repair shop of tests/fixtures/radwerk: real SQLite, the default multilingual
embedder, the local engine). A greeting, "how are you", thanks, a goodbye, a bare yes or
no, an address or number alone: each gets its own short reply in the conversation's
language, never a quoted page; an act that also asks something is answered."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from frontdesk.console.inbox_pages import load_transcript
from frontdesk.console.templating import templates
from frontdesk.conversation.service import ChatService
from frontdesk.conversation.texts import TEXTS
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings
from tests.support.site_chat import chat_service, ingested_site, site_turn

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "radwerk"
SITE = """\
id: radwerk
name: Radwerk Kreuzberg
default_language: de
languages: [de, en, fr]
knowledge:
  sources: [kb]
widget:
  public_key: pk_test_radwerk_0001
business_hours:
  timezone: Europe/Berlin
"""


@pytest.fixture(scope="module")
def radwerk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop's seven pages ingested once for this module."""
    root = tmp_path_factory.mktemp("radwerk")
    ingested_site(root, SITE, FIXTURE).close()
    return root


@pytest.fixture
async def service(radwerk: Path, tmp_path: Path) -> AsyncIterator[ChatService]:
    data = tmp_path / "data"
    shutil.copytree(radwerk / "data", data)
    runtime = build_runtime(Settings(data_dir=data, sites_dir=radwerk / "sites"))
    async for chat in chat_service(runtime):
        yield chat


async def ask(service: ChatService, session: str, message: str) -> dict[str, Any]:
    return await site_turn(service, "radwerk", session, message)


def reply(key: str, language: str = "de", **values: str) -> str:
    return TEXTS[key][language].format(site="Radwerk Kreuzberg", **values)


@pytest.mark.parametrize(
    ("message", "act"),
    [
        # quoted the team page ("Laut unserer Dokumentation: Heute arbeiten wir zu dritt…")
        ("Wie geht's dir heute? 😊", "how_are_you"),
        # both got the greeting ("Hallo! Ich bin der Assistent…")
        ("ok danke", "thanks"),
        ("Tschüss", "goodbye"),
        ("Hallo", "greeting"),
        ("Nein", "no"),
    ],
)
async def test_each_act_gets_its_own_reply_and_no_page(
    service: ChatService, message: str, act: str
) -> None:
    values = await ask(service, str(uuid.uuid4()), message)
    assert values["answer"] == reply(f"act.{act}"), values["answer"]
    assert values["citations"] == []
    assert (values["route"], values["route_reason"]) == ("REDIRECT", act)
    assert values["language"] == "de"


async def test_a_phrasing_the_act_head_never_saw_is_read_by_the_embedding_model(
    service: ChatService,
) -> None:
    """ "Je vous remercie" and "genau" are in no training row: the site's embedding model
    reads them against the shipped acts."""
    session = str(uuid.uuid4())
    await ask(service, session, "Bonjour, quels sont vos horaires d'ouverture ?")
    values = await ask(service, session, "Je vous remercie")
    assert values["answer"] == reply("act.thanks", "fr"), values["answer"]
    values = await ask(service, str(uuid.uuid4()), "genau")
    assert values["answer"] == reply("act.yes"), values["answer"]


@pytest.mark.parametrize("message", ["Come stai? 😊", "Hoe gaat het met je?"])
async def test_how_are_you_asked_in_words_the_act_head_never_saw_is_the_act(
    service: ChatService, message: str
) -> None:
    """A question, so the shipped acts alone do not decide it (they read "Où êtes-vous ?"
    as "how are you" too): the fact reader puts it with small talk as well. It got the
    introduction, or "I couldn't find this in our documentation"."""
    values = await ask(service, str(uuid.uuid4()), message)
    assert (values["route"], values["route_reason"]) == ("REDIRECT", "how_are_you")
    assert values["citations"] == []


@pytest.mark.parametrize("message", ["Où êtes-vous ?", "Wo seid ihr?"])
async def test_a_short_question_for_the_address_is_no_small_talk(
    service: ChatService, message: str
) -> None:
    values = await ask(service, str(uuid.uuid4()), message)
    assert values["route_reason"] != "how_are_you", values["answer"]


async def test_small_talk_with_words_of_its_own_is_still_the_act(service: ChatService) -> None:
    """ "Au revoir, bonne journée" has three content words: it got the introduction."""
    session = str(uuid.uuid4())
    await ask(service, session, "Bonjour, quels sont vos horaires d'ouverture ?")
    values = await ask(service, session, "Au revoir, bonne journée")
    assert values["answer"] == reply("act.goodbye", "fr"), values["answer"]


async def test_an_address_alone_is_acknowledged_in_the_site_language(
    service: ChatService,
) -> None:
    """Answered in English on a German site before: the detector's guess on an address."""
    values = await ask(service, str(uuid.uuid4()), "jana@example.de")
    assert values["language"] == "de"
    assert values["answer"] == reply("act.email", email="jana@example.de")
    assert values["citations"] == []


async def test_an_address_alone_keeps_the_conversation_language(service: ChatService) -> None:
    session = str(uuid.uuid4())
    first = await ask(service, session, "Bonjour, quels sont vos horaires d'ouverture ?")
    assert first["language"] == "fr"
    values = await ask(service, session, "jean.dupont@exemple.fr")
    assert values["language"] == "fr"
    assert values["answer"] == reply("act.email", "fr", email="jean.dupont@exemple.fr")


async def test_a_greeting_with_a_question_is_answered(service: ChatService) -> None:
    values = await ask(service, str(uuid.uuid4()), "Hallo, wann habt ihr offen?")
    assert values["route"] == "ANSWER"
    assert "Samstag: 10:00–14:00" in values["answer"], values["answer"]
    assert values["citations"]


async def test_a_conversation_of_acts_and_a_question(service: ChatService) -> None:
    session = str(uuid.uuid4())
    assert (await ask(service, session, "Guten Morgen!"))["answer"] == reply("act.greeting")
    values = await ask(service, session, "Was kostet ein Schlauchwechsel?")
    assert "12 €" in values["answer"], values["answer"]
    assert (await ask(service, session, "ok danke"))["answer"] == reply("act.thanks")
    assert (await ask(service, session, "Tschüss"))["answer"] == reply("act.goodbye")


async def test_the_console_shows_the_site_decision_not_a_wrong_label(
    service: ChatService,
) -> None:
    """The classifier reads "Wie komme ich mit der U-Bahn zu euch?" as an everyday request
    (OFFTOPIC) and the site's pages overrule it: the team sees that they cover the
    question, not the label; an act is named as the act it is."""
    session = str(uuid.uuid4())
    await ask(service, session, "Wie geht's dir heute? 😊")
    values = await ask(service, session, "Wie komme ich mit der U-Bahn zu euch?")
    assert values["intent"]["label"] == "OFFTOPIC"
    assert values["route"] == "ANSWER" and values["site_support"]["supported"]
    transcript = load_transcript(service.runtime, "radwerk", session)
    first, second = transcript.turns
    assert first.details["act"] == "how_are_you"
    assert second.details["site_support"]["supported"] is True
    assert second.details["reason"] == "site_supported"
    html = templates.env.get_template("transcript_turns.html").render(transcript=transcript)
    labels = [block.split("</div>")[0] for block in html.split('<div class="labels">')[1:]]
    assert "act how_are_you" in labels[0] and "intent" not in labels[0]
    assert (
        "covered by the site&#39;s pages" in labels[1] or "covered by the site's pages" in labels[1]
    )
    assert "OFFTOPIC" not in labels[1] and "reason site_supported" in labels[1]

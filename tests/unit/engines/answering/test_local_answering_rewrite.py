from __future__ import annotations

import pytest

from frontdesk.engines.base import Turn
from frontdesk.engines.local.answering import LocalQueryRewriter

pytestmark = pytest.mark.unit

SALESFORCE_TURN = Turn(
    user="Tell me about the Salesforce integration",
    assistant="According to our documentation: Supports standard and custom objects, "
    "Bulk API 2.0 for large syncs, and Platform Events as triggers [1].",
)
SSO_TURN = Turn(
    user="Does it support SSO?",
    assistant="According to our documentation: SAML 2.0 single sign-on is available on the "
    "Enterprise plan [1].",
)
RU_TURN = Turn(
    user="Как работает интеграция с Salesforce?",
    assistant="Согласно нашей документации: Tessellate Flow поддерживает объекты Salesforce [1].",
)


async def test_pronoun_takes_the_subject_of_the_previous_turn() -> None:
    query = await LocalQueryRewriter().rewrite("does it support SSO?", [SALESFORCE_TURN], "en")
    assert query.startswith("does it support SSO?")
    assert "Salesforce" in query


async def test_subject_survives_two_follow_ups() -> None:
    query = await LocalQueryRewriter().rewrite(
        "and how long does that take?", [SALESFORCE_TURN, SSO_TURN], "en"
    )
    assert "Salesforce" in query
    assert "SSO" in query


async def test_russian_pronoun_resolution() -> None:
    query = await LocalQueryRewriter().rewrite("а сколько это стоит?", [RU_TURN], "ru")
    assert "Salesforce" in query
    assert "интеграция" in query


async def test_short_question_is_expanded_with_the_topic() -> None:
    query = await LocalQueryRewriter().rewrite("Sandbox orgs?", [SALESFORCE_TURN], "en")
    assert "Salesforce" in query


@pytest.mark.parametrize(
    "question",
    [
        "What are the data retention rules for deleted workspaces?",
        "Gibt es eine Möglichkeit, Rechnungen per Banküberweisung zu bezahlen?",
    ],
)
async def test_standalone_question_is_kept(question: str) -> None:
    language = "de" if question.startswith("Gibt") else "en"
    assert await LocalQueryRewriter().rewrite(question, [SALESFORCE_TURN], language) == question


async def test_without_history_the_question_is_the_query() -> None:
    assert await LocalQueryRewriter().rewrite("  does it   support SSO? ", [], "en") == (
        "does it support SSO?"
    )


async def test_expand_adds_synonyms() -> None:
    rewriter = LocalQueryRewriter()
    assert "single sign-on" in await rewriter.expand("Does it support SSO?", "en")
    russian = await rewriter.expand("Как отменить подписку?", "ru")
    assert russian.startswith("Как отменить подписку?")
    assert "cancel" in russian


async def test_expand_without_known_concept_keeps_the_question() -> None:
    assert await LocalQueryRewriter().expand("Tell me about Relay", "en") == "Tell me about Relay"

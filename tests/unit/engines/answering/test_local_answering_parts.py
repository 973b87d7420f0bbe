"""How the local writer reads a message: its parts, examples asked for, and answers that
read like answers (relevance order, one language, nothing carried over, case studies on
request). Hand-built passages, no index, no model."""

from __future__ import annotations

import pytest
from local_answering_kb import SSO, passage

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering import LocalAnswerWriter, LocalSuggester
from frontdesk.engines.local.answering.parts import (
    addresses_the_business,
    asks_for_examples,
    asks_whether,
    is_customer_story,
    names_missing,
    question_parts,
    without_second_person,
)
from frontdesk.engines.local.answering.phrases import (
    NOT_FOUND,
    PARTS_UNKNOWN,
    phrase,
    voices_grievance,
)
from frontdesk.engines.local.answering.text import in_other_script, is_question, proper_names
from frontdesk.knowledge.models import RetrievedChunk

pytestmark = pytest.mark.unit

PROSPECT = (
    "We are a 300-person company using Salesforce, HubSpot and Slack. Do you support SAML "
    "with Okta, can we host our data in the EU region, and do you offer a 99.9% uptime SLA?"
)
SERVICE = passage(
    10,
    ("Service and support",),
    "# Service and support\n\n## If your bike is stolen\n\nReport the theft to the police "
    "within 24 hours. After that we deliver a replacement bike within three working days.\n\n"
    "## Delivery\n\nWe deliver bikes in Amsterdam, Rotterdam and Utrecht. Delivery is free "
    "in every city we serve.\n\n[Learn more](https://example.com/delivery)",
)
RU_SSO = passage(
    11,
    ("Безопасность", "Единый вход"),
    "SAML 2.0 и OpenID Connect доступны на тарифе Enterprise. Единый вход можно сделать "
    "обязательным для всех пользователей.",
)
STORY = RetrievedChunk(
    chunk_id="s1",
    doc_id="case-study-acme.md",
    title="Case study: Acme rolls out SSO in a week",
    url="",
    content="Acme turned on SAML single sign-on for 4,000 staff in a week.",
    score=0.7,
    source="case-study-acme.md",
    chunk_index=0,
)
REGIONS = passage(
    12,
    ("Data residency",),
    "Customer data is hosted in the EU region in Frankfurt or in the US region.",
)
SLA = passage(13, ("SLA",), "The Growth plan has a 99.9% monthly uptime SLA.")


def ask(question: str, chunks: tuple[RetrievedChunk, ...], query: str = "") -> AnswerRequest:
    return AnswerRequest(
        question=question, search_query=query or question, language="en", chunks=chunks
    )


async def compose(request: AnswerRequest) -> str:
    return await LocalAnswerWriter().compose(request)


def test_a_prospect_message_has_a_context_part_and_three_questions() -> None:
    parts = question_parts(PROSPECT, "en")
    assert [p.asks for p in parts] == [False, True, True, True]
    assert parts[1].text == "Do you support SAML with Okta"
    assert parts[3].text.startswith("do you offer a 99.9% uptime SLA")


@pytest.mark.parametrize(
    "question",
    [
        "If my bike is stolen, what do I do?",
        "Which cities do you deliver to?",
        "Salesforce, HubSpot and Slack?",
    ],
)
def test_one_question_stays_one_part(question: str) -> None:
    assert len(question_parts(question, "en")) == 1


def test_examples_are_asked_for_in_words_not_in_an_email_domain() -> None:
    assert asks_for_examples("Do you have customer stories from retail?")
    assert asks_for_examples("Есть примеры внедрения?")
    assert not asks_for_examples("I'm maria@example.org, do you support SSO?")
    assert is_customer_story(STORY) and not is_customer_story(SSO)


def test_questions_and_grievances() -> None:
    assert is_question("how do I cancel my subscription")
    assert is_question("Как отменить подписку")
    assert not is_question("I want my money back.")
    # typed fast, without a question mark or an apostrophe; "could you tell me" in Russian
    assert is_question("Whats the fastest way to delete my account on facebook.")
    assert is_question("Подскажите, пожалуйста, как удалить канал")
    assert voices_grievance("We are considering legal action. Who do I talk to?")
    assert not voices_grievance("What is the refund policy?")


def test_a_missing_name_rules_out_a_single_question_not_a_message_of_several() -> None:
    passages = "Data is hosted in the EU region."
    assert names_missing("Do you integrate with Odoo?", "en", passages)
    assert not names_missing(
        "Where is my data hosted, and do you integrate with Odoo?", "en", passages
    )


def test_scripts() -> None:
    assert in_other_script("Единый вход можно сделать обязательным.", "en")
    assert not in_other_script("SAML 2.0 and OIDC", "ru")  # names only
    assert in_other_script("SSO can be made mandatory for all users.", "ru")


async def test_the_section_on_the_subject_comes_first_and_the_rest_of_the_page_stays_out() -> None:
    text = await compose(ask("Which cities do you deliver to?", (SERVICE,)))
    assert text.index("Amsterdam") < len(text)
    assert "theft" not in text and "replacement" not in text, text


async def test_an_earlier_subject_in_the_search_query_brings_nothing_in_alone() -> None:
    text = await compose(
        ask("Which cities do you deliver to?", (SERVICE,), "cities deliver stolen police theft")
    )
    assert "police" not in text, text


async def test_an_english_question_gets_no_russian_beside_english_passages() -> None:
    text = await compose(ask("Can SSO be made mandatory?", (RU_SSO, SSO)))
    assert "mandatory" in text
    assert not any("\u0400" <= ch <= "\u04ff" for ch in text), text


async def test_case_studies_only_when_examples_are_asked_for() -> None:
    plain = await compose(ask("Do you support SAML single sign-on?", (STORY, SSO)))
    assert "Acme" not in plain and "SAML" in plain
    asked = await compose(ask("Any customer examples of SAML single sign-on?", (STORY, SSO)))
    assert "Acme" in asked


async def test_each_question_of_a_message_is_answered_or_named_unknown() -> None:
    question = (
        "Do you support SAML with Okta, can we host our data in the EU region, do you offer "
        "a 99.9% uptime SLA, and do you integrate with Odoo?"
    )
    text = await compose(ask(question, (SSO, REGIONS, SLA)))
    assert "Okta" in text and "Frankfurt" in text and "99.9%" in text
    unknown = PARTS_UNKNOWN["en"].format(x="“do you integrate with Odoo”")
    assert text.endswith(unknown), text
    assert text.index("Okta") < text.index("Frankfurt") < text.index("99.9%")  # her order


async def test_chips_have_no_markdown_and_no_navigation_labels() -> None:
    chips = await LocalSuggester().follow_ups("How much is it?", "", [SERVICE], "en")
    assert chips
    for chip in chips:
        assert "#" not in chip and "learn more" not in chip.lower() and "](" not in chip


# Real visitors' e-mails: a subject line, capitals for emphasis, redacted placeholders.
# None of those capitals names something the passages must mention.
@pytest.mark.parametrize(
    "message",
    [
        "CAN LYMPH NODES OR LIVER CANCER BE DETECTED IN AN UPPER GI?",
        "Customer Service Request\nHow much urine does an average human bladder hold?",
        "Ear Ache\nMy son was treated for otitis media on [DATE]. Pains started last night.",
    ],
)
def test_capitals_of_style_are_not_names(message: str) -> None:
    assert proper_names(message) == set()
    passages = "Otitis media and the bladder: what a lymph node biopsy or an upper GI shows."
    assert not names_missing(message, "en", passages)


def test_names_in_an_ordinary_sentence_still_count() -> None:
    assert proper_names("We use HubSpot.\nDo you integrate with Odoo?") == {"HubSpot", "Odoo"}
    assert proper_names("Do you support SAML with Okta?") == {"SAML", "Okta"}
    # Title Case is not shouting: three names in a short question.
    assert proper_names("Are you SOC 2 Type II certified?") == {"SOC", "Type", "II"}
    assert names_missing("Do you integrate with Odoo?", "en", "We integrate with HubSpot.")


@pytest.mark.parametrize(
    ("question", "whether"),
    [
        ("Do you have a kids' menu?", True),
        ("Вы ремонтируете грузовики?", True),
        ("¿Hacéis depilación?", True),
        ("Verleiht ihr auch Fahrräder?", True),
        ("Where are you?", False),
        ("Wie viel kostet ein Schlauch?", False),
        ("¿Dónde estáis?", False),
        ("Thanks, bye.", False),
    ],
)
def test_a_yes_or_no_question_has_no_question_word(question: str, whether: bool) -> None:
    assert asks_whether(question) is whether


@pytest.mark.parametrize(
    ("question", "addressed"),
    [
        ("Do you have a car park?", True),
        ("Vervangen jullie ook een meterkast?", True),
        ("Вы ремонтируете грузовики?", True),
        ("Avez-vous une terrasse ?", True),
        ("Puis-je payer par carte ?", False),
        ("Quais são os preços?", False),
        ("Fährt die U-Bahn bis zum Laden?", False),
        ("Is it going to rain tomorrow?", False),
        ("You are great.", False),
    ],
)
def test_a_question_to_the_business_is_in_the_second_person(question: str, addressed: bool) -> None:
    assert addresses_the_business(question) is addressed
    assert "jullie" not in without_second_person("Komen jullie ook in Zeist?")


BIKE_SHOP = passage(
    12,
    ("Repairs",),
    "We repair city bikes, racing bikes and cargo bikes. A puncture is fixed while you wait.",
)


async def test_a_yes_or_no_question_about_something_no_passage_names_is_not_found() -> None:
    # "scooters" is in no passage: the bikes the shop repairs are no answer to it.
    answer = await compose(ask("Do you repair scooters?", (BIKE_SHOP,)))
    assert answer == phrase(NOT_FOUND, "en"), answer
    # What the passages name is still answered, and so is a question that asks how.
    assert "[1]" in await compose(ask("Do you repair cargo bikes?", (BIKE_SHOP,)))
    assert "[1]" in await compose(ask("How fast do you repair a puncture?", (BIKE_SHOP,)))

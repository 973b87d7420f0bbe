from __future__ import annotations

import pytest
from local_answering_kb import OFFICES, RATE_LIMIT, SALESFORCE, SSO, passage

from frontdesk.engines.local.answering import LocalDocumentGrader

pytestmark = pytest.mark.unit


async def test_relevant_and_unrelated_passages() -> None:
    grades = await LocalDocumentGrader().grade(
        "Can I connect Salesforce sandbox orgs?",
        [SALESFORCE, OFFICES, SSO.model_copy(update={"score": 0.35})],
    )
    assert grades == [True, False, False]


async def test_error_code_must_be_in_the_passage() -> None:
    other_code = passage(9, ("Error Code Reference", "TF-1002: Connection expired"), "x y z", 0.9)
    grades = await LocalDocumentGrader().grade("What does TF-1004 mean?", [RATE_LIMIT, other_code])
    assert grades == [True, False]


async def test_high_cosine_alone_is_relevant() -> None:
    close = passage(9, ("Misc",), "Entirely different wording here.", 0.8)
    assert await LocalDocumentGrader().grade("How does SSO work?", [close]) == [True]


async def test_no_chunks() -> None:
    assert await LocalDocumentGrader().grade("anything", []) == []


async def test_a_longer_form_of_the_asked_word_counts() -> None:
    # Spanish "blanquearme" (whiten myself) and "blanqueamiento" (whitening) stem apart;
    # the page on whitening during pregnancy is still about the question.
    whitening = passage(
        9,
        ("Tratamientos", "Blanqueamiento"),
        "No realizamos blanqueamiento a embarazadas; lo posponemos hasta después del parto.",
        0.41,
    )
    unrelated = passage(10, ("Horarios",), "Abrimos de lunes a viernes de 9 a 20 h.", 0.41)
    grades = await LocalDocumentGrader().grade(
        "¿Puedo blanquearme los dientes si estoy embarazada?", [whitening, unrelated]
    )
    assert grades == [True, False]

"""Team answers as values: the form's checks (bad input gets a clear error per field),
the indexed document, and which retrieved passage the answer path gives word for word."""

from __future__ import annotations

import pytest

from frontdesk.conversation.outcomes import preferred_team_answer
from frontdesk.conversation.substates import TeamMatch
from frontdesk.improvement.team_answers import (
    MAX_ANSWER_CHARS,
    MAX_DOCUMENT_TOKENS,
    MAX_QUESTIONS,
    TeamAnswerForm,
    TeamAnswerInvalid,
    answer_part,
    checked_versions,
    doc_id,
    document_text,
    documents,
    is_team_document,
    question_part,
)
from frontdesk.knowledge.models import RetrievedChunk

pytestmark = pytest.mark.unit
LANGUAGES = ["en", "es"]


def errors_of(form: TeamAnswerForm, **kwargs: object) -> dict[str, str]:
    with pytest.raises(TeamAnswerInvalid) as caught:
        checked_versions(form, LANGUAGES, **kwargs)  # type: ignore[arg-type]
    return caught.value.errors


def test_a_complete_form_gives_one_version_per_filled_language() -> None:
    form = TeamAnswerForm(
        questions={"en": " Do you offer a nonprofit discount? \n\n  nonprofit   pricing\n"},
        answers={"en": "Yes: 30 % off every plan.\n\nWrite to us.", "es": ""},
    )
    [version] = checked_versions(form, LANGUAGES)
    assert version.language == "en"
    assert version.questions == ("Do you offer a nonprofit discount?", "nonprofit pricing")
    assert version.answer == "Yes: 30 % off every plan.\n\nWrite to us."


def test_an_empty_answer_is_named_and_so_is_an_empty_question_list() -> None:
    errors = errors_of(
        TeamAnswerForm(
            questions={"en": "Do you ship abroad?", "es": ""},
            answers={"en": "   ", "es": "Sí, a toda Europa."},
        )
    )
    assert errors == {
        "answer_en": "Write the answer the visitor should get.",
        "questions_es": "Add at least one question, one per line.",
    }


def test_an_empty_form_is_refused() -> None:
    assert errors_of(TeamAnswerForm()) == {
        "form": "Write at least one language's questions and answer."
    }


def test_too_long_texts_are_refused_with_their_limits() -> None:
    errors = errors_of(
        TeamAnswerForm(
            questions={"en": "\n".join(f"question {n}" for n in range(MAX_QUESTIONS + 1))},
            answers={"en": "x" * (MAX_ANSWER_CHARS + 1)},
        )
    )
    assert errors["answer_en"] == (
        f"The answer is {MAX_ANSWER_CHARS + 1} characters; at most {MAX_ANSWER_CHARS}."
    )
    assert (
        errors["questions_en"]
        == f"{MAX_QUESTIONS + 1} questions; at most {MAX_QUESTIONS} per language."
    )
    long_question = errors_of(
        TeamAnswerForm(questions={"en": "why " * 60}, answers={"en": "Because."})
    )
    assert "longer than" in long_question["questions_en"]


def test_a_document_that_would_not_stay_one_passage_is_refused() -> None:
    form = TeamAnswerForm(questions={"en": "What is it?"}, answers={"en": "word " * 200})
    errors = errors_of(form, count_tokens=len)  # a character per token: 1000 > the limit
    assert f"at most {MAX_DOCUMENT_TOKENS}" in errors["answer_en"]


def test_the_document_lists_the_questions_then_the_answer() -> None:
    form = TeamAnswerForm(
        questions={"en": "A?\nB?", "es": "¿A?"}, answers={"en": "- one\n- two", "es": "Sí."}
    )
    versions = checked_versions(form, LANGUAGES)
    docs = documents("abc", versions, "Acme")
    assert [d.doc_id for d in docs] == [doc_id("abc", "en"), doc_id("abc", "es")]
    assert docs[0].title == "Answer from the Acme team"
    assert docs[0].text == "- A?\n- B?\n\n- one\n- two"
    assert is_team_document(docs[0].doc_id, docs[0].source)
    assert not is_team_document("team:abc:en", "https://acme.example/team")
    # The answer path gives the answer part, lists in the answer included.
    assert answer_part(document_text(versions[0])) == "- one\n- two"
    assert answer_part("A plain passage.") == "A plain passage."


def chunk(doc: str, score: float, source: str = "docs/page.md") -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=f"{doc}#0",
        doc_id=doc,
        title=doc,
        url="",
        content="- Q?\n\nThe team's answer.",
        score=score,
        source=source,
        chunk_index=0,
    )


def test_a_team_answer_must_beat_every_page_and_match_the_question() -> None:
    team = chunk("team:1:en", 0.90, source="team:1")
    assert preferred_team_answer([chunk("page", 0.89), team], 0.8) == team
    assert preferred_team_answer([chunk("page", 0.91), team], 0.8) is None  # a page beats it
    assert preferred_team_answer([chunk("page", 0.90), team], 0.8) is None  # a tie is no win
    assert preferred_team_answer([team], 0.91) is None  # below the site's threshold
    assert preferred_team_answer([chunk("page", 0.9)], 0.8) is None
    # Its own questions must say what was asked, by the model's measured bar.
    near = TeamMatch(similarity={"team:1:en": 0.93}, bar=0.92)
    apart = TeamMatch(similarity={"team:1:en": 0.88}, bar=0.92)
    assert preferred_team_answer([team], 0.8, "en", near) == team
    assert preferred_team_answer([team], 0.8, "en", apart) is None
    unmeasured = TeamMatch(similarity={"team:1:en": 0.5}, bar=None)
    assert preferred_team_answer([team], 0.8, "en", unmeasured) == team
    assert question_part("- Q1?\n- Q2?\n\nThe answer.") == ("Q1?", "Q2?")
    weaker = chunk("team:2:en", 0.85, source="team:2")
    assert preferred_team_answer([weaker, team], None) == team
    # Only in the visitor's language: a Spanish question does not get the English text.
    assert preferred_team_answer([team], 0.8, "en") == team
    assert preferred_team_answer([team], 0.8, "es") is None
    spanish = chunk("team:1:es", 0.86, source="team:1")
    assert preferred_team_answer([team, spanish], 0.8, "es") == spanish

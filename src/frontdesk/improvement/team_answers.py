"""Team answers as values: what an operator's form becomes after checking, and the
knowledge documents an answer is indexed as (one per language). No I/O here.

A team answer's document is its question variants as a list, a blank line, then the
answer: short enough to stay one chunk, so search matches the questions and the answer
path can give the visitor the answer part word for word (`answer_part`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from frontdesk.knowledge.models import Document

TEAM_SOURCE = "team"
TEAM_DOC_PREFIX = "team:"
MAX_ANSWER_CHARS = 1200
MAX_QUESTION_CHARS = 200
MAX_QUESTIONS = 8
# The document must stay one chunk (the model's window is 512 tokens for e5): question
# variants, the answer and the title the model reads with them.
MAX_DOCUMENT_TOKENS = 480


def N_(message: str) -> str:
    """Marks a problem's wording for the console's catalogs (babel.cfg lists this module);
    the console shows it in the operator's language, the admin API as written."""
    return message


@dataclass(frozen=True)
class Problem:
    """One field's problem: its wording with named placeholders, and their values."""

    message: str
    values: Mapping[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message % dict(self.values) if self.values else self.message


class TeamAnswerInvalid(ValueError):
    """The form's problems, per field (`problems`; `errors` as English text), for the
    operator to fix."""

    def __init__(self, problems: dict[str, Problem]) -> None:
        self.problems = problems
        self.errors = {key: str(problem) for key, problem in problems.items()}
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


@dataclass(frozen=True)
class TeamAnswerVersion:
    language: str
    questions: tuple[str, ...]
    answer: str

    def as_json(self) -> dict[str, Any]:
        return {"language": self.language, "questions": list(self.questions), "answer": self.answer}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> TeamAnswerVersion:
        return cls(
            language=str(value.get("language") or "en"),
            questions=tuple(str(q) for q in value.get("questions") or ()),
            answer=str(value.get("answer") or ""),
        )


@dataclass(frozen=True)
class TeamAnswerForm:
    """What the operator typed, per language: questions one per line, and the answer."""

    questions: dict[str, str] = field(default_factory=dict)
    answers: dict[str, str] = field(default_factory=dict)


def question_lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def checked_versions(
    form: TeamAnswerForm,
    languages: Sequence[str],
    count_tokens: Callable[[str], int] | None = None,
    title: str = "",
) -> list[TeamAnswerVersion]:
    """The form's versions (a language left blank is skipped), or `TeamAnswerInvalid`
    naming every problem. At least one language must have questions and an answer."""
    errors: dict[str, Problem] = {}
    versions: list[TeamAnswerVersion] = []
    for language in languages:
        questions = question_lines(form.questions.get(language, ""))
        answer = form.answers.get(language, "").strip()
        if not questions and not answer:
            continue
        if not answer:
            errors[f"answer_{language}"] = Problem(N_("Write the answer the visitor should get."))
        elif len(answer) > MAX_ANSWER_CHARS:
            errors[f"answer_{language}"] = Problem(
                N_("The answer is %(length)s characters; at most %(limit)s."),
                {"length": len(answer), "limit": MAX_ANSWER_CHARS},
            )
        if not questions:
            errors[f"questions_{language}"] = Problem(
                N_("Add at least one question, one per line.")
            )
        elif len(questions) > MAX_QUESTIONS:
            errors[f"questions_{language}"] = Problem(
                N_("%(count)s questions; at most %(limit)s per language."),
                {"count": len(questions), "limit": MAX_QUESTIONS},
            )
        elif any(len(q) > MAX_QUESTION_CHARS for q in questions):
            errors[f"questions_{language}"] = Problem(
                N_("A question is longer than %(limit)s characters."),
                {"limit": MAX_QUESTION_CHARS},
            )
        if f"answer_{language}" in errors or f"questions_{language}" in errors:
            continue
        version = TeamAnswerVersion(language, tuple(questions), answer)
        if count_tokens is not None:
            tokens = count_tokens(f"{title}\n\n{document_text(version)}")
            if tokens > MAX_DOCUMENT_TOKENS:
                errors[f"answer_{language}"] = Problem(
                    N_(
                        "Questions and answer are %(tokens)s tokens; at most %(limit)s "
                        "(shorten the answer or drop a question)."
                    ),
                    {"tokens": tokens, "limit": MAX_DOCUMENT_TOKENS},
                )
                continue
        versions.append(version)
    if not versions and not errors:
        errors["form"] = Problem(N_("Write at least one language's questions and answer."))
    if errors:
        raise TeamAnswerInvalid(errors)
    return versions


def team_title(company: str) -> str:
    return f"Answer from the {company} team"


def document_text(version: TeamAnswerVersion) -> str:
    questions = "\n".join(f"- {q}" for q in version.questions)
    return f"{questions}\n\n{version.answer}"


def doc_id(answer_id: str, language: str) -> str:
    return f"{TEAM_DOC_PREFIX}{answer_id}:{language}"


def documents(
    answer_id: str, versions: Sequence[TeamAnswerVersion], company: str
) -> list[Document]:
    return [
        Document(
            doc_id=doc_id(answer_id, version.language),
            title=team_title(company),
            text=document_text(version),
            kind="markdown",
            source=f"{TEAM_SOURCE}:{answer_id}",
        )
        for version in versions
    ]


def is_team_document(doc_id_: str, source: str) -> bool:
    return doc_id_.startswith(TEAM_DOC_PREFIX) and source.startswith(f"{TEAM_SOURCE}:")


def team_language(doc_id_: str) -> str:
    """The language of a team answer's document (`team:<answer>:<language>`)."""
    return doc_id_.rsplit(":", 1)[-1]


def answer_part(content: str) -> str:
    """The answer of a team answer's passage: what follows its list of questions."""
    lines = content.split("\n")
    index = 0
    while index < len(lines) and lines[index].startswith("- "):
        index += 1
    rest = "\n".join(lines[index:]).strip()
    return rest or content.strip()


def question_part(content: str) -> tuple[str, ...]:
    """The questions of a team answer's passage: the list it starts with."""
    questions: list[str] = []
    for line in content.split("\n"):
        if not line.startswith("- "):
            break
        question = line[2:].strip()
        if question:
            questions.append(question)
    return tuple(questions)

"""Saving team answers: the row and its change log in one transaction, then the answer's
documents re-indexed at once (a retired answer's documents removed), so the next visitor
question already sees the change.

If indexing fails the saved answer stays (nothing the operator wrote is lost) and the
error is raised for the page to show; saving again re-indexes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from frontdesk.improvement.team_answers import (
    TeamAnswerForm,
    TeamAnswerVersion,
    checked_versions,
    doc_id,
    documents,
    team_title,
)
from frontdesk.runtime import Runtime
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.improvement import TeamAnswer, TeamAnswerRepository

log = logging.getLogger(__name__)


class NotIndexed(RuntimeError):
    """The answer is saved but its documents could not be (re)indexed: not live yet."""

    def __init__(self, answer_id: str, cause: Exception) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.answer_id = answer_id


def versions_of(answer: TeamAnswer) -> list[TeamAnswerVersion]:
    return [TeamAnswerVersion.from_json(v) for v in answer.versions or []]


def _count_tokens(knowledge: Any, site: SiteConfig) -> Any:
    try:
        embedder = knowledge.embedder(site)
    except Exception:  # the model is not available: the character limits still hold
        return None
    return getattr(embedder, "count_tokens", None)


def check_form(knowledge: Any, site: SiteConfig, form: TeamAnswerForm) -> list[TeamAnswerVersion]:
    return checked_versions(
        form, site_languages(site), _count_tokens(knowledge, site), team_title(site.name)
    )


def site_languages(site: SiteConfig) -> list[str]:
    languages = [site.default_language, *site.languages]
    return list(dict.fromkeys(language for language in languages if language))


def reindex(
    knowledge: Any,
    site: SiteConfig,
    answer_id: str,
    versions: Sequence[TeamAnswerVersion],
    active: bool,
    previous_languages: Sequence[str] = (),
) -> None:
    """The answer's documents as they are now: (re)indexed when active, else removed,
    and a language dropped from the answer removed too. `NotIndexed` if that fails."""
    kept = {version.language for version in versions} if active else set()
    try:
        for language in set(previous_languages) | {v.language for v in versions}:
            if language not in kept:
                knowledge.remove_document(site, doc_id(answer_id, language))
        if active and versions:
            report = knowledge.ingest_documents(
                site, documents(answer_id, versions, site.name), progress=False
            )
            if report.failed:
                raise RuntimeError("; ".join(report.failed.values()))
    except Exception as exc:
        log.exception("team_answer_not_indexed site=%s answer=%s", site.id, answer_id)
        raise NotIndexed(answer_id, exc) from exc


def create_answer(
    runtime: Runtime, knowledge: Any, site: SiteConfig, form: TeamAnswerForm, who: str
) -> str:
    versions = check_form(knowledge, site, form)
    with transaction(runtime.sessions) as session:
        answer = TeamAnswerRepository(session).create(site.id, [v.as_json() for v in versions], who)
        answer_id = answer.id
    reindex(knowledge, site, answer_id, versions, active=True)
    return answer_id


def edit_answer(
    runtime: Runtime,
    knowledge: Any,
    site: SiteConfig,
    answer_id: str,
    who: str,
    *,
    form: TeamAnswerForm | None = None,
    status: str | None = None,
) -> TeamAnswer | None:
    """Change an answer's text or status; None when the site has no such answer."""
    versions = check_form(knowledge, site, form) if form is not None else None
    with transaction(runtime.sessions) as session:
        repo = TeamAnswerRepository(session)
        answer = repo.get(site.id, answer_id)
        if answer is None:
            return None
        previous = [v.language for v in versions_of(answer)]
        repo.update(
            answer,
            who,
            versions=[v.as_json() for v in versions] if versions is not None else None,
            status=status,
        )
        current = versions_of(answer)
        active = answer.status == "active"
        session.expunge(answer)
    reindex(knowledge, site, answer_id, current, active, previous)
    return answer

"""The improvement loop in the console: content gaps for a chosen period, and team answers
(write one from a gap or from scratch, edit, retire, restore) with their change log.

Viewers read; agents and owners write team answers. A change takes effect at once: the
answer's documents are re-indexed before the page answers.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any
from urllib.parse import quote_plus

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import ConsoleNotFound, ConsoleSite
from frontdesk.api.deps import ConsoleSiteDep, CsrfDep, RuntimeDep
from frontdesk.api.ingestion import knowledge_base
from frontdesk.console.i18n import N_
from frontdesk.console.templating import page_messages, render
from frontdesk.improvement.gaps import gap_report
from frontdesk.improvement.team_answers import (
    MAX_ANSWER_CHARS,
    MAX_QUESTIONS,
    TeamAnswerForm,
    TeamAnswerInvalid,
    team_title,
)
from frontdesk.improvement.team_service import (
    NotIndexed,
    create_answer,
    edit_answer,
    site_languages,
    versions_of,
)
from frontdesk.runtime import Runtime
from frontdesk.store.improvement import TeamAnswer, TeamAnswerRepository

log = logging.getLogger(__name__)
router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

PERIODS = (7, 30, 90)
WRITER_ROLE = "agent"
# Why questions count as a gap (`improvement.clusters` reasons), in the console's words.
GAP_REASONS = {
    "cannot_answer": N_("could not answer"),
    "followup": N_("asked the visitor to clarify"),
    "low_confidence": N_("answered with low confidence"),
    "refused": N_("refused (off-topic)"),
    "thumbs_down": N_("visitor voted not helpful"),
    "handed_off": N_("handed to a person after an answer"),
}
# What a redirect after a change tells the team (`?notice=` carries the key).
NOTICES = {
    "saved": N_("Saved and live."),
    "retired": N_("Retired: no longer used."),
    "restored": N_("Restored and live."),
}


def _told(request: Request, site: ConsoleSite, exc: TeamAnswerInvalid) -> dict[str, str]:
    """The form's problems in the operator's language."""
    t = page_messages(request, site.user)
    return {
        key: t.gettext(problem.message, **problem.values) for key, problem in exc.problems.items()
    }


def _not_live(request: Request, site: ConsoleSite, exc: NotIndexed) -> Response:
    """Saved (nothing the operator wrote is lost), but the search does not have it yet."""
    text = page_messages(request, site.user).gettext(
        "Saved, but not live yet: indexing failed (%(error)s). Save it again.", error=exc
    )
    notice = quote_plus(text)
    return RedirectResponse(
        f"/console/sites/{site.id}/team-answers/{exc.answer_id}?error={notice}", status_code=303
    )


@router.get("/gaps")
async def gaps_page(
    request: Request,
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    days: Annotated[int, Query(ge=1, le=366)] = 30,
) -> Response:
    knowledge = _knowledge(request)
    report = await run_in_threadpool(gap_report, runtime, knowledge, site.site.config, days)
    return render(
        request,
        "gaps.html",
        {
            "page": "gaps",
            "days": days,
            "periods": PERIODS,
            "report": report,
            "reason_labels": GAP_REASONS,
        },
        site=site,
    )


def _knowledge(request: Request) -> Any:
    try:
        return knowledge_base(request)
    except Exception:  # the report still clusters; passages show their document ids
        log.exception("knowledge base unavailable for the gap report")
        return None


def team_knowledge(request: Request) -> Any:
    """The knowledge base the assistant answers from (the chat service's, when it has one):
    a team answer written through it is seen by the very next search, not after the
    index's recheck interval for other instances."""
    chat_knowledge = getattr(getattr(request.app.state, "chat", None), "knowledge", None)
    return chat_knowledge if chat_knowledge is not None else knowledge_base(request)


def _answers(runtime: Runtime, site_id: str) -> tuple[list[TeamAnswer], list[Any]]:
    with runtime.sessions() as session:
        repo = TeamAnswerRepository(session)
        answers = list(repo.for_site(site_id))
        changes = list(repo.changes(site_id))
        session.expunge_all()
    return answers, changes


@router.get("/team-answers")
async def team_answers_page(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, notice: str = ""
) -> Response:
    answers, changes = await run_in_threadpool(_answers, runtime, site.id)
    return render(
        request,
        "team_answers.html",
        {
            "page": "team-answers",
            "answers": [(a, versions_of(a)) for a in answers],
            "changes": changes,
            "can_write": site.can(WRITER_ROLE),
            "notice": page_messages(request, site.user).gettext(NOTICES[notice])
            if notice in NOTICES
            else "",
            "title": team_title(site.site.config.name),
        },
        site=site,
    )


def _form_page(
    request: Request,
    site: ConsoleSite,
    form: TeamAnswerForm,
    *,
    answer: TeamAnswer | None = None,
    errors: dict[str, str] | None = None,
    changes: list[Any] | None = None,
    status: int = 200,
    from_gap: str = "",
    problem: str = "",
) -> Response:
    return render(
        request,
        "team_answer_form.html",
        {
            "page": "team-answers",
            "form": form,
            "answer": answer,
            "errors": errors or {},
            "languages": site_languages(site.site.config),
            "changes": changes or [],
            "can_write": site.can(WRITER_ROLE),
            "max_answer": MAX_ANSWER_CHARS,
            "max_questions": MAX_QUESTIONS,
            "from_gap": from_gap,
            "problem": problem,
            "title": team_title(site.site.config.name),
        },
        site=site,
        status_code=status,
    )


@router.get("/team-answers/new")
async def new_team_answer(
    request: Request,
    site: ConsoleSiteDep,
    q: Annotated[list[str] | None, Query(max_length=600)] = None,
    gap: Annotated[str, Query(max_length=300)] = "",
) -> Response:
    """The form, prefilled with a gap's questions (`q=language|question`, repeated)."""
    site.require(WRITER_ROLE)
    languages = site_languages(site.site.config)
    questions: dict[str, list[str]] = {}
    for value in (q or [])[:40]:
        language, _, text = value.partition("|")
        if language not in languages:
            language, text = languages[0], value
        questions.setdefault(language, []).append(" ".join(text.split()))
    form = TeamAnswerForm(questions={k: "\n".join(v) for k, v in questions.items()})
    return _form_page(request, site, form, from_gap=gap)


async def _read_form(request: Request, site: ConsoleSite) -> TeamAnswerForm:
    data = await request.form()
    languages = site_languages(site.site.config)

    def field(name: str) -> str:
        value = data.get(name)
        return value[:20_000] if isinstance(value, str) else ""

    return TeamAnswerForm(
        questions={lang: field(f"questions_{lang}") for lang in languages},
        answers={lang: field(f"answer_{lang}") for lang in languages},
    )


@router.post("/team-answers", dependencies=[CsrfDep])
async def create_team_answer(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep
) -> Response:
    site.require(WRITER_ROLE)
    form = await _read_form(request, site)
    knowledge = team_knowledge(request)
    try:
        answer_id = await run_in_threadpool(
            create_answer, runtime, knowledge, site.site.config, form, site.user.email
        )
    except TeamAnswerInvalid as exc:
        errors = _told(request, site, exc)
        return _form_page(request, site, form, errors=errors, status=422)
    except NotIndexed as exc:
        return _not_live(request, site, exc)
    log.info("team_answer_created site=%s id=%s by=%s", site.id, answer_id, site.user.email)
    return RedirectResponse(f"/console/sites/{site.id}/team-answers?notice=saved", status_code=303)


def _load(runtime: Runtime, site_id: str, answer_id: str) -> tuple[TeamAnswer, list[Any]]:
    with runtime.sessions() as session:
        repo = TeamAnswerRepository(session)
        answer = repo.get(site_id, answer_id)
        if answer is None:
            raise ConsoleNotFound(answer_id)
        changes = list(repo.changes(site_id, answer_id))
        session.expunge_all()
    return answer, changes


def _form_of(answer: TeamAnswer) -> TeamAnswerForm:
    versions = versions_of(answer)
    return TeamAnswerForm(
        questions={v.language: "\n".join(v.questions) for v in versions},
        answers={v.language: v.answer for v in versions},
    )


@router.get("/team-answers/{answer_id}")
async def team_answer_page(
    request: Request,
    runtime: RuntimeDep,
    site: ConsoleSiteDep,
    answer_id: str,
    error: Annotated[str, Query(max_length=600)] = "",
) -> Response:
    answer, changes = await run_in_threadpool(_load, runtime, site.id, answer_id)
    return _form_page(
        request, site, _form_of(answer), answer=answer, changes=changes, problem=error
    )


async def _edit(
    request: Request,
    runtime: Runtime,
    site: ConsoleSite,
    answer_id: str,
    notice: str,
    *,
    form: TeamAnswerForm | None = None,
    status: str | None = None,
) -> Response:
    """Change one team answer (its text or its status), then back to the list with `notice`."""
    site.require(WRITER_ROLE)
    knowledge = team_knowledge(request)
    try:
        saved = await run_in_threadpool(
            lambda: edit_answer(
                runtime,
                knowledge,
                site.site.config,
                answer_id,
                site.user.email,
                form=form,
                status=status,
            )
        )
    except NotIndexed as exc:
        return _not_live(request, site, exc)
    if saved is None:
        raise ConsoleNotFound(answer_id)
    return RedirectResponse(
        f"/console/sites/{site.id}/team-answers?notice={notice}", status_code=303
    )


@router.post("/team-answers/{answer_id}", dependencies=[CsrfDep])
async def update_team_answer(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, answer_id: str
) -> Response:
    site.require(WRITER_ROLE)
    form = await _read_form(request, site)
    try:
        return await _edit(request, runtime, site, answer_id, "saved", form=form)
    except TeamAnswerInvalid as exc:
        answer, changes = await run_in_threadpool(_load, runtime, site.id, answer_id)
        return _form_page(
            request,
            site,
            form,
            answer=answer,
            errors=_told(request, site, exc),
            changes=changes,
            status=422,
        )


@router.post("/team-answers/{answer_id}/retire", dependencies=[CsrfDep])
async def retire_team_answer(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, answer_id: str
) -> Response:
    return await _edit(request, runtime, site, answer_id, "retired", status="retired")


@router.post("/team-answers/{answer_id}/restore", dependencies=[CsrfDep])
async def restore_team_answer(
    request: Request, runtime: RuntimeDep, site: ConsoleSiteDep, answer_id: str
) -> Response:
    return await _edit(request, runtime, site, answer_id, "restored", status="active")

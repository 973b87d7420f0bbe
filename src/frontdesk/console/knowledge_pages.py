"""Knowledge: the site's documents with their sync state, upload, remove, re-sync from
the site file's sources, and "what would the assistant find" (retrieval with scores and
the site's threshold)."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import ConsoleSite
from frontdesk.api.deps import ConsoleSiteDep, CsrfDep
from frontdesk.api.ingestion import (
    IngestionUnavailable,
    ingest_upload,
    knowledge_base,
    merge_reports,
)
from frontdesk.console.facts_pages import KIND_LABELS, facts_view
from frontdesk.console.i18n import N_, Messages
from frontdesk.console.templating import page_messages, render
from frontdesk.console.web_sources import source_states, start_resync
from frontdesk.guard.charset import clean_text

log = logging.getLogger(__name__)

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

MAX_FILES = 20


def file_sources(site: ConsoleSite) -> list[str]:
    """The site file's folders and files (its `knowledge.sources` that are paths)."""
    return [s for s in site.site.config.knowledge.sources if isinstance(s, str)]


async def _page(
    request: Request,
    site: ConsoleSite,
    *,
    notice: str = "",
    error: str = "",
    status: int = 200,
    fact_draft: dict[str, str] | None = None,
) -> Response:
    documents: list[Any] = []
    facts: dict[str, Any] = {"fact_rows": [], "fact_kinds": KIND_LABELS}
    try:
        knowledge = knowledge_base(request)
        documents = await run_in_threadpool(knowledge.list_documents, site.id)
        facts = await run_in_threadpool(facts_view, knowledge, site)
    except IngestionUnavailable as exc:
        error = error or str(exc)
    web = await run_in_threadpool(source_states, request.app.state.runtime, site)
    return render(
        request,
        "knowledge.html",
        {
            "documents": sorted(documents, key=lambda d: d.title.lower()),
            "withheld": withheld_rows(documents, page_messages(request, site.user)),
            "sources": file_sources(site),
            "web": web,
            "threshold": _threshold(site),
            "notice": notice,
            "error": error,
            "page": "knowledge",
            "fact_draft": fact_draft or {},
            **facts,
        },
        site=site,
        status_code=status,
    )


# Why a passage was withheld (`knowledge.instructions` reasons), in the console's words.
WITHHELD_REASONS = {
    "role_prefix": N_("a role prefix (system:, assistant:, [INST]) as if the text were a prompt"),
    "addressed_to_assistant": N_("addressed to an AI, assistant or model, not to visitors"),
    "ignore_previous_instructions": N_("tells the assistant to ignore its instructions"),
    "orders_for_every_visitor": N_("orders the assistant to tell every visitor something"),
    "link_lure": N_("a claim/verify lure with a link"),
    "secret_request": N_(
        "asks for a password, card number or other secret to be sent to an address"
    ),
    "follows_note_to_assistant": N_("follows a note addressed to an assistant in the same block"),
    "contact_from_withheld_passage": N_(
        "names an address that a withheld passage of this page asked for"
    ),
    "hidden_display_none": N_("hidden text (display:none)"),
    "hidden_visibility": N_("hidden text (visibility:hidden)"),
    "hidden_font_size": N_("hidden text (zero font size)"),
    "hidden_opacity": N_("hidden text (opacity:0)"),
    "hidden_zero_size": N_("hidden text (zero size or clipped away)"),
    "hidden_off_screen": N_("hidden text (positioned off screen)"),
    "hidden_colour": N_("hidden text (transparent or same colour as its background)"),
    "hidden_attribute": N_("hidden text (hidden attribute)"),
    "hidden_aria": N_('hidden text (aria-hidden="true")'),
    "hidden_template": N_("hidden text (<template>)"),
    "hidden_comment": N_("hidden text (an HTML comment)"),
}


def withheld_rows(documents: list[Any], t: Messages | None = None) -> list[dict[str, str]]:
    """Every passage kept out of the index, with its page and why (in the operator's
    language), for the team to fix the page: planted instructions, requests for secrets,
    hidden text."""
    from frontdesk.knowledge.injection.instructions import reason_label

    def why(reason: str) -> str:
        if t is not None and reason in WITHHELD_REASONS:
            return t.gettext(WITHHELD_REASONS[reason])
        return reason_label(reason)

    return [
        {
            "doc_id": document.doc_id,
            "title": document.title,
            "url": document.url or document.source,
            "reason": passage.reason,
            "why": why(passage.reason),
            "excerpt": passage.excerpt,
        }
        for document in sorted(documents, key=lambda d: d.title.lower())
        for passage in document.withheld
    ]


def _threshold(site: ConsoleSite) -> float | None:
    from frontdesk.knowledge.site import SiteKnowledge

    return SiteKnowledge.of(site.site.config).relevance_threshold()


@router.get("/knowledge")
async def knowledge_page(request: Request, site: ConsoleSiteDep) -> Response:
    return await _page(request, site)


@router.get("/knowledge/search")
async def search(
    request: Request, site: ConsoleSiteDep, q: Annotated[str, Query(max_length=500)] = ""
) -> Response:
    result = None
    if q.strip():
        result = await knowledge_base(request).asearch(site.site.config, q.strip())
    return render(
        request,
        "knowledge_search.html",
        {"query": q, "result": result, "threshold": _threshold(site)},
        site=site,
    )


@router.post("/knowledge/upload", dependencies=[CsrfDep])
async def upload(
    request: Request,
    site: ConsoleSiteDep,
    files: Annotated[list[UploadFile], File()],
) -> Response:
    site.require("owner")
    files = [f for f in files if f.filename]
    if not files or len(files) > MAX_FILES:
        error = page_messages(request, site.user).gettext(
            "Choose between 1 and %(count)s files.", count=MAX_FILES
        )
        return await _page(request, site, error=error, status=422)
    knowledge = knowledge_base(request)
    reports: list[dict[str, Any]] = []
    for upload_file in files:
        raw = clean_text(upload_file.filename or "upload")
        name = raw.replace("\\", "/").rsplit("/", 1)[-1][:255] or "upload"
        data = await upload_file.read()
        try:
            reports.append(await run_in_threadpool(ingest_upload, knowledge, site.site, data, name))
        except Exception:
            log.exception("console upload of %s into site %s failed", name, site.id)
            failure = page_messages(request, site.user).gettext(
                "ingestion failed; see the server log"
            )
            reports.append({"failed": {name: failure}})
    summary = merge_reports(reports)
    failed = summary.get("failed") or {}
    notice = _summary_text(summary, page_messages(request, site.user))
    error = "; ".join(f"{name}: {why}" for name, why in failed.items())
    return await _page(request, site, notice=notice, error=error, status=200 if not failed else 422)


def _summary_text(summary: dict[str, Any], t: Messages) -> str:
    """What an ingestion did, in the operator's words ("Done: 3 ingested and 1 updated.")."""
    from babel.lists import format_list

    counts = {key: len(summary.get(key) or []) for key in ("ingested", "updated", "skipped")}
    counts["removed"] = len(summary.get("removed") or [])
    parts = []
    if counts["ingested"]:
        parts.append(t.ngettext("%(count)s ingested", "%(count)s ingested", counts["ingested"]))
    if counts["updated"]:
        parts.append(t.ngettext("%(count)s updated", "%(count)s updated", counts["updated"]))
    if counts["skipped"]:
        parts.append(t.ngettext("%(count)s skipped", "%(count)s skipped", counts["skipped"]))
    if counts["removed"]:
        parts.append(t.ngettext("%(count)s removed", "%(count)s removed", counts["removed"]))
    if not parts:
        return ""
    return t.gettext("Done: %(what)s.", what=format_list(parts, locale=t.locale))


@router.post("/knowledge/documents/remove", dependencies=[CsrfDep])
async def remove(
    request: Request, site: ConsoleSiteDep, doc_id: Annotated[str, Form(max_length=500)]
) -> Response:
    site.require("owner")
    removed = await run_in_threadpool(knowledge_base(request).remove_document, site.id, doc_id)
    if not removed:
        error = page_messages(request, site.user).gettext(
            "No document %(document)s to remove.", document=repr(doc_id)
        )
        return await _page(request, site, error=error, status=404)
    return RedirectResponse(f"/console/sites/{site.id}/knowledge", status_code=303)


@router.post("/knowledge/resync", dependencies=[CsrfDep])
async def resync(request: Request, site: ConsoleSiteDep) -> Response:
    """Ingest the site file's file sources again: unchanged documents are skipped by their
    fingerprint, changed ones re-embedded, deleted files removed."""
    site.require("owner")
    knowledge = knowledge_base(request)

    def run() -> dict[str, Any]:
        reports = []
        for source in file_sources(site):  # web sources re-sync by crawling
            path = (site.site.base_dir / source).resolve()
            report = knowledge.ingest_path(site.site.config, path, progress=False)
            reports.append(
                {
                    "ingested": report.ingested,
                    "updated": report.updated,
                    "skipped": report.skipped,
                    "removed": report.removed,
                    "failed": report.failed,
                }
            )
        return merge_reports(reports)

    summary = await run_in_threadpool(run)
    if any(summary.get(key) for key in ("ingested", "updated", "removed")):
        from frontdesk.store.trust import queue_after_sync

        await run_in_threadpool(queue_after_sync, knowledge.index.engine, site.id)
    failed = summary.get("failed") or {}
    error = "; ".join(f"{name}: {why}" for name, why in failed.items())
    t = page_messages(request, site.user)
    notice = _summary_text(summary, t) or t.gettext(
        "Nothing to sync: the site file lists no sources."
    )
    return await _page(request, site, notice=notice, error=error)


@router.post("/knowledge/web/resync", dependencies=[CsrfDep])
async def resync_web_source(
    request: Request, site: ConsoleSiteDep, url: Annotated[str, Form(max_length=2048)]
) -> Response:
    """Crawl one web source again now (in the background; the page polls its state)."""
    site.require("owner")
    notice, error, status = await start_resync(request, site, url)
    return await _page(request, site, notice=notice, error=error, status=status)

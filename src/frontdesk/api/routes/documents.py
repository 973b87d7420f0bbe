"""`POST /v1/admin/sites/{site}/documents`: upload files and ingest them into the site."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import File, Request, UploadFile
from starlette.concurrency import run_in_threadpool

from frontdesk.api.deps import AdminSiteDep, RuntimeDep
from frontdesk.api.errors import ApiError
from frontdesk.api.ingestion import (
    IngestionUnavailable,
    ingest_upload,
    merge_reports,
    open_knowledge_base,
)
from frontdesk.api.routes.admin_common import ADMIN_ERRORS, admin_router
from frontdesk.api.schemas import IngestResult, error_responses
from frontdesk.guard.charset import clean_text

log = logging.getLogger(__name__)

router = admin_router()

MAX_FILES = 50


@router.post(
    "/{site}/documents",
    summary="Upload documents (Markdown, text, HTML, PDF) and ingest them",
    response_model=IngestResult,
    responses={
        **ADMIN_ERRORS,
        **error_responses(
            {
                413: "Upload too large.",
                422: "No files, or too many.",
                501: "Knowledge ingestion is not available.",
            }
        ),
    },
)
async def upload_documents(
    request: Request,
    site: AdminSiteDep,
    runtime: RuntimeDep,
    files: Annotated[list[UploadFile], File(description="One or more documents.")],
) -> IngestResult:
    if not files or len(files) > MAX_FILES:
        raise ApiError(422, "invalid_request", f"Send between 1 and {MAX_FILES} files.")
    knowledge: Any = getattr(request.app.state, "knowledge", None)
    if knowledge is None:
        try:
            knowledge = open_knowledge_base(runtime)
        except IngestionUnavailable as exc:
            raise ApiError(501, "ingestion_unavailable", str(exc)) from exc
        request.app.state.knowledge = knowledge
    reports: list[dict[str, Any]] = []
    names: list[str] = []
    for upload in files:
        raw_name = clean_text(upload.filename or "upload")
        name = raw_name.replace("\\", "/").rsplit("/", 1)[-1][:255] or "upload"
        data = await upload.read()
        try:
            report = await run_in_threadpool(ingest_upload, knowledge, site, data, name)
        except IngestionUnavailable as exc:
            raise ApiError(501, "ingestion_unavailable", str(exc)) from exc
        except Exception:
            log.exception("ingesting %s into site %s failed", name, site.config.id)
            report = {"failed": {name: "ingestion failed; see the server log"}}
        reports.append(report)
        names.append(name)
    return IngestResult(site_id=site.config.id, files=names, summary=merge_reports(reports))

"""What every admin router shares: its prefix, its authentication (`deps.require_admin`)
and its documented errors."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from frontdesk.api.deps import AdminDep
from frontdesk.api.schemas import Responses, error_responses

ListLimit = Annotated[int, Query(ge=1, le=1000)]
"""How many rows an admin list returns at most."""


def admin_router() -> APIRouter:
    """A router under `/v1/admin/sites`, each route behind the admin key or a site token."""
    return APIRouter(prefix="/v1/admin/sites", tags=["admin"], dependencies=[AdminDep])


ADMIN_ERRORS: Responses = error_responses(
    {
        401: "Missing or invalid admin key or site token.",
        403: "Admin API disabled (no key hash and no token for the site), or a "
        "site token used on another site's routes.",
        404: "Unknown site.",
        429: "Too many failed admin authentications from this address: locked "
        "out for `Retry-After` seconds.",
    }
)

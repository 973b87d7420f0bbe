"""What every admin router shares: documented errors (authentication: `deps.require_admin`)."""

from __future__ import annotations

from typing import Any

from frontdesk.api.schemas import ErrorResponse

ADMIN_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "Missing or invalid admin key or site token."},
    403: {
        "model": ErrorResponse,
        "description": "Admin API disabled (no key hash and no token for the site), or a "
        "site token used on another site's routes.",
    },
    404: {"model": ErrorResponse, "description": "Unknown site."},
    429: {
        "model": ErrorResponse,
        "description": "Too many failed admin authentications from this address: locked "
        "out for `Retry-After` seconds.",
    },
}

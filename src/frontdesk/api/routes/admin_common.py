"""What every admin router shares: the bearer-key dependency and documented errors."""

from __future__ import annotations

from typing import Any

from frontdesk.api.schemas import ErrorResponse

ADMIN_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "Missing or invalid admin key."},
    403: {"model": ErrorResponse, "description": "Admin API disabled (no key hash configured)."},
    404: {"model": ErrorResponse, "description": "Unknown site."},
}

"""What the takeover refuses, as domain errors; the web layer (`web/errors.py`) gives each
its HTTP status. Every error carries a stable `code` and a message for the operator."""

from __future__ import annotations


class TakeoverError(Exception):
    """A takeover action that cannot be done as asked."""

    code = "takeover_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class UnknownSession(TakeoverError):
    """No conversation is stored for this session on this site (another site's session
    ids find nothing either)."""

    code = "session_not_found"


class NotJoined(TakeoverError):
    """The action needs the operator to own the conversation, and nobody joined it."""

    code = "not_joined"


class OwnedByOther(TakeoverError):
    """Another operator owns the conversation."""

    code = "owned_by_other"


class BadMessage(TakeoverError):
    """A message with nothing to send, or too long to send."""

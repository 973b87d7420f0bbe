"""The interface the API uses to run turns; implemented by `conversation.service.ChatService`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from frontdesk.conversation.payload import TurnEvent, TurnResult, VisitorContext
from frontdesk.conversation.transcripts import HistoryMessage, SessionExport
from frontdesk.sites.registry import LoadedSite


class ChatBackend(Protocol):
    def stream_turn(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> AsyncIterator[TurnEvent]:
        """Run one turn: zero or more TokenEvents, then exactly one CompleteEvent or ErrorEvent.

        The turn is persisted before the CompleteEvent is yielded. Closing the iterator
        early (client disconnect) cancels the remaining work.
        """
        ...

    async def ask(
        self, site: LoadedSite, session_id: str, message: str, visitor: VisitorContext
    ) -> TurnResult:
        """The same turn, non-streaming."""
        ...

    async def history(self, site: LoadedSite, session_id: str) -> list[HistoryMessage]:
        """The stored messages of a session, oldest first (empty when unknown)."""
        ...

    async def erase(self, site: LoadedSite, session_id: str) -> bool:
        """Erase everything stored for a session (GDPR). True when anything existed."""
        ...

    async def export(self, site: LoadedSite, session_id: str) -> SessionExport:
        """Everything stored for a session, as JSON-ready data."""
        ...

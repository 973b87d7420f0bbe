"""A turn written in two steps: the visitor's message before the answer streams, the
reply (with its trace, handoff and leads, in the caller's transaction) after it.

Every message of a turn carries its `turn_key` in `details`, so a turn replayed from the
spool (`conversation/spool.py`) is written once however often the replay runs.
"""

from __future__ import annotations

from typing import Any

from frontdesk.store.db import Repository
from frontdesk.store.models import utcnow
from frontdesk.store.repositories import (
    _MESSAGES,
    ConversationRepository,
    StoredTurn,
)

MAX_STORED_MESSAGE = 20_000


class TurnLogRepository(Repository):
    def open_turn(
        self,
        site_id: str,
        session_id: str,
        text: str,
        turn_key: str,
        language: str | None = None,
        page_url: str = "",
        referrer: str = "",
    ) -> int:
        """Store the visitor's message as the next turn; its number (1-based). The page
        the visitor wrote from, and the page that led them to the site, are kept with it
        (the console shows both)."""
        now = utcnow()
        conversation_id, number = ConversationRepository(self.session).next_turn(
            site_id, session_id, language, now
        )
        self.session.execute(
            _MESSAGES.insert(),
            [
                {
                    "conversation_id": conversation_id,
                    "turn": number,
                    "created_at": now,
                    "role": "user",
                    "content": text[:MAX_STORED_MESSAGE],
                    "route": None,
                    "routing": None,
                    "intent": None,
                    "details": {
                        "turn_key": turn_key,
                        **({"page": page_url} if page_url else {}),
                        **({"referrer": referrer} if referrer else {}),
                    },
                }
            ],
        )
        return number

    def add_reply(self, site_id: str, session_id: str, turn: int, reply: StoredTurn) -> None:
        """The assistant's side of an opened turn (`reply.user_text` is not used)."""
        conversation = ConversationRepository(self.session).get(site_id, session_id)
        if conversation is None:
            raise LookupError(f"no conversation {site_id}:{session_id} for turn {turn}")
        now = utcnow()
        conversation.last_activity_at = now
        if reply.language:
            conversation.language = reply.language
        self.session.execute(
            _MESSAGES.insert(),
            [
                {
                    "conversation_id": conversation.id,
                    "turn": turn,
                    "created_at": now,
                    "role": "assistant",
                    "content": reply.assistant_text,
                    "route": reply.route,
                    "routing": reply.routing,
                    "intent": reply.intent,
                    "details": reply.details or {},
                }
            ],
        )

    def keyed(self, site_id: str, session_id: str, turn_key: str) -> dict[str, int]:
        """The roles already stored for `turn_key` → their turn number."""
        found: dict[str, int] = {}
        for message in ConversationRepository(self.session).messages(site_id, session_id):
            details: dict[str, Any] = message.details or {}
            if details.get("turn_key") == turn_key:
                found[message.role] = message.turn
        return found

"""Writing turns to the app store (nothing acknowledged unsaved).

A turn is written in two steps: `open_turn` stores the visitor's message before the
answer streams (a process killed mid-answer keeps it), and `write` stores the reply, its
trace, the handoff with its outbox rows and captured leads, in one transaction.

When the store cannot write, the turn goes to the spool (`conversation/spool.py`, JSON
lines, fsynced) and is replayed into the store later; when the spool cannot write either,
`StoreUnavailableError` tells the caller (which refuses an unopened turn, and mails a
handoff directly — `ChatService`).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy.orm import Session, sessionmaker

from frontdesk.conversation.payload import TurnResult
from frontdesk.conversation.spool import Spool, SpoolRecord, spooled_state
from frontdesk.conversation.spooled_sessions import SpooledKey, spooled_keys
from frontdesk.conversation.state import TurnValues
from frontdesk.conversation.turn_effects import (
    append_trace,
    turn_decision,
    turn_labels,
    turn_side_effects,
)
from frontdesk.engines.base import ModelCall
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.health import store_writes
from frontdesk.store.repositories import StoredTurn
from frontdesk.store.turn_log import TurnLogRepository

log = logging.getLogger(__name__)

Kept = Literal["store", "spool"]


@dataclass
class TurnRecord:
    site: SiteConfig
    session_id: str
    message: str
    result: TurnResult
    values: TurnValues
    timings_ms: dict[str, float] = field(default_factory=dict)
    latency_ms: float = 0.0
    engine: str = "local"
    # Accounting of the turn's model calls (engines/llm/accounting.py).
    model: str | None = None
    prompt_version: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    llm_calls: list[ModelCall] = field(default_factory=list)
    # Wall-clock end of the turn (the record is built as the graph finishes); exported
    # spans are laid out backwards from it (observability/tracing.py).
    ended_ns: int = field(default_factory=time.time_ns)
    # What the reply ends with when the turn is kept outside the store (its lead waits in
    # the spool): the visitor reads it, so the stored transcript says it too.
    spooled_note: str = ""


@dataclass(frozen=True)
class OpenedTurn:
    """A turn whose visitor message is kept: in the store (`turn` is its number) or, when
    the store could not write, in the spool (`turn` is None)."""

    key: str
    turn: int | None


class StoreUnavailableError(RuntimeError):
    """Neither the store nor the spool could keep what was asked of them."""


class StoreBacklogError(RuntimeError):
    """Not an error of the store: the turn goes to the spool behind its session's others."""


__all__ = [
    "ModelCall",
    "OpenedTurn",
    "StoreUnavailableError",
    "TurnRecord",
    "TurnWriter",
]


def _now() -> str:
    return datetime.now(UTC).isoformat()


class TurnWriter:
    def __init__(self, sessions: sessionmaker[Session], spool: Spool | None = None) -> None:
        self.sessions = sessions
        self.spool = spool
        # Sessions this writer spooled turns of, until the spool is empty again.
        self._backlog: set[tuple[str, str]] = set()

    def _spooled_before(self, site_id: str, session_id: str) -> bool:
        if self._spooled_key(site_id, session_id) is not None:
            return True  # the session's key waits in the spool: so do its turns
        if not self._backlog:
            return False
        if self.spool is None or not self.spool.pending():
            self._backlog.clear()
            return False
        return (site_id, session_id) in self._backlog

    # -- before the answer -------------------------------------------------------------
    def open_turn(
        self,
        site: SiteConfig,
        session_id: str,
        message: str,
        key: str,
        page_url: str = "",
        referrer: str = "",
    ) -> OpenedTurn:
        """Keep the visitor's message (store, else spool) before anything is answered.

        A session with turns still in the spool spools its next ones too, so the replay
        stores its turns in the order the visitor sent them."""
        try:
            if self._spooled_before(site.id, session_id):
                raise StoreBacklogError("earlier turns of this session wait in the spool")
            with transaction(self.sessions) as session:
                turn = TurnLogRepository(session).open_turn(
                    site.id, session_id, message, key, page_url=page_url, referrer=referrer
                )
        except Exception as exc:
            if not isinstance(exc, StoreBacklogError):
                store_writes.failed(exc)
                log.error("store write failed (visitor message, turn %s): %s", key, exc)
            self._backlog.add((site.id, session_id))
            self._spool(
                {
                    "kind": "message",
                    "turn_key": key,
                    "site_id": site.id,
                    "session_id": session_id,
                    "message": message,
                    "page": page_url,
                    "referrer": referrer,
                    "at": _now(),
                },
                exc,
            )
            return OpenedTurn(key, None)
        store_writes.ok()
        return OpenedTurn(key, turn)

    # -- after the answer --------------------------------------------------------------
    def write(self, record: TurnRecord, opened: OpenedTurn | None = None) -> Kept:
        """The finished turn: reply, trace, handoff and its outbox rows, leads."""
        result = record.result
        reply = StoredTurn(
            user_text=record.message,
            assistant_text=result.answer,
            **turn_labels(result),
            language=result.language,
            details={
                "citations": [c.model_dump() for c in result.citations],
                "lead": result.lead.level,
                "handoff": result.handoff.model_dump() if result.handoff else None,
                # What enrichment knew of the visitor at this turn (the console shows it).
                "enrichment": dict(record.values.get("visitor_profile") or {}) or None,
                **turn_decision(record.values),
            },
        )
        return self._finish(
            record.site,
            record.session_id,
            record.message,
            opened,
            reply,
            record.values,
            result.lead.level,
            record,
        )

    def write_failure(
        self,
        site: SiteConfig,
        session_id: str,
        message: str,
        partial: str,
        fallback: str,
        opened: OpenedTurn | None = None,
        values: TurnValues | None = None,
    ) -> Kept:
        """A turn that failed midway; a handoff it had already proposed is still kept."""
        reply = StoredTurn(
            user_text=message,
            assistant_text=(partial + "\n\n" + fallback).strip(),
            route=None,
            routing="cannot_answer",
            details={"error": True},
        )
        handoff = (values or {}).get("handoff")
        lead = str((handoff.get("lead_level") if handoff else None) or "cold")
        return self._finish(site, session_id, message, opened, reply, values or {}, lead, None)

    def write_blocked(
        self,
        site: SiteConfig,
        session_id: str,
        message: str,
        result: TurnResult,
        kind: str,
        opened: OpenedTurn | None = None,
    ) -> Kept:
        reply = StoredTurn(
            user_text=message,
            assistant_text=result.answer,
            route="BLOCKED",
            routing=result.routing,
            intent=result.intent,
            details={"block": kind},
        )
        return self._finish(site, session_id, message, opened, reply, {}, "cold", None)

    def write_relayed(
        self,
        site: SiteConfig,
        session_id: str,
        message: str,
        result: TurnResult,
        opened: OpenedTurn | None = None,
    ) -> Kept:
        """A message relayed to the person who owns the conversation: no bot reply text."""
        reply = StoredTurn(
            user_text=message,
            assistant_text="",
            route="HUMAN",
            routing=result.routing,
            intent=result.intent,
            details={"relayed": True},
        )
        return self._finish(site, session_id, message, opened, reply, {}, "cold", None)

    def _finish(
        self,
        site: SiteConfig,
        session_id: str,
        message: str,
        opened: OpenedTurn | None,
        reply: StoredTurn,
        values: TurnValues,
        lead_level: str,
        record: TurnRecord | None,
    ) -> Kept:
        key = opened.key if opened else f"direct-{time.time_ns()}"
        reply = dataclasses.replace(reply, details={**(reply.details or {}), "turn_key": key})
        try:
            if opened is not None and opened.turn is None:
                # The message is in the spool: the turn joins it there, in order.
                raise StoreBacklogError("the visitor's message is in the spool")
            with transaction(self.sessions) as session:
                log_repo = TurnLogRepository(session)
                turn = opened.turn if opened else None
                if turn is None:
                    turn = log_repo.open_turn(site.id, session_id, message, key, reply.language)
                log_repo.add_reply(site.id, session_id, turn, reply)
                if record is not None:
                    append_trace(session, record, turn)
                turn_side_effects(session, site, session_id, turn, message, values, lead_level)
        except Exception as exc:
            if not isinstance(exc, StoreBacklogError):
                store_writes.failed(exc)
                log.error("store write failed (turn %s of session %s): %s", key, session_id, exc)
            self._backlog.add((site.id, session_id))
            if record is not None and record.spooled_note:
                text = f"{reply.assistant_text}\n\n{record.spooled_note}"
                reply = dataclasses.replace(reply, assistant_text=text)
            self._spool(
                {
                    "kind": "turn",
                    "turn_key": key,
                    "site_id": site.id,
                    "session_id": session_id,
                    "turn": opened.turn if opened else None,
                    "message": message,
                    "reply": {
                        "assistant_text": reply.assistant_text,
                        "route": reply.route,
                        "routing": reply.routing,
                        "intent": reply.intent,
                        "language": reply.language,
                        "details": reply.details,
                    },
                    "lead_level": lead_level,
                    "state": spooled_state(values),
                    "at": _now(),
                },
                exc,
            )
            return "spool"
        store_writes.ok()
        return "store"

    def _spooled_key(self, site_id: str, session_id: str) -> SpooledKey | None:
        if self.spool is None:
            return None
        return spooled_keys.get(self.spool.folder, site_id, session_id)

    def _spool(self, record: SpoolRecord, cause: BaseException) -> None:
        if self.spool is None:
            raise StoreUnavailableError(f"the store cannot write: {cause}") from cause
        key = self._spooled_key(record["site_id"], record["session_id"])
        if key is not None:  # the replay stores the turn under the session this key won
            record["claim"] = key.as_record()
        try:
            self.spool.append(record)
        except OSError as exc:
            log.critical(
                "spool write failed too (%s); %s %s of session %s is not kept",
                exc,
                record["kind"],
                record["turn_key"],
                record["session_id"],
            )
            raise StoreUnavailableError(f"neither store nor spool can write: {exc}") from exc
        log.warning("kept %s %s in the spool", record["kind"], record["turn_key"])

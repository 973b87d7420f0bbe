"""Replaying the spool into the store (see `conversation/spool.py` for the records).

Run by the API process beside the in-process dispatcher and by `frontdesk worker`, at
start and every `FRONTDESK_SPOOL_REPLAY_S`. Each turn is written in one transaction —
its messages, then its handoff with the outbox rows and its captured lead, from where the
dispatcher delivers them as usual — and is skipped when its reply is already stored
(every message carries its `turn_key`), so a replay cut short is simply run again.
Session keys issued while the store could not write go in first, and a turn of such a
session is stored under the session its key won (`conversation/spooled_sessions.py`).
"""

from __future__ import annotations

import asyncio
import logging

from frontdesk.conversation.persistence import TurnWriter
from frontdesk.conversation.spool import Spool, SpoolRecord, run_replays
from frontdesk.conversation.spooled_sessions import SESSION_RECORD, SpooledKey, store_claim
from frontdesk.conversation.turn_effects import turn_side_effects
from frontdesk.runtime import Runtime
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.health import store_writes
from frontdesk.store.repositories import StoredTurn
from frontdesk.store.turn_log import TurnLogRepository

log = logging.getLogger(__name__)


def replay(writer: TurnWriter, spool: Spool, sites: dict[str, SiteConfig]) -> int:
    """Write spooled turns into the store; how many were written. A failure (the store
    still cannot write) leaves the file, whole, for the next replay."""
    written = 0
    with spool.take() as files:
        for path, records in files:
            latest: dict[str, SpoolRecord] = {}
            for rec in records:  # a turn record supersedes its message record
                if rec["turn_key"] not in latest or rec["kind"] == "turn":
                    latest[rec["turn_key"]] = rec
            for rec in latest.values():
                site = sites.get(rec["site_id"])
                if site is None:
                    log.error("spooled turn %s: no site %s", rec["turn_key"], rec["site_id"])
                    continue
                if rec["kind"] == SESSION_RECORD:
                    _replay_session_key(writer, rec)
                    continue
                written += _replay_one(writer, site, rec)
            log.warning("replayed spool file %s (%d turns)", path.name, len(latest))
    return written


def _claim(rec: SpoolRecord) -> SpooledKey | None:
    claim = rec.get("claim")
    return SpooledKey.from_record(rec["site_id"], rec["session_id"], claim) if claim else None


def _replay_session_key(writer: TurnWriter, rec: SpoolRecord) -> None:
    """A session key issued while the store could not write (its hash, never a secret)."""
    key = _claim(rec)
    if key is not None:
        with transaction(writer.sessions) as session:
            store_claim(session, key)


def _replay_one(writer: TurnWriter, site: SiteConfig, rec: SpoolRecord) -> bool:
    key, session_id = rec["turn_key"], rec["session_id"]
    with transaction(writer.sessions) as session:
        claim = _claim(rec)
        if claim is not None:  # the session its key won (another one if it lost the id)
            session_id = store_claim(session, claim)
        log_repo = TurnLogRepository(session)
        stored = log_repo.keyed(site.id, session_id, key)
        if "assistant" in stored or (rec["kind"] == "message" and "user" in stored):
            return False
        turn = stored.get("user") or rec.get("turn")
        if turn is None:
            turn = log_repo.open_turn(
                site.id,
                session_id,
                rec["message"],
                key,
                page_url=str(rec.get("page") or ""),
                referrer=str(rec.get("referrer") or ""),
            )
        if rec["kind"] == "turn":
            reply = StoredTurn(user_text=rec["message"], **rec["reply"])
            log_repo.add_reply(site.id, session_id, turn, reply)
            turn_side_effects(
                session,
                site,
                session_id,
                turn,
                rec["message"],
                rec.get("state") or {},
                rec.get("lead_level") or "cold",
            )
    store_writes.ok()
    return True


def replay_spool(runtime: Runtime) -> int:
    """Write this deployment's spooled turns into the store."""
    spool = Spool(runtime.settings.spool_path)
    writer = TurnWriter(runtime.sessions, spool)
    return replay(writer, spool, {site_id: s.config for site_id, s in runtime.sites.items()})


async def spool_replays(runtime: Runtime, stop: asyncio.Event | None = None) -> None:
    """`replay_spool` at start and every `FRONTDESK_SPOOL_REPLAY_S`, until `stop` is set."""
    await run_replays(lambda: replay_spool(runtime), runtime.settings.spool_replay_s, stop)

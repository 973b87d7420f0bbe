"""The spool: turns the store could not take, kept on disk until it can.

When a write to the app store fails (disk full, database down), `TurnWriter` appends the
turn to a JSON-lines file in `FRONTDESK_SPOOL_DIR` (default `<data_dir>/spool`, best on
another volume), fsynced before the visitor is answered. Two kinds of records:

- `message`: the visitor's message, written before the answer streams;
- `turn`: the finished turn — the reply, and the handoff and lead capture it owes.

`conversation.replay` (run by the API process with the in-process dispatcher, and by
`frontdesk worker`, at start and every `FRONTDESK_SPOOL_REPLAY_S`) writes them into the
store: messages, then the handoff and its outbox rows in the same transaction, from where
the dispatcher delivers them as usual. Replays are idempotent: every message of a turn
carries its `turn_key`, and a turn whose reply is stored is skipped.

Concurrency: each process appends to its own file (`turns-<pid>.jsonl`) under an
exclusive `flock`; a replay renames a file before reading it (so exactly one replayer
takes it), and a writer that finds its file renamed under it reopens the path.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, TypedDict, cast

from frontdesk.conversation.state import TurnValues

log = logging.getLogger(__name__)

# What a handoff packet and a lead capture read from the graph state (handoff/packets.py).
SPOOLED_STATE_KEYS = (
    "progress",
    "visitor_profile",
    "qualification",
    "form_collection",
    "lead_capture",
    "handoff",
    "language",
)


class SpooledReply(TypedDict):
    """The assistant's reply of a spooled turn, as `StoredTurn` takes it back."""

    assistant_text: str
    route: str | None
    routing: str | None
    intent: str | None
    language: str | None
    details: dict[str, object] | None


class SpooledIdentity(TypedDict):
    """`VerifiedIdentity.as_dict`: a visitor the site vouched for."""

    user_id: str
    email: str | None
    name: str | None
    verified: bool


class SpooledClaim(TypedDict):
    """A session key issued while the store could not write (its hash, never a secret)."""

    secret_hash: str
    created_at: str
    identity: SpooledIdentity | None


class SpoolRecord(TypedDict, total=False):
    """One line of the spool: a visitor's message, a finished turn, or a session's key."""

    kind: Literal["message", "turn", "session"]
    turn_key: str
    site_id: str
    session_id: str
    message: str
    page: str
    referrer: str
    turn: int | None
    reply: SpooledReply
    lead_level: str
    state: TurnValues  # `spooled_state`: what a replayed handoff or lead capture reads
    claim: SpooledClaim  # the session its key won, when the key waits in the spool too
    at: str


class Spool:
    """Append-only JSON-lines files in `folder`, one per writing process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def append(self, record: SpoolRecord) -> None:
        """Write one record durably (fsynced); raises OSError when it cannot."""
        line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode()
        created = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"turns-{os.getpid()}.jsonl"
        while True:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    current = os.stat(path).st_ino == os.fstat(fd).st_ino
                except FileNotFoundError:
                    current = False
                if not current:  # a replay took the file between open and lock
                    continue
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
                break
            finally:
                os.close(fd)
        if created:
            _fsync_dir(self.folder)

    def pending(self) -> int:
        """How many spool files wait for a replay."""
        if not self.folder.is_dir():
            return 0
        return sum(1 for _ in self.folder.glob("*.jsonl"))

    @contextlib.contextmanager
    def take(self) -> Iterator[list[tuple[Path, list[SpoolRecord]]]]:
        """The spooled files this replayer owns now, with their records; a file whose
        records were all written (the block exits without error) is deleted."""
        taken: list[tuple[Path, int]] = []
        if self.folder.is_dir():
            for path in sorted(self.folder.glob("turns-*.jsonl")):
                # Named by the time taken: files are replayed oldest first, so a session's
                # turns left in an earlier file (a replay that failed) come before later ones.
                stamp = f"{time.time_ns():020d}-{uuid.uuid4().hex[:8]}"
                target = path.with_name(f"replay-{stamp}.jsonl")
                with contextlib.suppress(FileNotFoundError):
                    path.rename(target)
            for path in sorted(self.folder.glob("replay-*.jsonl")):
                fd = os.open(path, os.O_RDONLY)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # another replayer has it
                    os.close(fd)
                    continue
                taken.append((path, fd))
        try:
            yield [(path, _records(path)) for path, _ in taken]
            for path, _ in taken:
                path.unlink()
        finally:
            for _, fd in taken:
                os.close(fd)


def _records(path: Path) -> list[SpoolRecord]:
    records: list[SpoolRecord] = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError:  # a torn last line (the process died mid-append): never acked
            log.warning("spool %s line %d is not JSON; skipped", path.name, number)
    return records


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def spooled_state(values: TurnValues) -> TurnValues:
    """The part of the graph state a replayed handoff or lead capture needs."""
    kept = {key: values.get(key) for key in SPOOLED_STATE_KEYS}
    return cast(TurnValues, {key: value for key, value in kept.items() if value is not None})


async def run_replays(replay: Any, every_s: float, stop: asyncio.Event | None = None) -> None:
    """Call `replay()` (blocking, in a thread) now and every `every_s` seconds."""
    stop = stop or asyncio.Event()
    while not stop.is_set():
        try:
            await asyncio.to_thread(replay)
        except Exception:
            log.exception("spool replay failed; retrying in %.0f s", every_s)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)

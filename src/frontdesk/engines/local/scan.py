"""How much of a visitor's message the local engine reads, and on which thread.

A visitor types a few sentences; a 14,000-character message is a paste (a log, a
contract, an e-mail thread), with the visitor's own words at its start or its end. The
classifiers, lexicons and the language detector read that start and end
(`SCAN_HEAD_CHARS` + `SCAN_TAIL_CHARS`), so their cost is bounded whatever is pasted;
the message itself is kept whole for the writer and the transcript. A long message is
also read off the event loop, in a thread of its own (`PASTE_READERS`): one visitor's
paste never stalls everyone else's turn (the GIL is still shared, but the loop gets it
back every switch interval), and pastes queue behind each other instead of filling the
default executor that every turn's search and checkpoint go through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

SCAN_HEAD_CHARS = 1_200
SCAN_TAIL_CHARS = 400
# Below this a message costs a few milliseconds at most: a thread hop would cost more.
OFF_LOOP_CHARS = 600

Result = TypeVar("Result")

PASTE_READERS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="frontdesk-paste")


def scan_window(text: str) -> str:
    """The part of `text` the local engine reads: all of it, or its start and its end."""
    if len(text) <= SCAN_HEAD_CHARS + SCAN_TAIL_CHARS:
        return text
    return f"{text[:SCAN_HEAD_CHARS]}\n…\n{text[-SCAN_TAIL_CHARS:]}"


async def read(job: Callable[[str], Result], text: str) -> Result:
    """`job(scan_window(text))`, in a worker thread when the message is long."""
    window = scan_window(text)
    if len(window) < OFF_LOOP_CHARS:
        return job(window)
    return await asyncio.get_running_loop().run_in_executor(PASTE_READERS, job, window)

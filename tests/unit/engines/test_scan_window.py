"""A pasted text costs the local engine a bounded read: its start and its end, off the loop.

What must survive: the visitor's own words at either end of a paste (a request for a
person, an e-mail address, the question) are still read; only the middle is skipped.
"""

from __future__ import annotations

import threading

import pytest

from frontdesk.engines.local.scan import SCAN_HEAD_CHARS, SCAN_TAIL_CHARS, read, scan_window
from frontdesk.engines.local.signals import LocalSignalsDetector

pytestmark = pytest.mark.unit

FILLER = "lorem ipsum dolor sit amet consectetur " * 400  # ~15,600 characters of paste


def test_short_messages_are_read_whole() -> None:
    text = "x" * (SCAN_HEAD_CHARS + SCAN_TAIL_CHARS)
    assert scan_window(text) == text


def test_a_paste_is_read_at_its_start_and_end_only() -> None:
    window = scan_window("START " + FILLER + " END")
    assert window.startswith("START ") and window.endswith(" END")
    assert len(window) <= SCAN_HEAD_CHARS + SCAN_TAIL_CHARS + 3


async def test_the_visitors_words_at_either_end_of_a_paste_still_count() -> None:
    detector = LocalSignalsDetector()
    at_end = await detector.detect(FILLER + " Can I talk to a human? me@example.com", "en")
    assert at_end.explicit_human_request and at_end.email == "me@example.com"
    at_start = await detector.detect("I'd like to book a demo. " + FILLER, "en")
    assert "demo_interest" in at_start.interest_signals
    # The middle of a paste is somebody else's text (a log, a contract): not read.
    middle = FILLER[:8_000] + " I'd like to book a demo. " + FILLER
    assert "demo_interest" not in (await detector.detect(middle, "en")).interest_signals


async def test_long_messages_are_read_off_the_event_loop() -> None:
    threads: list[threading.Thread] = []

    def job(text: str) -> int:
        threads.append(threading.current_thread())
        return len(text)

    assert await read(job, "short question?") == len("short question?")
    assert await read(job, FILLER) == len(scan_window(FILLER))
    assert threads[0] is threading.main_thread()
    assert threads[1] is not threading.main_thread()


def test_a_pasted_search_query_is_searched_by_its_start_and_end() -> None:
    from frontdesk.knowledge.search.query import MAX_QUERY_CHARS, bounded_query

    assert bounded_query("  Do you support SSO?  ") == "Do you support SSO?"
    query = bounded_query("How do I export data? " + FILLER + " in CSV")
    assert len(query) <= MAX_QUERY_CHARS + 1
    assert query.startswith("How do I export data?") and query.endswith(" in CSV")

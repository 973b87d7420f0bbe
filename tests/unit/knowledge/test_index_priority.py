"""Index maintenance threads yield the CPU to searches (a per-thread nice value)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from frontdesk.knowledge.index.lexicon import budgeted_terms
from frontdesk.knowledge.index.vector_base import BACKGROUND_NICE, background_priority


@pytest.mark.skipif(sys.platform != "linux", reason="threads have their own nice value on Linux")
def test_background_priority_lowers_only_the_calling_thread() -> None:
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: list[int] = []

    def maintenance() -> None:
        background_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=maintenance)
    thread.start()
    thread.join()
    assert seen == [BACKGROUND_NICE]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


def test_budgeted_terms_rarest_first_then_all_or_nothing() -> None:
    frequencies = {"refund": 2, "the": 3, "zebra": 1}
    assert budgeted_terms(["the", "refund", "zebra"], frequencies, 4) == (
        ["zebra", "refund"],
        False,
    )
    # Each past the budget: all known terms, required together (the caller counts them).
    assert budgeted_terms(["the", "refund", "missing"], frequencies, 1) == (["refund", "the"], True)
    # One known term past the budget, or none known: nothing to ask.
    assert budgeted_terms(["the", "missing"], frequencies, 1) == ([], False)
    assert budgeted_terms(["missing"], frequencies, 10) == ([], False)

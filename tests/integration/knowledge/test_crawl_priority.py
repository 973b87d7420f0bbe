"""A sync process runs every one of its threads at the lowest CPU priority, those it
had before lowering itself (numpy's BLAS workers start at import) and those it starts
after (the embedding model's, the database driver's); where the kernel shares the CPU
between autogroups first, in a group of its own at the lowest weight."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from frontdesk.knowledge.web.runner import CRAWL_NICENESS

SRC = Path(__file__).resolve().parents[3] / "src"

# In a process of its own: lowering the test process would slow the rest of the suite.
SYNC_PROCESS = """
import json, os, threading
from frontdesk.knowledge.web.runner import lower_priority

def autogroup() -> str:
    try:
        with open("/proc/self/autogroup") as file:
            return file.read().strip()
    except OSError:
        return ""

before = autogroup()
started = threading.Event()
release = threading.Event()

def waiting() -> None:
    started.set()
    release.wait()

earlier = threading.Thread(target=waiting)
earlier.start()  # a thread that exists before the process lowers itself
started.wait()
lower_priority()
later = threading.Thread(target=release.wait)
later.start()
threads = {
    int(task): [os.sched_getscheduler(int(task)), os.getpriority(os.PRIO_PROCESS, int(task))]
    for task in os.listdir("/proc/self/task")
}
release.set()
print(json.dumps({"threads": threads, "autogroup": [before, autogroup()]}))
"""


@pytest.mark.skipif(
    sys.platform != "linux", reason="a thread has a scheduling policy of its own on Linux"
)
def test_every_thread_of_a_sync_process_is_lowered() -> None:
    threads = run_sync_process()["threads"]
    assert len(threads) >= 3  # the main thread, the one started before and the one after
    assert {tuple(policy) for policy in threads.values()} == {(os.SCHED_IDLE, CRAWL_NICENESS)}


@pytest.mark.skipif(
    not Path("/proc/self/autogroup").exists(), reason="the kernel has no autogroups"
)
def test_a_sync_process_has_an_autogroup_of_its_own_at_the_lowest_weight() -> None:
    before, after = run_sync_process()["autogroup"]
    assert after.endswith(f" nice {CRAWL_NICENESS}")
    # The kernel prints nothing for the root group, which a container's processes may share.
    group_before = before.split()[0] if before else "root"
    assert after.split()[0] != group_before  # not the group of the process that started it


def run_sync_process() -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", SYNC_PROCESS], env=env, capture_output=True, text=True, check=True
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found

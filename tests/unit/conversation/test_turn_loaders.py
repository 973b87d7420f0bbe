"""A turn's loaders run once: what several nodes read (the topic profile, the site's
facts) costs one read per turn."""

from __future__ import annotations

import asyncio

import pytest

from frontdesk.conversation.context import once

pytestmark = pytest.mark.unit


async def test_a_loader_runs_once_and_every_call_gets_its_result() -> None:
    calls: list[int] = []

    @once
    async def profile() -> dict[str, float]:
        calls.append(1)
        return {"bar": 0.8}

    first = await profile()
    assert await profile() is first
    assert calls == [1]


async def test_a_failed_load_is_tried_again() -> None:
    outcomes: list[Exception | str] = [RuntimeError("store down"), "facts"]

    @once
    async def facts() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    with pytest.raises(RuntimeError):
        await facts()
    assert await facts() == "facts"
    assert await facts() == "facts" and not outcomes


async def test_a_load_started_early_is_shared_by_who_needs_it() -> None:
    calls: list[int] = []
    release = asyncio.Event()

    @once
    async def facts() -> str:
        calls.append(1)
        await release.wait()
        return "facts"

    early = asyncio.ensure_future(facts())
    await asyncio.sleep(0)
    needed = asyncio.ensure_future(facts())
    release.set()
    assert await needed == "facts" and await early == "facts"
    assert calls == [1]


async def test_a_cancelled_load_is_tried_again() -> None:
    started = asyncio.Event()

    @once
    async def facts() -> str:
        if not started.is_set():
            started.set()
            await asyncio.sleep(10)
        return "facts"

    early = asyncio.ensure_future(facts())
    await started.wait()
    early.cancel()  # the turn's background work, cancelled on a path that reads no facts
    with pytest.raises(asyncio.CancelledError):
        await early
    assert await asyncio.wait_for(facts(), timeout=1) == "facts"

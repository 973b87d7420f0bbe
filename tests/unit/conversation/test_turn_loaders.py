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


async def test_two_nodes_asking_at_once_share_one_load() -> None:
    calls: list[int] = []

    @once
    async def profile() -> dict[str, float]:
        calls.append(1)
        await asyncio.sleep(0.01)  # a read in a worker thread: the other branch asks meanwhile
        return {"bar": 0.8}

    first, second = await asyncio.gather(profile(), profile())
    assert first is second and calls == [1]

"""The invitation's link (`/v1/appointments/<site>/<uid>?token=`) against a real Radicale
calendar: moving the appointment from it (the event moves with its UID, the old time is
free again, an updated invitation goes out), a wrong token or another visitor's token
changes nothing, and two moves at once leave exactly one appointment."""

from __future__ import annotations

import asyncio
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from frontdesk.api.app import create_app
from frontdesk.appointments.desk import slot_label
from frontdesk.appointments.invite import Appointment
from frontdesk.conversation.service import ChatService
from tests.integration.appointments.chat_support import WISHES, book, content, events, say, state
from tests.support.loopback import SmtpReceiver
from tests.support.radicale_server import RadicaleServer

pytestmark = pytest.mark.integration

BASE = "http://127.0.0.1:8000"


def link_of(smtp: SmtpReceiver, uid: str) -> tuple[str, str]:
    """The path and token of the newest invitation's link for appointment `uid`."""
    for mail in reversed(smtp.mails):
        body = next(p for p in mail.message.walk() if p.get_content_type() == "text/plain")
        for word in content(body).split():
            if f"/v1/appointments/werkstatt/{uid}?token=" in word:
                path = word.removeprefix(BASE)
                return path.split("?")[0], path.split("token=")[1]
    raise AssertionError(f"no invitation for {uid}")


async def booked_visitor(
    chat: ChatService, smtp: SmtpReceiver, language: str, contact: str
) -> tuple[str, str, str]:
    """A visitor who booked in the chat: their appointment's UID, link path and token."""
    session = str(uuid.uuid4())
    await book(chat, session, language, contact)
    uid = (await state(chat, session))["booking"]["appointment"]["uid"]
    path, token = link_of(smtp, uid)
    return uid, path, token


@contextmanager
def client_of(chat: ChatService) -> Iterator[TestClient]:
    """The API on the chat's runtime and clock (the page offers what the chat would)."""
    with TestClient(create_app(chat.runtime.settings, chat.runtime, chat)) as client:
        yield client


def by_uid(stored: list[Appointment]) -> dict[str, Appointment]:
    return {a.uid: a for a in stored}


def move_buttons(page: str) -> list[str]:
    """The start instants the page offers to move to (its buttons' values)."""
    return re.findall(r'<button name="start" value="([^"]+)"', page)


def in_thread(work: Callable[[], Any]) -> Any:
    return asyncio.to_thread(work)


def at(moment: str) -> datetime:
    return datetime.fromisoformat(moment)


async def test_moving_from_the_link_moves_the_event_and_frees_the_old_time(
    chat: ChatService, radicale: RadicaleServer, smtp: SmtpReceiver
) -> None:
    uid, path, token = await booked_visitor(chat, smtp, "en", "Ada Lovelace, ada@example.org")
    (before,) = await events(radicale)
    mails = len(smtp.mails)

    def move() -> tuple[str, str, str]:
        with client_of(chat) as client:
            page = client.get(path, params={"token": token})
            assert page.status_code == 200
            target = move_buttons(page.text)[1]
            done = client.post(path, data={"token": token, "action": "move", "start": target})
            assert done.status_code == 200, done.text
            return target, done.text, client.get(path, params={"token": token}).text

    target, done, again = await in_thread(move)
    assert "Your appointment is moved to" in done
    (after,) = await events(radicale)
    assert after.uid == uid and after.start == at(target) and after.sequence == 1
    assert (after.name, after.email, after.session_id) == (
        before.name,
        before.email,
        before.session_id,
    )
    assert after.start.isoformat() not in move_buttons(again)
    # The old time is free again: a new visitor asking for that Saturday is offered it.
    offer = await say(chat, str(uuid.uuid4()), WISHES["en"])
    assert offer.suggested_answers[0].replace("\u202f", " ") == "Sat 12/12 10:00 AM"
    # The visitor gets the updated invitation (same UID, next sequence).
    assert len(smtp.mails) == mails + 1
    update = smtp.mails[-1]
    ical = next(p for p in update.message.walk() if p.get_content_type() == "text/calendar")
    assert f"UID:{uid}" in content(ical) and "SEQUENCE:1" in content(ical)


async def test_a_wrong_or_another_visitors_token_changes_nothing(
    chat: ChatService, radicale: RadicaleServer, smtp: SmtpReceiver
) -> None:
    ada_uid, ada_path, ada_token = await booked_visitor(
        chat, smtp, "en", "Ada Lovelace, ada@example.org"
    )
    # Mallory is a visitor of her own session, with a real booking and a valid link.
    mallory_uid, mallory_path, mallory_token = await booked_visitor(
        chat, smtp, "de", "Mallory Muster, mallory@example.org"
    )
    before = by_uid(await events(radicale))
    assert set(before) == {ada_uid, mallory_uid}

    def attack() -> list[int]:
        codes = []
        with client_of(chat) as client:
            free = move_buttons(client.get(ada_path, params={"token": ada_token}).text)
            for token in (mallory_token, "0" * 32, ada_token[:-1] + "x", ""):
                codes.append(client.get(ada_path, params={"token": token}).status_code)
                for action in ("cancel", "move"):
                    data = {"token": token, "action": action, "start": free[0]}
                    codes.append(client.post(ada_path, data=data).status_code)
            # Mallory's own token on a UID she does not own, in her link's shape too.
            swapped = mallory_path.replace(mallory_uid, ada_uid)
            data = {"token": mallory_token, "action": "cancel"}
            codes.append(client.post(swapped, data=data).status_code)
            # Her own link still works for her own appointment.
            assert client.get(mallory_path, params={"token": mallory_token}).status_code == 200
        return codes

    codes = await in_thread(attack)
    assert set(codes) <= {404, 422}, codes
    assert by_uid(await events(radicale)) == before


async def test_two_moves_at_once_leave_exactly_one_appointment(
    chat: ChatService, radicale: RadicaleServer, smtp: SmtpReceiver
) -> None:
    uid, path, token = await booked_visitor(chat, smtp, "en", "Ada Lovelace, ada@example.org")
    (before,) = await events(radicale)

    def race() -> tuple[list[str], list[httpx.Response]]:
        with client_of(chat) as client:
            free = move_buttons(client.get(path, params={"token": token}).text)[1:3]
            barrier = threading.Barrier(2)

            def move(start: str) -> httpx.Response:
                barrier.wait()
                data = {"token": token, "action": "move", "start": start}
                return client.post(path, data=data)

            with ThreadPoolExecutor(2) as pool:
                return free, list(pool.map(move, free))

    targets, replies = await in_thread(race)
    assert all(r.status_code == 200 for r in replies), [r.text[:300] for r in replies]
    stored = await events(radicale)
    assert [a.uid for a in stored] == [uid], stored
    assert stored[0].start in {at(t) for t in targets} and stored[0].start != before.start
    # Each visitor's page shows a time the appointment really had; the last one is where
    # it is now.
    label = slot_label(stored[0].start, chat.runtime.site("werkstatt").config, "en")
    assert any(f"Your appointment is moved to {label}" in r.text for r in replies)


async def test_two_visitors_moving_to_one_time_at_once_one_gets_it(
    chat: ChatService, radicale: RadicaleServer, smtp: SmtpReceiver
) -> None:
    ada = await booked_visitor(chat, smtp, "en", "Ada Lovelace, ada@example.org")
    bob = await booked_visitor(chat, smtp, "en", "Bob Builder, bob@example.org")
    before = by_uid(await events(radicale))

    def race() -> tuple[str, list[httpx.Response]]:
        with client_of(chat) as client:
            _, path, token = ada
            target = move_buttons(client.get(path, params={"token": token}).text)[-1]
            barrier = threading.Barrier(2)

            def move(visitor: tuple[str, str, str]) -> httpx.Response:
                _, own_path, own_token = visitor
                barrier.wait()
                data = {"token": own_token, "action": "move", "start": target}
                return client.post(own_path, data=data)

            with ThreadPoolExecutor(2) as pool:
                return target, list(pool.map(move, (ada, bob)))

    target, replies = await in_thread(race)
    assert all(r.status_code == 200 for r in replies)
    moved = [r for r in replies if "Your appointment is moved to" in r.text]
    assert len(moved) == 1, [r.text[:400] for r in replies]
    after = by_uid(await events(radicale))
    assert set(after) == set(before)
    winners = [u for u in after if after[u].start == at(target)]
    assert len(winners) == 1
    loser = next(u for u in after if u not in winners)
    assert after[loser].start == before[loser].start  # the other keeps its time

"""Nothing acknowledged is lost when the store fails.

The real `ChatService` (local engine) with an injected write failure: an SQLAlchemy hook
that raises `OperationalError` ("database or disk is full") on the turn's final write,
as a full disk does. What must survive:

- the visitor's answer (the turn is acknowledged) and their handoff request: kept in the
  spool and replayed into the store and the outbox — exactly once — when it writes again;
- with the spool unwritable too: the handoff reaches the fallback mailbox directly, and
  the visitor's answer says their request is noted;
- a process killed mid-answer (SIGKILL of a real `frontdesk serve`): the visitor's
  message is in the session history of the next server;
- `/readyz` is 503 while the store cannot write (injected failures, a really full disk).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from api_support import DEMO_ORIGIN, demo_headers, keep_secrets, parse_sse, write_sites
from fastapi.testclient import TestClient
from real_service import ingested_data_dir, service_unavailable_reason
from sqlalchemy import event, func, select
from sqlalchemy.exc import OperationalError

from frontdesk.api.app import create_app
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings
from frontdesk.store.health import store_writes, write_probe
from frontdesk.store.models import Handoff, Message, OutboxItem
from tests.support.loopback import SmtpReceiver
from tests.support.simulator import SimulatedProvider

REASON = service_unavailable_reason()

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(REASON is not None, reason=REASON or ""),
]

HUMAN = "I want to talk to a human, please. My email is jane.doe@example.com"


class FailingWrites:
    """Raise `OperationalError` on INSERTs into `table` while `on` (a full disk)."""

    def __init__(self, runtime: Runtime, table: str) -> None:
        self.engine = runtime.engine
        self.table = table
        self.on = False
        self.failed = 0
        event.listen(self.engine, "before_cursor_execute", self._hook)

    def _hook(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if self.on and statement.lstrip().upper().startswith(f"INSERT INTO {self.table.upper()}"):
            self.failed += 1
            raise OperationalError(statement, {}, Exception("database or disk is full"))

    def remove(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._hook)


@pytest.fixture(autouse=True)
def _fresh_store_health() -> Iterator[None]:
    store_writes.failed_at = store_writes.ok_at = 0.0
    yield
    store_writes.failed_at = store_writes.ok_at = 0.0


@pytest.fixture
def data_dir(tmp_path: Path, sites_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    write_sites(sites_dir)
    return ingested_data_dir(tmp_path_factory.getbasetemp(), sites_dir, tmp_path / "data")


def _turn(client: TestClient, message: str, session: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message}
    if session:
        body["session_id"] = session
    response = client.post("/v1/chat", json=body, headers=demo_headers())
    assert response.status_code == 200, response.text
    name, data = parse_sse(response.text)[-1]
    return {"event": name, **data}


def _count(runtime: Runtime, model: Any, **where: Any) -> int:
    with runtime.sessions() as db:
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return int(db.scalar(query) or 0)


def test_a_handoff_survives_a_failed_turn_write_and_is_replayed_once(
    data_dir: Path, sites_dir: Path
) -> None:
    settings = Settings(data_dir=data_dir, sites_dir=sites_dir)
    runtime = build_runtime(settings)
    failing = FailingWrites(runtime, "traces")  # the turn's final transaction fails
    try:
        app = create_app(settings, runtime)
        with keep_secrets(TestClient(app)) as client:
            failing.on = True
            done = _turn(client, HUMAN)
            assert done["event"] == "complete", done  # the answer was given and acknowledged
            result = done["metadata"]
            assert result["handoff"], "the visitor asked for a human"
            session = result["session_id"]
            assert failing.failed >= 1
            assert _count(runtime, Handoff, session_id=session) == 0
            assert list(settings.spool_path.glob("*.jsonl")), "the turn is in the spool"
            ready = client.get("/readyz")
            assert ready.status_code == 503
            assert ready.json()["checks"]["writes"].startswith("failing")

            failing.on = False
            from frontdesk.conversation.replay import replay_spool

            assert replay_spool(runtime) == 1
            assert replay_spool(runtime) == 0  # nothing left, nothing written twice
            assert not list(settings.spool_path.glob("*.jsonl"))
            assert _count(runtime, Handoff, session_id=session) == 1
            with runtime.sessions() as db:
                handoff = db.scalars(select(Handoff).where(Handoff.session_id == session)).one()
                assert "jane.doe@example.com" in str(handoff.packet)
                outbox = db.scalars(
                    select(OutboxItem).where(OutboxItem.handoff_id == handoff.id)
                ).all()
                assert {row.channel for row in outbox} >= {"crm"}
            history = client.get(f"/v1/sessions/{session}", headers=demo_headers()).json()
            roles = [(m["turn"], m["role"]) for m in history["messages"]]
            assert roles == [(1, "user"), (1, "assistant")], roles
            assert history["messages"][0]["content"] == HUMAN
    finally:
        failing.remove()
        runtime.close()


def test_with_store_and_spool_failing_the_handoff_is_mailed_directly(
    data_dir: Path, sites_dir: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("the spool cannot be created under a file")
    with SmtpReceiver() as mailbox:
        settings = Settings(
            data_dir=data_dir,
            sites_dir=sites_dir,
            spool_dir=blocker / "spool",
            smtp_host="127.0.0.1",
            smtp_port=mailbox.port,
            smtp_starttls=False,
            fallback_email="sales@example.com",
        )
        runtime = build_runtime(settings)
        failing = FailingWrites(runtime, "traces")
        try:
            with keep_secrets(TestClient(create_app(settings, runtime))) as client:
                failing.on = True
                done = _turn(client, HUMAN)
                asked = client.post("/v1/ask", json={"message": HUMAN}, headers=demo_headers())
            # Not stored anywhere on disk: the team is mailed, the visitor told so.
            assert done["event"] == "complete", done
            assert "your request is noted" in done["metadata"]["answer"]
            assert asked.status_code == 200, asked.text
            assert "jane.doe@example.com" in asked.json()["answer"]
            assert len(mailbox.mails) == 2
            mail = mailbox.mails[0]
            assert mail.recipients == ("sales@tessellate.io",)  # the demo site's address
            assert "store" in mail.body  # says why it came by email
            assert "jane.doe@example.com" in mail.body
        finally:
            failing.remove()
            runtime.close()


def test_readyz_fails_when_the_disk_is_full(tmp_path: Path, sites_dir: Path) -> None:
    mount = tmp_path / "small-disk"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", str(mount)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        runtime = build_runtime(Settings(data_dir=mount / "data", sites_dir=sites_dir))
        try:
            assert write_probe(runtime.engine) is None
            with (mount / "ballast").open("wb") as ballast, contextlib.suppress(OSError):
                while True:
                    ballast.write(b"\0" * 65536)
                    ballast.flush()
            problem = write_probe(runtime.engine)
            assert problem is not None and problem.startswith("disk full"), problem
            (mount / "ballast").unlink()
            assert write_probe(runtime.engine) is None
        finally:
            runtime.close()
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _llm_sites(sites_dir: Path, base_url: str) -> None:
    """The demo site on an LLM engine served by a slow simulated provider."""
    demo_file = sites_dir / "demo.yaml"
    demo = yaml.safe_load(demo_file.read_text(encoding="utf-8"))
    demo["engine"] = {
        "name": "llm",
        "roles": {"fast": "openai:fast", "main": "openai:main", "judge": "openai:fast"},
        "routing_mode": "local",
        "base_url": base_url,
        "max_retries": 0,
    }
    demo_file.write_text(yaml.safe_dump(demo, allow_unicode=True), encoding="utf-8")


def test_a_server_killed_mid_answer_keeps_the_visitors_message(
    data_dir: Path, sites_dir: Path, tmp_path: Path
) -> None:
    from tests.integration.production.replicas import Replica

    question = "What is Tessellate Flow and how does it sync data?"
    with SimulatedProvider(tokens_per_s=1.0) as provider:  # ~15 s of answer: time to kill
        _llm_sites(sites_dir, provider.base_url)
        env = {
            "FRONTDESK_DATA_DIR": str(data_dir),
            "FRONTDESK_SITES_DIR": str(sites_dir),
            "OPENAI_API_KEY": "sk-simulated",
        }
        first = Replica(env, tmp_path, "first")
        try:
            first.wait_ready()
            headers = {**demo_headers(), "Origin": DEMO_ORIGIN}
            with httpx.stream(
                "POST", f"{first.url}/v1/chat", json={"message": question}, headers=headers,
                timeout=60,
            ) as response:  # fmt: skip
                assert response.status_code == 200
                session = response.headers["X-Frontdesk-Session"]
                secret = response.headers["X-Frontdesk-Session-Secret"]
                for line in response.iter_lines():
                    if line.startswith("event: token"):
                        break  # the answer is streaming: kill the server now
                first.process.kill()
                first.process.wait()
        finally:
            first.stop()
        second = Replica(env, tmp_path, "second")
        try:
            second.wait_ready()
            history = httpx.get(
                f"{second.url}/v1/sessions/{session}",
                headers={**headers, "X-Frontdesk-Session-Secret": secret},
            )
        finally:
            second.stop()
    assert history.status_code == 200, history.text
    messages = history.json()["messages"]
    assert messages[0]["role"] == "user" and messages[0]["content"] == question
    assert all(m["role"] != "assistant" for m in messages), "killed before the reply was stored"


def test_a_message_spooled_while_the_store_is_down_is_replayed(
    data_dir: Path, sites_dir: Path
) -> None:
    # The store fails from the very start of the turn: the visitor's message goes to the
    # spool before any token, the finished turn too; one replay stores the turn once.
    settings = Settings(data_dir=data_dir, sites_dir=sites_dir)
    runtime = build_runtime(settings)
    failing = FailingWrites(runtime, "messages")
    try:
        with keep_secrets(TestClient(create_app(settings, runtime))) as client:
            failing.on = True
            session = str(uuid.uuid4())
            done = _turn(client, "What is Tessellate Flow?", session)
            assert done["event"] == "complete", done
            assert _count(runtime, Message) == 0
            failing.on = False
            # The store is back before the replay: the next turn waits behind the first
            # in the spool, so the history keeps the visitor's order.
            assert _turn(client, "Which integrations are available?", session)["event"] == (
                "complete"
            )
            from frontdesk.conversation.replay import replay_spool

            assert replay_spool(runtime) == 2
            assert replay_spool(runtime) == 0
            history = client.get(f"/v1/sessions/{session}", headers=demo_headers()).json()
            assert [(m["turn"], m["role"], m["content"][:20]) for m in history["messages"]][
                ::2
            ] == [(1, "user", "What is Tessellate F"), (2, "user", "Which integrations a")]
            assert [m["role"] for m in history["messages"]] == ["user", "assistant"] * 2
    finally:
        failing.remove()
        runtime.close()
        shutil.rmtree(settings.spool_path, ignore_errors=True)


async def test_an_answer_whose_checkpoint_cannot_be_saved_is_still_kept(
    data_dir: Path, sites_dir: Path
) -> None:
    # The checkpoint database is on the full disk: the answer streamed, every node ran,
    # only the save at exit fails. Must survive: the acknowledged turn, in the history.
    import sqlite3

    from frontdesk.conversation.payload import CompleteEvent, VisitorContext
    from frontdesk.conversation.service import ChatService

    runtime = build_runtime(Settings(data_dir=data_dir, sites_dir=sites_dir))
    service = ChatService(runtime)
    try:
        await service.graph()
        saver: Any = (await service.checkpointer()).saver

        def disk_full(*_: Any, **__: Any) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        saver.put = disk_full
        site = runtime.site("demo")
        events = [
            e
            async for e in service.stream_turn(
                site, "full-disk", "What is Tessellate Flow?", VisitorContext()
            )
        ]
        assert isinstance(events[-1], CompleteEvent), events[-1]
        assert events[-1].result.turn == 1
        history = await service.history(site, "full-disk")
        assert [m["role"] for m in history] == ["user", "assistant"]
        assert history[1]["content"] == events[-1].result.answer
    finally:
        await service.close()
        runtime.close()

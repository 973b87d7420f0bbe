"""Invitations cannot take over an account and are used once under any concurrency.

The attacker is the owner of another site (`demo`): they make invitations of their own
and try to turn them into a session of `alice@acme.test`, owner of `acme`.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from console_support import PASSWORD, Console, add_operator, page_csrf, sign_in
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from frontdesk.store.db import transaction
from frontdesk.store.models import Operator
from frontdesk.store.operators import OperatorRepository

pytestmark = pytest.mark.integration

ALICE = "alice@acme.test"
MALLORY = "mallory@demo.test"


@pytest.fixture
def tenants(console_app: Console) -> Console:
    add_operator(console_app.runtime, ALICE, {"acme": "owner"})
    add_operator(console_app.runtime, MALLORY, {"demo": "owner"})
    return console_app


def make_invite(console_app: Console, owner: str, role: str = "agent", email: str = "") -> str:
    """The invitation path an owner of `demo` gets from the settings page."""
    client = console_app.client()
    assert sign_in(client, owner).status_code == 303
    csrf = page_csrf(client, "/console/sites/demo/settings")
    page = client.post(
        "/console/sites/demo/settings/invite",
        data={"csrf_token": csrf, "role": role, "email": email},
    )
    found = re.search(r'id="invite-link">[^<]*?(/console/invite/[^<]+)<', page.text)
    assert found, page.text[-2000:]
    return found.group(1)


def form_token(client: TestClient, path: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).text)
    assert found
    return found.group(1)


def post_new_account(client: TestClient, path: str, email: str, password: str = PASSWORD) -> Any:
    return client.post(
        path,
        data={
            "email": email,
            "password": password,
            "confirm": password,
            "csrf_token": form_token(client, path),
        },
        follow_redirects=False,
    )


def roles_of(console_app: Console, email: str) -> dict[str, str]:
    with console_app.runtime.sessions() as session:
        operators = OperatorRepository(session)
        operator = operators.by_email(email)
        return operators.roles(operator.id) if operator else {}


def test_an_invite_never_signs_anyone_in_as_an_existing_operator(tenants: Console) -> None:
    path = make_invite(tenants, MALLORY)
    attacker = tenants.client()
    for guess in (PASSWORD, "wrong guess one", "wrong guess two"):
        response = post_new_account(attacker, path, ALICE, guess)
        assert "fd_console" not in response.cookies, guess
        assert response.status_code in (409, 429), response.status_code
    assert "already has an account" in post_new_account(tenants.client(), path, ALICE).text
    assert attacker.get("/console/sites/acme/inbox", follow_redirects=False).status_code == 303
    assert roles_of(tenants, ALICE) == {"acme": "owner"}  # no demo role slipped in
    assert tenants.client().get(path).status_code == 200  # refused tries do not use it up


def test_trying_addresses_on_an_invite_is_throttled(tenants: Console) -> None:
    from frontdesk.guard.admin_lockout import AdminLockout
    from frontdesk.guard.limits import InMemoryRateLimiter

    path = make_invite(tenants, MALLORY)
    # A fixed clock: the failure counter's minute window must not roll over mid-test.
    tenants.app.state.admin_lockout = AdminLockout(
        InMemoryRateLimiter(clock=lambda: 1_000_000.0),
        tenants.settings.admin_auth_max_failures,
        tenants.settings.admin_lockout_s,
        clock=lambda: 1000.0,
    )
    attacker = tenants.client()
    limit = tenants.settings.admin_auth_max_failures
    statuses = [
        post_new_account(attacker, path, ALICE, f"guess number {n}").status_code
        for n in range(limit + 1)
    ]
    assert statuses[:limit] == [409] * limit and statuses[limit] == 429


def test_an_operator_without_password_cannot_be_claimed_by_another_sites_owner(
    tenants: Console,
) -> None:
    with transaction(tenants.runtime.sessions) as session:
        operators = OperatorRepository(session)
        operators.grant(operators.ensure("carol@acme.test"), "acme", "agent")  # no password yet
    path = make_invite(tenants, MALLORY, email="carol@acme.test")
    response = post_new_account(tenants.client(), path, "carol@acme.test")
    assert response.status_code == 409 and "fd_console" not in response.cookies
    with tenants.runtime.sessions() as session:
        carol = OperatorRepository(session).by_email("carol@acme.test")
        assert carol is not None and carol.password_hash is None
    # The invitation `frontdesk operators add` prints for her (acme, her e-mail) works.
    with transaction(tenants.runtime.sessions) as session:
        _row, token = OperatorRepository(session).invite(
            "acme", "agent", timedelta(days=1), "carol@acme.test"
        )
    own = post_new_account(tenants.client(), f"/console/invite/{token}", "carol@acme.test")
    assert own.status_code == 303 and "fd_console" in own.cookies
    assert roles_of(tenants, "carol@acme.test") == {"acme": "agent"}


def test_a_signed_in_operator_accepts_and_gains_the_role(tenants: Console) -> None:
    path = make_invite(tenants, MALLORY)
    alice = tenants.client()
    assert sign_in(alice, ALICE).status_code == 303
    page = alice.get(path)
    assert page.status_code == 200 and "Accept invitation" in page.text and ALICE in page.text
    accepted = alice.post(
        path, data={"csrf_token": form_token(alice, path)}, follow_redirects=False
    )
    assert accepted.status_code == 303
    assert roles_of(tenants, ALICE) == {"acme": "owner", "demo": "agent"}
    assert alice.get(path).status_code == 404  # used
    # An invitation for a lower role than the one held changes nothing.
    lower = make_invite(tenants, MALLORY, role="viewer")
    alice.post(lower, data={"csrf_token": form_token(alice, lower)})
    assert roles_of(tenants, ALICE) == {"acme": "owner", "demo": "agent"}


def test_an_invite_for_an_existing_account_asks_to_sign_in_first(tenants: Console) -> None:
    path = make_invite(tenants, MALLORY, email=ALICE)
    visitor = tenants.client()
    page = visitor.get(path)
    assert "Sign in to accept" in page.text
    # Signing in goes through /console/login (throttled) and comes back to the link.
    csrf = form_token(visitor, "/console/login")
    signed = visitor.post(
        "/console/login",
        data={"email": ALICE, "password": PASSWORD, "csrf_token": csrf, "next": path},
        follow_redirects=False,
    )
    assert signed.status_code == 303 and signed.headers["location"] == path
    visitor.post(path, data={"csrf_token": form_token(visitor, path)})
    assert roles_of(tenants, ALICE)["demo"] == "agent"


def test_an_invite_naming_an_email_is_bound_to_it(tenants: Console) -> None:
    path = make_invite(tenants, MALLORY, role="owner", email="bob@demo.test")
    alice = tenants.client()
    assert sign_in(alice, ALICE).status_code == 303
    page = alice.get(path)
    assert "This invitation is for" in page.text and "Accept invitation" not in page.text
    refused = alice.post(path, data={"csrf_token": form_token(alice, path)})
    assert refused.status_code == 409 and "bob@demo.test" in refused.text
    assert "demo" not in roles_of(tenants, ALICE)
    # The new-account form takes the invitation's address, whatever is posted.
    created = post_new_account(tenants.client(), path, "someone.else@x.test")
    assert created.status_code == 303
    assert roles_of(tenants, "bob@demo.test") == {"demo": "owner"}
    assert roles_of(tenants, "someone.else@x.test") == {}


# -- one invitation, many simultaneous acceptances ------------------------------------------
@pytest.fixture(params=["sqlite", "postgresql"])
def store_console(
    request: pytest.FixtureRequest, tmp_path: Path, sites_dir: Path
) -> Iterator[Console]:
    from api_support import write_sites
    from scripted_backend import ScriptedBackend

    from frontdesk.api.app import create_app
    from frontdesk.runtime import build_runtime
    from frontdesk.settings import Settings

    with _database(request.param, tmp_path) as url:
        write_sites(sites_dir)
        settings = Settings(data_dir=tmp_path / "data", sites_dir=sites_dir, database_url=url)
        runtime = build_runtime(settings)
        app = create_app(settings, runtime, ScriptedBackend())
        try:
            with TestClient(app, raise_server_exceptions=False) as live:
                yield Console(app=app, runtime=runtime, settings=settings, live=live)
        finally:
            runtime.close()


class _database:
    """A fresh database URL of one kind (PostgreSQL: a uniquely named one, dropped after)."""

    ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"

    def __init__(self, kind: str, folder: Path) -> None:
        self.kind, self.folder, self.name = kind, folder, f"fd_test_{uuid.uuid4().hex[:12]}"

    def __enter__(self) -> str:
        if self.kind == "sqlite":
            return f"sqlite:///{self.folder / 'race.db'}"
        import psycopg

        try:
            with psycopg.connect(self.ADMIN, autocommit=True, connect_timeout=2) as conn:
                conn.execute(f'CREATE DATABASE "{self.name}"')
        except psycopg.OperationalError as exc:
            pytest.skip(f"PostgreSQL is not reachable on 127.0.0.1:5432: {exc}")
        return f"postgresql://postgres@127.0.0.1:5432/{self.name}"

    def __exit__(self, *_exc: object) -> None:
        if self.kind == "sqlite":
            return
        import psycopg

        with psycopg.connect(self.ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def test_one_invite_accepted_many_times_at_once_makes_one_account(
    store_console: Console,
) -> None:
    add_operator(store_console.runtime, MALLORY, {"demo": "owner"})
    path = make_invite(store_console, MALLORY, role="owner")
    racers = 8
    clients = [store_console.client() for _ in range(racers)]
    tokens = [form_token(client, path) for client in clients]  # every form open at once
    start = threading.Barrier(racers)
    statuses: list[int] = [0] * racers

    def accept(n: int) -> None:
        start.wait()
        statuses[n] = (
            clients[n]
            .post(
                path,
                data={
                    "email": f"racer{n}@x.test",
                    "password": PASSWORD,
                    "confirm": PASSWORD,
                    "csrf_token": tokens[n],
                },
                follow_redirects=False,
            )
            .status_code
        )

    threads = [threading.Thread(target=accept, args=(n,)) for n in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(statuses) == [303] + [404] * (racers - 1), statuses
    with store_console.runtime.sessions() as session:
        racers_made = session.scalar(
            select(func.count()).select_from(Operator).where(Operator.email.like("racer%"))
        )
    assert racers_made == 1

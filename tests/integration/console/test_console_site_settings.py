"""Site settings edited in the console: written into the site file only when it is still
the version the form was loaded from, checked by the site schema, audited, served at once;
owners of the site only, secrets never sent back."""

from __future__ import annotations

import html
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from api_support import ACME_KEY, ACME_ORIGIN, DEMO_KEY, DEMO_ORIGIN
from console_support import Console, add_operator, page_csrf, sign_in
from fastapi.testclient import TestClient

pytestmark = pytest.mark.integration

SETTINGS = "/console/sites/{}/settings"
SLACK_SECRET = "https://hooks.slack.test/services/T000/B000/very-secret-token"
SIGNING_SECRET = "whsec_c2lnbmluZy1zZWNyZXQtb2YtZGVtbw=="


def form_of(client: TestClient, site: str) -> dict[str, list[str]]:
    """The settings form as the page fills it in (every input, checkbox and select)."""
    page = client.get(SETTINGS.format(site))
    assert page.status_code == 200, page.text[:300]
    found = re.search(r'<form[^>]*id="site-settings-form".*?</form>', page.text, re.S)
    assert found, "no settings form"
    body = found.group(0)
    fields: dict[str, list[str]] = {}
    for tag in re.finditer(r"<input[^>]*>", body):
        attrs = dict(re.findall(r'(\w[\w-]*)="([^"]*)"', tag.group(0)))
        name = attrs.get("name")
        if not name:
            continue
        if attrs.get("type") == "checkbox":
            if " checked" in tag.group(0):
                fields.setdefault(name, []).append(html.unescape(attrs.get("value", "")))
            continue
        fields.setdefault(name, []).append(html.unescape(attrs.get("value", "")))
    for area in re.finditer(r'<textarea name="([^"]+)"[^>]*>(.*?)</textarea>', body, re.S):
        fields[area.group(1)] = [html.unescape(area.group(2))]
    for select in re.finditer(r'<select name="([^"]+)".*?</select>', body, re.S):
        chosen = re.search(r"<option (?:value=\"([^\"]*)\" )?selected>([^<]*)", select.group(0))
        assert chosen, select.group(0)
        fields[select.group(1)] = [html.unescape(chosen.group(1) or chosen.group(2))]
    return fields


def post(client: TestClient, site: str, fields: dict[str, list[str]]) -> Any:
    return client.post(f"{SETTINGS.format(site)}/site", data=fields)


def owner_client(console_app: Console, email: str = "owner@team.test") -> TestClient:
    client = console_app.client()
    assert sign_in(client, email).status_code == 303
    return client


def widget_greeting(client: TestClient, key: str, origin: str, language: str) -> str:
    config = client.get("/v1/widget/config", headers={"X-Frontdesk-Key": key, "Origin": origin})
    assert config.status_code == 200, config.text
    greeting: str = config.json()["greeting"][language]
    return greeting


def audit_rows(console_app: Console, site: str) -> list[Any]:
    from frontdesk.store.models import SiteSettingsChange

    with console_app.runtime.sessions() as session:
        return list(session.query(SiteSettingsChange).filter_by(site_id=site))


def test_an_owners_save_is_written_audited_and_served_without_restart(
    console_app: Console, team: Any
) -> None:
    client = owner_client(console_app)
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    assert "Welcome to Acme, what can we do" not in widget_greeting(
        client, ACME_KEY, ACME_ORIGIN, "en"
    )
    fields = form_of(client, "acme")
    fields["languages"] = ["en", "de"]
    fields["tone"] = ["informal"]
    fields["greeting.en"] = ["Welcome to Acme, what can we do for you?"]
    fields["greeting.de"] = ["Willkommen bei Acme! Was können wir für dich tun?"]
    fields["starter_questions.en"] = ["Where do you ship?\r\nHow do returns work?"]
    fields["allowed_origins"] = [f"{ACME_ORIGIN}\r\nhttps://shop.acme.example"]
    done = post(client, "acme", fields)
    assert done.status_code == 200, done.text[:2000]
    notice = re.search(r"id=\"notice\">([^<]*)<", done.text)
    assert notice and notice.group(1).startswith("Saved: "), notice

    on_disk = yaml.safe_load(acme_file.read_text(encoding="utf-8"))
    assert on_disk["languages"] == ["en", "de"] and on_disk["tone"] == "informal"
    assert on_disk["starter_questions"] == {"en": ["Where do you ship?", "How do returns work?"]}
    assert on_disk["widget"]["allowed_origins"] == [ACME_ORIGIN, "https://shop.acme.example"]
    assert on_disk["widget"]["public_key"] == ACME_KEY  # the rest of the section is kept
    # Served at once by this process: the widget's greeting and the new origin.
    assert widget_greeting(client, ACME_KEY, ACME_ORIGIN, "en") == (
        "Welcome to Acme, what can we do for you?"
    )
    assert widget_greeting(client, ACME_KEY, "https://shop.acme.example", "de").startswith(
        "Willkommen bei Acme"
    )
    # Audited: who, and each field before and after, shown to the owner.
    (row,) = audit_rows(console_app, "acme")
    assert row.author == "owner@team.test" and row.changed_at is not None
    by_field = {item["field"]: item for item in row.changes}
    assert by_field["tone"] == {"field": "tone", "before": "formal", "after": "informal"}
    assert by_field["languages"]["before"] == ["en"]
    assert by_field["widget.greeting.en"]["before"] is None
    page = client.get(SETTINGS.format("acme")).text
    audit = page[page.index('id="settings-changes"') :]
    assert "owner@team.test" in audit and "widget.allowed_origins" in audit
    assert "informal" in audit and "formal" in audit
    # Saving the form unchanged changes nothing and audits nothing.
    again = post(client, "acme", form_of(client, "acme"))
    assert "Nothing changed." in again.text and len(audit_rows(console_app, "acme")) == 1


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("allowed_origins", "ftp://acme.example", "widget.allowed_origins"),
        ("hours.timezone", "Mars/Olympus_Mons", "business_hours.timezone"),
        ("hours.weekly", "mon-fri: 9 to 5", "business_hours.weekly"),
        ("handoff.fallback_email", "not-an-address", "handoff.fallback_email"),
        ("default_language", "fr", "default_language"),
        ("webhook.0.url", "not a url", "handoff.webhooks.0.url"),
    ],
)
def test_a_bad_value_is_refused_by_its_field_and_the_form_keeps_what_was_typed(
    console_app: Console, team: Any, field: str, value: str, named: str
) -> None:
    client = owner_client(console_app)
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    before = acme_file.read_bytes()
    fields = form_of(client, "acme")
    fields[field] = [value]
    fields["greeting.en"] = ["A greeting typed beside the mistake"]
    refused = post(client, "acme", fields)
    assert refused.status_code == 422
    text = html.unescape(refused.text)
    errors = text[text.index('id="settings-errors"') :]
    assert named + ":" in errors, errors[:800]
    # The refusal sits at its input, and what was typed is still in the form.
    assert re.search(rf'name="{re.escape(field)}"[^>]*aria-invalid="true"', refused.text)
    assert value in text and "A greeting typed beside the mistake" in text
    assert acme_file.read_bytes() == before
    assert audit_rows(console_app, "acme") == []
    assert console_app.runtime.sites["acme"].config.widget.greeting == {}


def test_a_file_edited_since_the_form_was_loaded_is_not_overwritten(
    console_app: Console, team: Any
) -> None:
    client = owner_client(console_app)
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    fields = form_of(client, "acme")
    # Someone edits the file on the server meanwhile.
    edited = acme_file.read_text(encoding="utf-8").replace("Acme Corp", "Acme Corporation")
    acme_file.write_text(edited, encoding="utf-8")
    fields["greeting.en"] = ["Hello from the console"]
    refused = post(client, "acme", fields)
    assert refused.status_code == 409
    assert "changed on disk since this form was loaded" in refused.text
    assert "Hello from the console" in refused.text  # the owner's entry is kept
    assert acme_file.read_text(encoding="utf-8") == edited
    # Loaded again, the form is made from the file as it is, and the page says it is not
    # served yet; saving serves the edit and the change together.
    page = client.get(SETTINGS.format("acme"))
    assert 'id="file-differs"' in page.text
    fields = form_of(client, "acme")
    fields["greeting.en"] = ["Hello from the console"]
    assert post(client, "acme", fields).status_code == 200
    served = console_app.runtime.sites["acme"].config
    assert served.name == "Acme Corporation"
    assert served.widget.greeting == {"en": "Hello from the console"}


def test_two_saves_from_one_version_at_once_one_wins_the_other_is_told(
    console_app: Console, team: Any
) -> None:
    add_operator(console_app.runtime, "second@acme.test", {"acme": "owner"})
    first, second = owner_client(console_app), owner_client(console_app, "second@acme.test")
    forms = [form_of(first, "acme"), form_of(second, "acme")]
    assert forms[0]["version"] == forms[1]["version"]
    forms[0]["greeting.en"] = ["Greeting of the first owner"]
    forms[1]["greeting.en"] = ["Greeting of the second owner"]
    results: dict[int, Any] = {}
    start = threading.Barrier(2)

    def save(index: int, client: TestClient) -> None:
        start.wait()
        results[index] = post(client, "acme", forms[index])

    threads = [threading.Thread(target=save, args=(i, c)) for i, c in enumerate([first, second])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    codes = sorted(response.status_code for response in results.values())
    assert codes == [200, 409], codes
    winner = next(i for i, r in results.items() if r.status_code == 200)
    loser = 1 - winner
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    on_disk = yaml.safe_load(acme_file.read_text(encoding="utf-8"))
    assert on_disk["widget"]["greeting"]["en"] == forms[winner]["greeting.en"][0]
    assert forms[loser]["greeting.en"][0] in results[loser].text  # nothing lost: still typed
    assert len(audit_rows(console_app, "acme")) == 1


def test_secrets_are_write_only_in_the_page_the_file_view_and_the_audit(
    console_app: Console, team: Any
) -> None:
    client = owner_client(console_app)
    demo_file = console_app.settings.sites_dir / "demo.yaml"
    fields = form_of(client, "demo")
    fields["handoff.slack_webhook_url"] = [SLACK_SECRET]
    fields["webhook.0.url"] = ["https://hooks.demo.example"]
    fields["webhook.0.secret"] = [SIGNING_SECRET]
    done = post(client, "demo", fields)
    assert done.status_code == 200, html.unescape(done.text)[:3000]
    served = console_app.runtime.sites["demo"].config.handoff
    assert str(served.slack_webhook_url) == SLACK_SECRET
    assert served.webhooks[0].secret == SIGNING_SECRET
    page = client.get(SETTINGS.format("demo")).text
    assert SLACK_SECRET not in page and SIGNING_SECRET not in page
    assert "very-secret-token" not in page
    state = dict(re.findall(r'data-secret="([^"]+)">([^<]+)<', page))
    assert state["handoff.slack_webhook_url"] == "set"
    assert state["webhook.0.secret"] == "set"
    assert state["handoff.slack_signing_secret"] == "not set"
    # The audit says set, never the value, in the store and on the page.
    (row,) = audit_rows(console_app, "demo")
    assert SLACK_SECRET not in str(row.changes) and SIGNING_SECRET not in str(row.changes)
    assert {"field": "handoff.slack_webhook_url", "before": "not set", "after": "set"} in (
        row.changes
    )
    # A blank secret input keeps the secret; a new URL in the same row keeps its secret too.
    fields = form_of(client, "demo")
    assert fields["handoff.slack_webhook_url"] == [""] and fields["webhook.0.secret"] == [""]
    assert fields["webhook.0.url"] == ["https://hooks.demo.example/"]  # as the schema reads it
    fields["greeting.en"] = ["Hi there"]
    assert post(client, "demo", fields).status_code == 200
    served = console_app.runtime.sites["demo"].config.handoff
    assert str(served.slack_webhook_url) == SLACK_SECRET
    assert served.webhooks[0].secret == SIGNING_SECRET
    on_disk = yaml.safe_load(demo_file.read_text(encoding="utf-8"))
    assert on_disk["handoff"]["webhooks"][0]["url"] == "https://hooks.demo.example"  # as typed
    fields = form_of(client, "demo")
    fields["webhook.0.url"] = ["https://hooks.demo.example/v2"]
    assert post(client, "demo", fields).status_code == 200
    served = console_app.runtime.sites["demo"].config.handoff
    assert str(served.webhooks[0].url) == "https://hooks.demo.example/v2"
    assert served.webhooks[0].secret == SIGNING_SECRET
    # The site file shown for validation hides them, and validating it as shown works.
    csrf = page_csrf(client, SETTINGS.format("demo"))
    shown = re.search(r'aria-label="Site file">(.*?)</textarea>', page, re.S)
    assert shown is not None
    valid = client.post(
        f"{SETTINGS.format('demo')}/validate",
        data={"text": html.unescape(shown.group(1)), "csrf_token": csrf},
    )
    assert valid.status_code == 200, html.unescape(valid.text)[
        valid.text.find("validation") - 50 :
    ][:1500]
    assert "Valid: this file would load." in valid.text
    assert SLACK_SECRET in demo_file.read_text(encoding="utf-8")
    # Removing a secret is a tick.
    fields = form_of(client, "demo")
    fields["handoff.slack_webhook_url.clear"] = ["1"]
    assert post(client, "demo", fields).status_code == 200
    assert console_app.runtime.sites["demo"].config.handoff.slack_webhook_url is None


def test_another_sites_owner_and_an_agent_of_this_site_can_neither_read_nor_write(
    console_app: Console, team: Any
) -> None:
    # The demo site has a secret and a greeting its owner set.
    owner = owner_client(console_app)
    fields = form_of(owner, "demo")
    fields["handoff.slack_signing_secret"] = ["demo-signing-secret-value"]
    fields["greeting.en"] = ["Demo's own greeting"]
    assert post(owner, "demo", fields).status_code == 200
    demo_file = console_app.settings.sites_dir / "demo.yaml"
    before = demo_file.read_bytes()

    # A legitimate owner of acme only, with acme's form in hand.
    add_operator(console_app.runtime, "owner@acme-only.test", {"acme": "owner"})
    attacker = owner_client(console_app, "owner@acme-only.test")
    stolen = form_of(attacker, "acme")
    assert attacker.get(SETTINGS.format("demo")).status_code == 404
    stolen["greeting.en"] = ["Taken over"]
    stolen["handoff.slack_signing_secret"] = ["attacker"]
    attempt = post(attacker, "demo", stolen)
    assert attempt.status_code == 404
    assert "demo-signing-secret-value" not in attempt.text and "Demo's own greeting" not in (
        attempt.text
    )
    # An agent of demo: sees the settings page, without the form, the file or the audit.
    add_operator(console_app.runtime, "agent@demo.test", {"demo": "agent"})
    agent = owner_client(console_app, "agent@demo.test")
    page = agent.get(SETTINGS.format("demo"))
    assert page.status_code == 200 and 'id="site-settings-form"' not in page.text
    assert "demo-signing-secret-value" not in page.text and "Demo's own greeting" not in page.text
    csrf = page_csrf(agent, SETTINGS.format("demo"))
    fields = dict(fields)
    fields["csrf_token"] = [csrf]
    fields["greeting.en"] = ["Agent's greeting"]
    assert post(agent, "demo", fields).status_code == 403
    assert demo_file.read_bytes() == before
    assert len(audit_rows(console_app, "demo")) == 1
    served = console_app.runtime.sites["demo"].config
    assert served.widget.greeting["en"] == "Demo's own greeting"
    assert widget_greeting(owner, DEMO_KEY, DEMO_ORIGIN, "en") == "Demo's own greeting"


def test_opening_hours_and_channels_are_saved_and_served(console_app: Console, team: Any) -> None:
    client = owner_client(console_app)
    fields = form_of(client, "acme")
    fields["hours.timezone"] = ["Europe/Berlin"]
    fields["hours.weekly"] = ["tue-fri: 09:30-13:00, 14:00-18:30\r\nsat: 10:00-14:00"]
    fields["hours.holidays"] = ["DE-SN"]
    fields["hours.closed"] = ["2026-12-24"]
    fields["handoff.fallback_email"] = ["team@acme.example"]
    fields["handoff.contact"] = ["either"]
    done = post(client, "acme", fields)
    assert done.status_code == 200, html.unescape(done.text)[:3000]
    hours = console_app.runtime.sites["acme"].config.business_hours
    assert hours.timezone == "Europe/Berlin" and hours.holidays == "DE-SN"
    assert hours.weekly == {"tue-fri": ["09:30-13:00", "14:00-18:30"], "sat": ["10:00-14:00"]}
    assert [d.isoformat() for d in hours.closed] == ["2026-12-24"]
    handoff = console_app.runtime.sites["acme"].config.handoff
    assert handoff.fallback_email == "team@acme.example" and handoff.contact == "either"
    # The page's opening hours follow at once.
    page = client.get(SETTINGS.format("acme")).text
    assert "Europe/Berlin" in page[page.index('id="opening-hours"') :]


def test_another_replica_serves_the_change_without_restart_and_never_reverts_it(
    console_app: Console, team: Any, tmp_path: Path
) -> None:
    """More processes on the same store: one shares the sites folder and serves the saved
    greeting within its follow interval; one started later from its own old copy of the
    files serves its copy, and its start-up mirror undoes the change nowhere."""
    from api_support import write_sites
    from scripted_backend import ScriptedBackend

    from frontdesk.api.app import create_app
    from frontdesk.runtime import Runtime, build_runtime
    from frontdesk.settings import Settings
    from frontdesk.site_follow import SiteFollower

    own_copy = tmp_path / "own-copy"
    shutil.copytree(console_app.settings.sites_dir, own_copy)
    write_sites(own_copy)
    started: list[tuple[Runtime, TestClient]] = []

    def replica(sites_dir: Path) -> TestClient:
        settings = Settings(
            data_dir=console_app.settings.data_dir, sites_dir=sites_dir, sites_follow_s=0.2
        )
        runtime = build_runtime(settings)
        client = TestClient(create_app(settings, runtime, ScriptedBackend()))
        client.__enter__()
        started.append((runtime, client))
        return client

    saved = "Saved on one replica"
    follower = SiteFollower(console_app.runtime)  # the first process's view of the store
    try:
        shared = replica(console_app.settings.sites_dir)
        owner = owner_client(console_app)
        fields = form_of(owner, "acme")
        fields["greeting.en"] = [saved]
        assert post(owner, "acme", fields).status_code == 200
        assert follower.check() == []  # its own save: already served
        deadline = time.monotonic() + 10
        while widget_greeting(shared, ACME_KEY, ACME_ORIGIN, "en") != saved:
            assert time.monotonic() < deadline, "the other replica never served the change"
            time.sleep(0.1)

        separate = replica(own_copy)
        assert widget_greeting(separate, ACME_KEY, ACME_ORIGIN, "en") != saved
        time.sleep(0.6)  # three follow intervals
        assert follower.check() == []  # the late replica's mirror changes nothing here
        for client in (owner, shared):
            assert widget_greeting(client, ACME_KEY, ACME_ORIGIN, "en") == saved
        assert yaml.safe_load(
            (console_app.settings.sites_dir / "acme.yaml").read_text(encoding="utf-8")
        )["widget"]["greeting"] == {"en": saved}
    finally:
        for runtime, client in started:
            client.__exit__(None, None, None)
            runtime.close()


def test_a_change_whose_audit_cannot_be_stored_is_not_made(console_app: Console, team: Any) -> None:
    from sqlalchemy import text

    client = owner_client(console_app)
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    before = acme_file.read_bytes()
    fields = form_of(client, "acme")
    fields["greeting.en"] = ["Never audited, never saved"]
    with console_app.runtime.engine.begin() as connection:
        connection.execute(text("ALTER TABLE site_settings_changes RENAME TO gone"))
    failed = post(client, "acme", fields)
    assert failed.status_code == 503  # the store's outage page
    assert acme_file.read_bytes() == before
    assert console_app.runtime.sites["acme"].config.widget.greeting == {}


def test_a_file_written_before_its_audit_failed_to_commit_is_put_back(
    console_app: Console, team: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit row is stored before the file is written, but committed after it: when the
    commit fails, the file is restored, so no change stands without its audit."""
    from contextlib import contextmanager

    import frontdesk.console.site_settings_pages as pages

    written: list[str] = []
    real = pages.transaction

    @contextmanager
    def commit_fails(sessions: Any) -> Any:
        with real(sessions) as session:
            yield session
            written.append(acme_file.read_text(encoding="utf-8"))
            raise RuntimeError("the commit failed")

    client = owner_client(console_app)
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    before = acme_file.read_bytes()
    fields = form_of(client, "acme")
    fields["greeting.en"] = ["Written, then put back"]
    monkeypatch.setattr(pages, "transaction", commit_fails)
    failed = post(client, "acme", fields)
    assert failed.status_code == 500
    assert written and "Written, then put back" in written[0]  # it was on disk...
    assert acme_file.read_bytes() == before  # ...and is no more
    assert audit_rows(console_app, "acme") == []
    assert console_app.runtime.sites["acme"].config.widget.greeting == {}


def test_a_site_file_broken_on_disk_is_not_edited_over(console_app: Console, team: Any) -> None:
    client = owner_client(console_app)
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    fields = form_of(client, "acme")
    broken = acme_file.read_text(encoding="utf-8").replace("America/New_York", "Mars/Base")
    acme_file.write_text(broken, encoding="utf-8")
    page = client.get(SETTINGS.format("acme"))
    assert 'id="site-form-problem"' in page.text and 'id="site-settings-form"' not in page.text
    assert "business_hours.timezone" in page.text
    fields["greeting.en"] = ["Over a broken file"]
    refused = post(client, "acme", fields)
    assert refused.status_code == 409
    assert 'id="site-form-problem"' in refused.text
    assert "Over a broken file" in refused.text  # still there to copy
    assert acme_file.read_text(encoding="utf-8") == broken


def test_a_save_sent_for_a_broken_files_version_is_refused(console_app: Console, team: Any) -> None:
    from frontdesk.sites.editing import file_version

    client = owner_client(console_app)
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    fields = form_of(client, "acme")
    broken = acme_file.read_text(encoding="utf-8").replace("America/New_York", "Mars/Base")
    acme_file.write_text(broken, encoding="utf-8")
    fields["version"] = [file_version(broken)]  # a hand-made request that knows it
    fields["greeting.en"] = ["Over a broken file"]
    refused = post(client, "acme", fields)
    assert refused.status_code == 422 and "business_hours.timezone" in refused.text
    assert acme_file.read_text(encoding="utf-8") == broken


def test_a_channel_saved_in_the_console_is_used_by_a_running_worker(
    console_app: Console, team: Any
) -> None:
    """`frontdesk worker` in a process of its own delivers a handoff to the webhook an owner
    added in the console after the worker started, without a restart."""
    import os
    import signal
    import subprocess
    import sys

    from frontdesk.handoff.outbox import enqueue_handoff
    from frontdesk.handoff.packets import HandoffRequest
    from frontdesk.store.db import transaction
    from tests.support.loopback import HttpReceiver

    settings = console_app.settings
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "FRONTDESK_DATA_DIR": str(settings.data_dir),
        "FRONTDESK_SITES_DIR": str(settings.sites_dir),
        "FRONTDESK_SITES_FOLLOW_S": "0.2",
        "FRONTDESK_DISPATCHER_POLL_S": "0.2",
        "FRONTDESK_LOG_LEVEL": "WARNING",
    }
    with HttpReceiver(slow_s=1.0) as receiver:
        worker = subprocess.Popen(
            [sys.executable, "-m", "frontdesk", "worker"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=settings.data_dir.parent,
        )
        try:
            assert worker.stdout is not None
            started = time.monotonic()
            for line in worker.stdout:  # the worker says when its loop runs
                if "running" in line:
                    break
                assert time.monotonic() - started < 120, "the worker did not start"
            client = owner_client(console_app)
            fields = form_of(client, "acme")
            fields["webhook.0.url"] = [receiver.url("/acme-hook")]
            assert post(client, "acme", fields).status_code == 200
            time.sleep(1.0)  # five follow intervals of the worker
            with transaction(console_app.runtime.sessions) as session:
                enqueue_handoff(
                    session,
                    HandoffRequest(
                        site=console_app.runtime.site("acme").config,
                        session_id="visitor-1",
                        turn=1,
                        handoff={"reason": "explicit_request", "lead_level": "warm"},
                        values={"visitor_profile": {"email": "ana@northwind.test"}},
                        message="I'd like to talk to a person",
                        language="en",
                    ),
                )
            deadline = time.monotonic() + 30
            while not receiver.received_on("/acme-hook"):
                assert time.monotonic() < deadline, "the worker never used the new webhook"
                time.sleep(0.2)
        finally:
            worker.send_signal(signal.SIGINT)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()


def test_the_forms_own_messages_are_in_the_owners_console_language(
    console_app: Console, team: Any
) -> None:
    """The save notice, a refused line of the weekly hours and the conflict are told in
    the language the console speaks to the owner; the field each refusal names stays
    the site file's own name."""
    client = owner_client(console_app)
    client.headers["Accept-Language"] = "de-DE,de;q=0.9"
    fields = form_of(client, "acme")
    fields["hours.weekly"] = ["montags"]
    refused = post(client, "acme", fields)
    assert refused.status_code == 422
    errors = html.unescape(refused.text[refused.text.index('id="settings-errors"') :])
    assert "Nicht gespeichert. Korrigieren Sie die Felder unten" in errors
    assert "business_hours.weekly: Zeile 1 ('montags'): Schreiben Sie einen Tag" in errors

    fields = form_of(client, "acme")
    fields["greeting.de"] = ["Guten Tag bei Acme."]
    done = post(client, "acme", fields)
    assert done.status_code == 200, done.text[:2000]
    notice = re.search(r"id=\"notice\">([^<]*)<", done.text)
    assert notice and notice.group(1) == "Gespeichert: 1 Einstellung geändert; ab jetzt in Kraft."
    again = post(client, "acme", form_of(client, "acme"))
    assert "Nichts geändert." in again.text

    stale = form_of(client, "acme")
    acme_file = console_app.settings.sites_dir / "acme.yaml"
    acme_file.write_text(
        acme_file.read_text(encoding="utf-8").replace("Acme Corp", "Acme GmbH"), encoding="utf-8"
    )
    conflict = post(client, "acme", stale)
    assert conflict.status_code == 409
    assert "Nicht gespeichert: Die Site-Datei wurde auf dem Datenträger geändert" in (
        html.unescape(conflict.text)
    )

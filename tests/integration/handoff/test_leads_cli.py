"""`frontdesk leads list SITE`: the CRM table in the terminal."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from frontdesk.cli import app
from frontdesk.handoff.outbox import record_lead_capture
from frontdesk.runtime import Runtime
from frontdesk.settings import Settings, get_settings
from frontdesk.store.db import transaction
from frontdesk.store.handoffs import LeadRepository

pytestmark = pytest.mark.integration


def test_leads_list_shows_the_sites_leads(
    acme: Runtime, acme_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with transaction(acme.sessions) as session:
        record_lead_capture(
            session,
            site=acme.site("acme").config,
            session_id="cli-1",
            capture={"capture_context": "in_chat_booking", "email": "kim@globex.io"},
            level="warm",
        )
    monkeypatch.setenv("FRONTDESK_DATA_DIR", str(acme_settings.data_dir))
    monkeypatch.setenv("FRONTDESK_SITES_DIR", str(acme_settings.sites_dir))
    get_settings.cache_clear()
    runner = CliRunner()
    result = runner.invoke(app, ["leads", "list", "acme"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "kim@globex.io" in result.output and "in_chat_booking" in result.output
    assert "Leads of acme (1)" in result.output
    unknown = runner.invoke(app, ["leads", "list", "nope"])
    assert unknown.exit_code == 1 and "unknown site 'nope'" in unknown.output


def test_leads_list_marks_what_the_visitor_claimed_as_unverified(
    acme: Runtime, acme_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A visitor claims a company and a name; the terminal shows them as claims, as the
    console, e-mail, Slack and webhooks do, and never as Rich markup."""
    with transaction(acme.sessions) as session:
        record_lead_capture(
            session,
            site=acme.site("acme").config,
            session_id="cli-2",
            capture={"capture_context": "in_chat_booking", "email": "ceo@globex.io"},
            level="hot",
            profile={"company_name": "Globex [bold]verified[/bold]", "name": "Hank Scorpio"},
        )
        # A row written before lead rows listed their unverified columns.
        LeadRepository(session).create_once(
            "acme:cli-3:older",
            site_id="acme",
            session_id="cli-3",
            email="old@initech.io",
            company="Initech",
            level="warm",
            details={},
        )
    monkeypatch.setenv("FRONTDESK_DATA_DIR", str(acme_settings.data_dir))
    monkeypatch.setenv("FRONTDESK_SITES_DIR", str(acme_settings.sites_dir))
    get_settings.cache_clear()
    result = CliRunner().invoke(app, ["leads", "list", "acme"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    for claim in (
        "ceo@globex.io",
        "Hank Scorpio",
        "Globex [bold]verified[/bold]",  # shown as typed, not as bold text
        "old@initech.io",
        "Initech",
    ):
        assert f"{claim} (unverified)" in result.output, result.output
    assert "typed by the visitor, not checked" in result.output

"""Writing settings into a site file: only changed entries rewritten (comments kept), the
version check, secrets hidden and restored, and the audit's before/after."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import yaml

from frontdesk.settings import DEMO_DIR
from frontdesk.sites.editing import (
    SECRET_SHOWN_AS,
    SiteFileConflict,
    changed_fields,
    file_version,
    hide_secrets,
    restore_secrets,
    rewrite_entries,
    update_site_file,
)

DEMO_FILE = DEMO_DIR / "sites" / "demo.yaml"


def test_only_changed_entries_are_rewritten_and_comments_elsewhere_stay() -> None:
    text = DEMO_FILE.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data["tone"] = "informal"
    data["widget"]["greeting"] = {"de": "Hallo! Wie kann ich dir helfen?"}
    data["starter_questions"] = {"en": ["What does it cost?"]}
    result = rewrite_entries(text, data)
    assert yaml.safe_load(result) == data
    # The comments of the untouched entries, and the one introducing `tone`, are kept.
    assert "# The bundled demo site: Tessellate" in result
    assert "# How the assistant addresses visitors" in result
    assert "relevance_threshold: 0.79  # multilingual-e5-small" in result
    untouched = [line for line in text.splitlines() if line.startswith("knowledge:")]
    assert untouched and untouched[0] in result.splitlines()
    assert "tone: informal" in result.splitlines()


def test_an_unchanged_file_is_returned_as_it_is() -> None:
    text = DEMO_FILE.read_text(encoding="utf-8")
    assert rewrite_entries(text, yaml.safe_load(text)) == text


def test_removed_entries_go_and_new_ones_are_appended() -> None:
    text = "# site\nid: x\nname: X  # shown\nextra: 1\n\n# the widget\nwidget: {}\n"
    data = {"id": "x", "name": "X", "widget": {}, "tone": "formal"}
    result = rewrite_entries(text, data)
    assert yaml.safe_load(result) == data
    assert "name: X  # shown" in result and "# the widget" in result
    assert result.rstrip().endswith("tone: formal")


def test_a_layout_beyond_entries_is_written_whole_and_still_right() -> None:
    text = "{id: x, name: X}\n"
    data = {"id": "x", "name": "Y"}
    assert yaml.safe_load(rewrite_entries(text, data)) == data


def test_an_update_from_an_old_version_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("id: x\n", encoding="utf-8")
    loaded = file_version(path.read_text(encoding="utf-8"))
    path.write_text("id: x\nname: edited on disk\n", encoding="utf-8")
    with pytest.raises(SiteFileConflict):
        update_site_file(path, loaded, lambda old: old + "tone: formal\n")
    assert path.read_text(encoding="utf-8") == "id: x\nname: edited on disk\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_of_two_updates_from_one_version_exactly_one_is_written(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("id: x\n", encoding="utf-8")
    version = file_version("id: x\n")
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def update(mark: int) -> None:
        start.wait()
        try:
            update_site_file(path, version, lambda old: f"{old}name: n{mark}\n")
            outcomes.append(f"n{mark}")
        except SiteFileConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=update, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [o for o in outcomes if o != "conflict"]
    assert len(winners) == 1 and outcomes.count("conflict") == 7
    assert path.read_text(encoding="utf-8") == f"id: x\nname: {winners[0]}\n"


def test_a_file_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("id: x\n", encoding="utf-8")
    path.chmod(0o640)
    update_site_file(path, file_version("id: x\n"), lambda old: old + "name: X\n")
    assert path.stat().st_mode & 0o777 == 0o640


SECRETS = """handoff:
  slack_webhook_url: https://hooks.slack.test/services/T0/B0/token  # the team's channel
  slack_signing_secret: "8f3c"
  webhooks:
    - url: https://crm.example/hook
      secret: whsec_c2lnbmluZy1zZWNyZXQtb2YtZGVtbw==
    - url: https://other.example/hook
"""


def test_secrets_are_hidden_in_the_shown_file_and_restored_by_field() -> None:
    shown = hide_secrets(SECRETS)
    for secret in ("token", "8f3c", "whsec_"):
        assert secret not in shown
    assert shown.count(SECRET_SHOWN_AS) == 3
    assert "https://crm.example/hook" in shown
    restored = yaml.safe_load(restore_secrets(shown, SECRETS))
    assert restored == yaml.safe_load(SECRETS)
    # A marker with no secret behind it in the file stays, for the schema to refuse.
    moved = shown.replace("  slack_signing_secret:", "  # slack_signing_secret:")
    moved += f"enrichment:\n  providers: []\n  secret_note: '{SECRET_SHOWN_AS}'\n"
    again = yaml.safe_load(restore_secrets(moved, "id: x\n"))
    assert again["handoff"]["slack_webhook_url"] == SECRET_SHOWN_AS


def test_the_audit_shows_secrets_only_as_set_or_not_set() -> None:
    before = {"tone": "formal", "handoff": {"slack_signing_secret": "", "webhooks": []}}
    after = {
        "tone": "informal",
        "handoff": {
            "slack_signing_secret": "s3cret",
            "webhooks": [{"url": "https://crm.example/hook", "secret": "whsec_x"}],
        },
    }
    changes = changed_fields(before, after)
    assert {"field": "tone", "before": "formal", "after": "informal"} in changes
    assert {"field": "handoff.slack_signing_secret", "before": "not set", "after": "set"} in (
        changes
    )
    assert {"field": "handoff.webhooks.0.secret", "before": "not set", "after": "set"} in changes
    assert "s3cret" not in str(changes) and "whsec_x" not in str(changes)
    replaced = changed_fields(
        after, {**after, "handoff": {**after["handoff"], "slack_signing_secret": "new"}}
    )
    assert replaced == [
        {"field": "handoff.slack_signing_secret", "before": "set", "after": "set (changed)"}
    ]

"""Site facts kept per document in the app store (real SQLite and PostgreSQL, migrated):
replaced when a page changes, gone when it leaves the index, a footer read on every page
kept once, and one site never reads another's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade
from tests.integration.production.conftest import fresh_pg_database

pytestmark = pytest.mark.integration

FOOTER = """<footer><address>Hauptstraße 1<br>50667 Köln</address>
<a href="tel:+49221555000">0221 555000</a></footer>"""


def page(body: str, footer: str = FOOTER) -> str:
    return f"<html><head><title>t</title></head><body><main>{body}</main>{footer}</body></html>"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """The embedded store, and PostgreSQL (pgvector index when the server has it)."""
    if request.param == "sqlite":
        yield from _migrated(f"sqlite:///{tmp_path / 'store.db'}")
    else:
        for url in fresh_pg_database():
            yield from _migrated(url)


def _migrated(url: str) -> Iterator[Engine]:
    engine = make_engine(url)
    upgrade(engine)
    yield engine
    engine.dispose()


def site(site_id: str) -> SiteKnowledge:
    return SiteKnowledge(site_id, KnowledgeConfig(embedding="hash:256"))


def write(folder: Path, pages: dict[str, str]) -> Path:
    folder.mkdir(exist_ok=True)
    for name, html in pages.items():
        (folder / name).write_text(html, "utf-8")
    return folder


def test_facts_follow_their_page_and_a_footer_counts_once(engine: Engine, tmp_path: Path) -> None:
    kb = KnowledgeBase(engine)
    folder = write(
        tmp_path / "pages",
        {
            "index.html": page("<h1>Willkommen</h1><p>Wir reparieren Räder.</p>"),
            "zeiten.html": page("<table><tr><td>Mo–Fr</td><td>9–18 Uhr</td></tr></table>"),
            "preise.html": page("<ul><li>Kette wechseln: 18 €</li></ul>"),
        },
    )
    kb.ingest_path(site("werk"), folder, progress=False)
    facts = kb.site_facts(site("werk"))
    assert [f.value for f in facts.of_kind("phone")] == ["+49221555000"]  # three footers, one fact
    assert [f.value for f in facts.of_kind("address")] == ["Hauptstraße 1, 50667 Köln"]
    assert {f.weekday for f in facts.of_kind("hours")} == {0, 1, 2, 3, 4}
    assert {f.doc_id for f in facts.of_kind("hours")} == {"zeiten.html"}

    # The page changes: its facts are replaced, not added to.
    (folder / "preise.html").write_text(page("<ul><li>Kette wechseln: 21 €</li></ul>"), "utf-8")
    # A footer changes on one page only: the new number is read from that page.
    (folder / "index.html").write_text(
        page("<h1>Willkommen</h1>", footer='<footer><a href="tel:+49221555999">Neu</a></footer>'),
        "utf-8",
    )
    kb.ingest_path(site("werk"), folder, progress=False)
    facts = kb.site_facts(site("werk"))
    assert [(f.label, f.value) for f in facts.of_kind("price")] == [("Kette wechseln", "21 €")]
    assert sorted(f.value for f in facts.of_kind("phone")) == ["+49221555000", "+49221555999"]

    # The page leaves the index: its facts go with it.
    (folder / "zeiten.html").unlink()
    kb.ingest_path(site("werk"), folder, progress=False)
    assert not kb.site_facts(site("werk")).of_kind("hours")


def test_one_site_never_reads_another_sites_facts(engine: Engine, tmp_path: Path) -> None:
    kb = KnowledgeBase(engine)
    mine = write(tmp_path / "mine", {"kontakt.html": page("<p>Kontakt</p>")})
    theirs = write(
        tmp_path / "theirs",
        {"kontakt.html": page("<p>Kontakt</p>", footer='<a href="tel:+4930666">Anruf</a>')},
    )
    kb.ingest_path(site("mine"), mine, progress=False)
    kb.ingest_path(site("theirs"), theirs, progress=False)
    assert [f.value for f in kb.site_facts(site("mine")).of_kind("phone")] == ["+49221555000"]
    assert [f.value for f in kb.site_facts(site("theirs")).of_kind("phone")] == ["+4930666"]
    assert kb.site_facts(site("nobody")).facts == ()


def test_kb_facts_lists_what_the_site_states_with_its_page(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from frontdesk.cli.kb import kb_app

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "radwerk"
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "radwerk.yaml").write_text(
        f"id: radwerk\nname: Radwerk\ndefault_language: de\nlanguages: [de]\nknowledge:\n"
        f"  sources: ['{fixture}']\n  embedding: hash:256\n"
        "widget:\n  public_key: pk_test_radwerk_cli_01\n"
        "business_hours:\n  timezone: Europe/Berlin\n",
        "utf-8",
    )
    runner = CliRunner()
    env = {"COLUMNS": "200", "FRONTDESK_DATA_DIR": str(tmp_path / "data")}
    ingested = runner.invoke(
        kb_app, ["ingest", "radwerk", "--no-progress", "--sites-dir", str(sites)], env=env
    )
    assert ingested.exit_code == 0, ingested.output
    listed = runner.invoke(kb_app, ["facts", "radwerk", "--sites-dir", str(sites)], env=env)
    assert listed.exit_code == 0, listed.output
    out = listed.output
    assert "Samstag" in out and "10:00–14:00" in out and "kontakt.html" in out
    assert "Schlauch wechseln" in out and "12 €" in out
    assert "+493061207788" in out and "link (footer)" in out

    # A team correction is listed with its author and date, in place of the page's value.
    from datetime import UTC, datetime

    from frontdesk.facts.corrections import corrected_fact
    from frontdesk.facts.store import CorrectionStore

    engine = make_engine(f"sqlite:///{tmp_path / 'data' / 'frontdesk.db'}")
    at = datetime(2026, 12, 1, 9, tzinfo=UTC)
    fact = corrected_fact("phone", "", "+49 30 999", language="de", author="jana@r.test", at=at)
    CorrectionStore(engine).correct(
        "radwerk", "phone:+493061207788", "set", fact, author="jana@r.test", expected=0
    )
    engine.dispose()
    listed = runner.invoke(kb_app, ["facts", "radwerk", "--sites-dir", str(sites)], env=env)
    out = listed.output
    assert "+49 30 999" in out and "team (jana@r.test, 2026-12-01)" in out, out
    assert "+493061207788" not in out


def test_validate_names_the_days_the_site_file_and_the_site_disagree(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from frontdesk.cli.kb import kb_app
    from frontdesk.cli.sites import sites_app

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "radwerk"
    sites = tmp_path / "sites"
    sites.mkdir()
    site_file = sites / "radwerk.yaml"
    site_file.write_text(
        f"id: radwerk\nname: Radwerk\ndefault_language: de\nlanguages: [de]\nknowledge:\n"
        f"  sources: ['{fixture}']\n  embedding: hash:256\n"
        "widget:\n  public_key: pk_test_radwerk_cli_01\n"
        "business_hours:\n  timezone: Europe/Berlin\n  weekly:\n"
        '    mon-fri: ["09:00-17:00"]\n    sat: ["10:00-14:00"]\n',
        "utf-8",
    )
    runner = CliRunner()
    env = {"COLUMNS": "200", "FRONTDESK_DATA_DIR": str(tmp_path / "data")}
    # Before anything is ingested there is nothing published to compare, and no store is made.
    quiet = runner.invoke(sites_app, ["validate", str(site_file)], env=env)
    assert quiet.exit_code == 0, quiet.output
    assert "disagree" not in quiet.output and "publishes" not in quiet.output
    assert not (tmp_path / "data" / "frontdesk.db").exists()

    ingested = runner.invoke(
        kb_app, ["ingest", "radwerk", "--no-progress", "--sites-dir", str(sites)], env=env
    )
    assert ingested.exit_code == 0, ingested.output
    checked = runner.invoke(sites_app, ["validate", str(site_file)], env=env)
    assert checked.exit_code == 0, checked.output  # a warning, not an error
    out = " ".join(checked.output.split())
    assert (
        "Monday: the site file says 09:00-17:00, the site publishes closed "
        "(https://radwerk.example/kontakt.html)" in out
    ), out
    assert "Tuesday: the site file says 09:00-17:00, the site publishes 09:30-18:30" in out
    assert "Friday: the site file says 09:00-17:00" in out
    assert "Saturday:" not in out  # the same on both


def test_corrections_outlive_the_page_and_a_race_has_one_winner(
    engine: Engine, tmp_path: Path
) -> None:
    import threading
    from datetime import UTC, datetime

    from frontdesk.facts.corrections import corrected_fact
    from frontdesk.facts.store import CorrectionConflict, CorrectionStore

    kb = KnowledgeBase(engine)
    folder = write(tmp_path / "pages", {"index.html": page("<p>Willkommen</p>")})
    kb.ingest_path(site("werk"), folder, progress=False)
    store = CorrectionStore(engine)

    def fact(kind: str, value: str) -> Any:
        at = datetime.now(UTC)
        return corrected_fact(kind, "", value, language="de", author="a@werk.test", at=at)

    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def correct(key: str, kind: str, value: str) -> None:
        barrier.wait()
        try:
            store.correct("werk", key, "set", fact(kind, value), author="a@werk.test", expected=0)
            outcomes.append(f"saved {key} {value}")
        except CorrectionConflict:
            outcomes.append(f"conflict {key}")

    threads = [
        threading.Thread(target=correct, args=("phone:+49221555000", "phone", "+49 221 1")),
        threading.Thread(target=correct, args=("phone:+49221555000", "phone", "+49 221 2")),
        threading.Thread(target=correct, args=("email:info@werk.test", "email", "neu@werk.test")),
        threading.Thread(target=correct, args=("address:x", "address", "Ring 2, Köln")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Two different facts: both kept; the same fact from the same revision: one of two.
    assert sum(o.startswith("saved phone:") for o in outcomes) == 1, outcomes
    assert "conflict phone:+49221555000" in outcomes
    assert "saved email:info@werk.test neu@werk.test" in outcomes
    assert "saved address:x Ring 2, Köln" in outcomes
    assert store.revision("werk", "phone:+49221555000") == 1

    # The page is re-ingested, then removed: the correction stays in force.
    (folder / "index.html").write_text(page("<p>Neu</p>"), "utf-8")
    kb.ingest_path(site("werk"), folder, progress=False)
    phones = [f.value for f in kb.site_facts(site("werk")).of_kind("phone")]
    assert phones in (["+49 221 1"], ["+49 221 2"])
    assert kb.site_facts(site("other")).facts == ()  # per site

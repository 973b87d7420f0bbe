"""The small-business benchmark's sites and its judge: every site is a real small site
with enough questions of every kind, samples are reproducible, and a reply is judged the
way benchmarks/small_business.py documents."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from benchmarks.small_business import (
    CATEGORIES,
    BadSiteData,
    Question,
    Reply,
    Site,
    judge,
    load_site,
    load_sites,
    normalise,
    sample,
)

from frontdesk.conversation.texts import say

pytestmark = pytest.mark.unit


def test_every_site_is_a_small_site_with_twenty_questions_of_every_kind() -> None:
    sites = load_sites()
    assert len(sites) >= 6
    assert len({site.language for site in sites}) >= 5
    for site in sites:
        pages = list(site.pages.glob("*.html"))
        assert 6 <= len(pages) <= 9, (site.id, len(pages))
        for page in pages:
            html = page.read_text("utf-8")
            assert "<footer" in html and "<nav" in html, page
        kinds = Counter(q.category for q in site.questions)
        assert len(site.questions) >= 20, site.id
        assert all(kinds[c] >= 3 for c in CATEGORIES), (site.id, kinds)
        assert any(len(q.turns) > 1 for q in site.questions), f"{site.id}: no follow-up"
        assert all(q.language != site.language for q in site.questions if q.category == "crosslang")


def test_a_sample_is_the_same_for_the_same_seed_and_covers_every_category() -> None:
    site = load_sites(["radwerk"])[0]
    first = sample(site, 6, seed=3)
    assert first == sample(site, 6, seed=3)
    assert len(first) == 6
    assert {q.category for q in first} == set(CATEGORIES)
    assert sample(site, None, seed=0) == list(site.questions)


def _site(tmp_path: Path, questions: str) -> Path:
    folder = tmp_path / "shop"
    (folder / "pages").mkdir(parents=True)
    (folder / "pages" / "index.html").write_text("<html></html>", "utf-8")
    (folder / "site.yaml").write_text("name: Shop\nlanguage: de\ntimezone: UTC\n", "utf-8")
    (folder / "questions.yaml").write_text(questions, "utf-8")
    return folder


@pytest.mark.parametrize(
    ("questions", "message"),
    [
        ("- id: no\n  category: smalltalk\n  ask: Nein\n", "`id` must be a string"),
        ("- id: a\n  category: facts\n  ask: Was?\n", "category must be one of"),
        ("- id: a\n  category: fact\n  ask: Was kostet das?\n", "needs `expect`"),
        ("- id: a\n  category: fact\n  ask: Was?\n  expect: ['(']\n", "bad pattern"),
        ("- id: a\n  category: fact\n  ask: [Was?, Und?]\n", "questions.yaml"),
    ],
)
def test_bad_question_files_are_refused_with_where(
    tmp_path: Path, questions: str, message: str
) -> None:
    with pytest.raises(BadSiteData, match=message):
        load_site(_site(tmp_path, questions))


SITE = Site("shop", "Shop", "de", "UTC", Path("."), ())


def _reply(answer: str, routing: str = "answered", citations: int = 0) -> Reply:
    return Reply(answer=answer, routing=routing, citations=["Seite: Auszug"] * citations)


def test_a_fact_needs_every_pattern_with_hours_read_with_or_without_a_leading_zero() -> None:
    question = Question("hours", "fact", ("Wann habt ihr offen?",), "de", ("9:30", "18[:.]30"))
    assert judge(SITE, question, _reply("Dienstag: 09:30–18:30 [1]", citations=1)).ok
    verdict = judge(SITE, question, _reply("Dienstag: 09:30 bis mittags"))
    assert not verdict.ok and "18[:.]30" in verdict.why
    assert normalise("10:00\u202f–\u00a018:30") == "10:00 – 18:30"


def test_absent_is_clean_only_when_nothing_is_quoted_and_the_bot_says_not_found() -> None:
    question = Question("parking", "absent", ("Habt ihr Parkplätze?",), "de")
    honest = "Das habe ich in unserer Dokumentation nicht gefunden. Ich kann dich verbinden."
    assert judge(SITE, question, _reply(honest, "cannot_answer")).ok
    quoted = "In unserer Dokumentation steht: Wir reparieren Räder [1]."
    assert not judge(SITE, question, _reply(quoted, "partially_answered", 1)).ok
    off_topic = "Dabei kann ich leider nicht helfen — ich beantworte nur Fragen zu Shop."
    assert not judge(SITE, question, _reply(off_topic, "irrelevant")).ok


def test_small_talk_is_short_uncited_and_in_the_conversations_language() -> None:
    question = Question("bye", "smalltalk", ("Tschüss!",), "de", reject=("Hallo",))
    assert judge(SITE, question, _reply("Tschüss, bis bald!", "irrelevant")).ok
    assert not judge(SITE, question, _reply("Hallo und tschüss!")).ok
    english = judge(SITE, question, _reply("Goodbye, and thanks for stopping by today!"))
    assert not english.ok and not english.language_ok
    assert not judge(SITE, question, _reply("Laut Dokumentation: Jana [1]", citations=1)).ok


def test_a_quote_in_the_pages_language_after_a_lead_in_in_the_visitors_counts() -> None:
    question = Question("de-price", "crosslang", ("Was kostet die Anfahrt?",), "de", ("39",))
    lead_in = "Laut unserer Preisliste: Voorrijkosten binnen werkgebied, € 39,50 [1]"
    assert judge(SITE, question, _reply(lead_in, citations=1)).language_ok
    dutch = "Volgens onze documentatie: voorrijkosten binnen werkgebied € 39,50 [1]"
    assert not judge(SITE, question, _reply(dutch, citations=1)).language_ok


def test_the_products_stock_replies_do_not_handle_small_talk_but_an_intro_fits_a_greeting() -> None:
    intro = say("redirect.other", "de", site="Shop", topics="Räder")
    thanks = Question("thanks", "smalltalk", ("ok danke",), "de")
    assert "the stock reply redirect.other" in judge(SITE, thanks, _reply(intro)).why
    hello = Question("hello", "smalltalk", ("Hallo!",), "de", greeting=True)
    assert judge(SITE, hello, _reply(intro)).ok
    for key in ("redirect.offtopic", "not_found"):
        stock = say(key, "de", site="Shop", topics="Räder")
        assert not judge(SITE, hello, _reply(stock, "irrelevant")).ok, key
    # A site with `tone: informal` says it with "du": still the stock reply.
    informal = say("redirect.other", "de", tone="informal", site="Shop", topics="Räder")
    assert informal != intro
    assert "the stock reply redirect.other" in judge(SITE, thanks, _reply(informal)).why

"""The cross-site suite: what counts as answered, refused and abstained, the gates, and
how a site's questions and pages are sampled."""

from __future__ import annotations

from pathlib import Path

import pytest

from frontdesk.evals.cross_site import site_suite
from frontdesk.evals.dataset import EvalItem, Expected, ItemInput, Metadata
from frontdesk.evals.runner import Outcome
from frontdesk.evals.sites import (
    ACCEPTANCE,
    CI_SAMPLE,
    FULL,
    SITES,
    Sample,
    SiteDataError,
    held_out,
    load_documents,
    load_queries,
    query_kind,
    site_by_id,
    site_file,
)
from frontdesk.sites.registry import load_site_file
from tests.conftest import SHARED_DATASETS

pytestmark = pytest.mark.unit


def _outcome(kind: str, routing: str, route: str = "ANSWER", answer: str = "") -> Outcome:
    reference = "the clinic opens at nine" if kind == "answerable" else None
    item = EvalItem(
        id=f"{kind}-{routing}-{route}",
        input=ItemInput(query="q"),
        expected_output=Expected(reference=reference),
        metadata=Metadata(category=kind),
    )
    return Outcome(item=item, routing=routing, route=route, answer=answer)


def test_an_answer_with_a_sentence_in_another_language_fails_one_language() -> None:
    english = _outcome(
        "answerable", "answered", answer="The clinic opens at nine every weekday [1]."
    )
    mixed = _outcome(
        "answerable",
        "answered",
        answer="The clinic opens at nine [1]. "
        "La clínica abre a las nueve todos los días laborables [2].",
    )
    english.language = mixed.language = "en"
    result = site_suite("x", [english, mixed], ACCEPTANCE)
    assert result.metrics["one_language"] == 0.5
    failed = [c for c in result.checks if not c.passed]
    assert [c.metric for c in failed] == ["one_language"]
    assert [f["foreign_sentences"] for f in result.failures] == [
        ["La clínica abre a las nueve todos los días laborables."]
    ]


def test_answered_refused_and_abstained_are_counted_per_kind() -> None:
    outcomes = [
        _outcome("answerable", "answered", answer="The clinic opens at nine [1]."),
        _outcome("answerable", "low_confidence"),
        _outcome("answerable", "irrelevant", route="REDIRECT"),
        _outcome("answerable", "cannot_answer"),
        # the booking form ("What's your email? 💌") is routed "answered", but answers nothing
        _outcome("answerable", "answered", route="BOOKING"),
        _outcome("unanswerable", "cannot_answer"),
        _outcome("unanswerable", "answered"),
        _outcome("everyday", "irrelevant", route="REDIRECT"),
        _outcome("everyday", "followup"),
    ]
    result = site_suite("x", outcomes, ACCEPTANCE)
    assert result.metrics["answered"] == 0.4
    assert result.metrics["refused_offtopic"] == 0.2
    # Abstained: the refused and the cannot_answer answerable, one unanswerable.
    assert result.metrics["abstain_precision"] == pytest.approx(1 / 3, abs=1e-3)
    assert result.metrics["abstain_recall"] == 0.5
    assert result.metrics["everyday_refused"] == 0.5
    assert result.metrics["reference_recall"] == pytest.approx(1 / 5)
    assert not result.passed
    assert {f["kind"] for f in result.failures} == {"answerable", "unanswerable", "everyday"}
    assert "answerable-answered-BOOKING" in {f["id"] for f in result.failures}


def test_a_site_that_meets_every_bar_passes_and_abstention_is_not_gated_without_unanswerables() -> (
    None
):
    outcomes = [_outcome("answerable", "answered")] * 50 + [
        _outcome("everyday", "irrelevant", route="REDIRECT")
    ] * 20
    result = site_suite("x", outcomes, ACCEPTANCE)
    assert result.passed
    assert result.metrics["abstain_recall"] is None
    assert {c.metric for c in result.checks} == {
        "answered",
        "answerable_not_refused",
        "everyday_refused",
        "one_language",
    }


def test_one_refused_answerable_in_fifty_breaks_the_two_percent_bar() -> None:
    outcomes = [_outcome("answerable", "answered")] * 48 + [
        _outcome("answerable", "irrelevant", route="REDIRECT")
    ] * 2
    result = site_suite("x", outcomes, ACCEPTANCE)
    failed = {c.metric for c in result.checks if not c.passed}
    assert failed == {"answerable_not_refused"}


def test_query_kinds_follow_the_dataset_flags() -> None:
    assert query_kind({"gold_doc_ids": ["a"]}) == "answerable"
    assert query_kind({"gold_doc_ids": ["-1"]}) == "unanswerable"
    assert query_kind({"gold_doc_ids": ["a"], "answerable": False}) == "unanswerable"
    assert query_kind({"gold_doc_ids": [], "answerable": None}) is None  # not scoreable
    assert query_kind({"kind": "everyday"}) == "everyday"


def test_every_site_file_is_a_valid_site_with_product_defaults(tmp_path: Path) -> None:
    for site in SITES:
        path = tmp_path / f"{site.id}.yaml"
        path.write_text(site_file(site), encoding="utf-8")
        loaded = load_site_file(path).config
        assert loaded.id == site.id
        assert loaded.knowledge.relevance_threshold is None  # nothing tuned per site
        assert loaded.engine.local_reads_meaning is False  # the product's default


def test_a_site_file_can_opt_in_to_reading_by_meaning(tmp_path: Path) -> None:
    path = tmp_path / f"{SITES[0].id}.yaml"
    path.write_text(site_file(SITES[0], reads_meaning=True), encoding="utf-8")
    assert load_site_file(path).config.engine.local_reads_meaning is True


def test_unknown_site_names_the_known_ones() -> None:
    with pytest.raises(SiteDataError, match="clinica-dental-es"):
        site_by_id("nope")


needs_datasets = pytest.mark.skipif(
    not (SHARED_DATASETS / "intent" / "clinc150").is_dir(),
    reason=f"shared datasets not found at {SHARED_DATASETS}",
)


@needs_datasets
def test_the_bundled_clinic_has_every_kind_and_gold_pages_that_exist() -> None:
    site = site_by_id("clinica-dental-es")
    items = load_queries(site, SHARED_DATASETS, FULL)
    kinds = {i.metadata.category for i in items}
    assert kinds == {"answerable", "unanswerable", "everyday"}
    pages = {d.doc_id for d in load_documents(site, SHARED_DATASETS, items, FULL)}
    assert len(pages) == 12
    for item in items:
        assert set(item.expected_output.gold_doc_ids) <= pages, item.id


@needs_datasets
def test_samples_are_stable_subsets_and_keep_every_gold_page() -> None:
    site = site_by_id("nih-health-en")
    small = Sample(answerable=5, unanswerable=3, everyday=4, pages=20)
    items = load_queries(site, SHARED_DATASETS, small)
    assert [i.id for i in items] == [i.id for i in load_queries(site, SHARED_DATASETS, small)]
    bigger = {i.id for i in load_queries(site, SHARED_DATASETS, CI_SAMPLE)}
    assert {i.id for i in items} <= bigger
    pages = {d.doc_id for d in load_documents(site, SHARED_DATASETS, items, small)}
    gold = {g for i in items for g in i.expected_output.gold_doc_ids}
    assert gold <= pages
    assert len(pages) <= len(gold) + 20
    # Everyday requests never come from the out-of-scope rows.
    assert all(not i.id.endswith("oos") for i in items)


@needs_datasets
def test_held_out_questions_are_everything_outside_the_ci_sample() -> None:
    site = site_by_id("covid-faq-en")
    sample = {i.id for i in load_queries(site, SHARED_DATASETS, CI_SAMPLE)}
    everything = {i.id for i in load_queries(site, SHARED_DATASETS, FULL)}
    outside = {i.id for i in load_queries(site, SHARED_DATASETS, held_out())}
    assert outside == everything - sample
    capped = load_queries(site, SHARED_DATASETS, held_out(everyday=25))
    kinds = [i.metadata.category for i in capped]
    assert kinds.count("everyday") == 25
    assert {i.id for i in capped} <= outside
    # The clinic's own questions all sit in the CI sample: none is held out.
    clinic = site_by_id("clinica-dental-es")
    rest = load_queries(clinic, SHARED_DATASETS, held_out(everyday=0))
    assert [i for i in rest if i.metadata.category != "everyday"] == []


def test_floors_never_exceed_the_acceptance_bar() -> None:
    for site in SITES:
        for name, floor in vars(site.floors).items():
            assert floor <= getattr(ACCEPTANCE, name), (site.id, name)

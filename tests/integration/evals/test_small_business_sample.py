"""A sample of the small-business benchmark (benchmarks/small_business.py) through the real
stack: the bike shop's pages on a loopback server, `frontdesk kb crawl`, `frontdesk serve`
and the widget's `POST /v1/chat`, judged as the benchmark judges.

The benchmark's targets (facts ≥ 0.90, cross-language ≥ 0.80, absent ≥ 0.90, small talk
≥ 0.95, reply language 100 %) are its exit code, not this test's. This test holds what
the product does today, so a change that breaks it fails CI:
- every turn completes, and every reply is in the visitor's language;
- the questions in PASSING_TODAY are answered as the benchmark expects.
To tighten it as the answer path improves: run the benchmark with `--sites radwerk
--verbose`, move the ids that now pass from NOT_YET to PASSING_TODAY; once NOT_YET is
empty, replace the per-question check by `missed_targets(verdicts) == []`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from benchmarks.small_business import failures, load_sites, run

pytestmark = pytest.mark.integration

PASSING_TODAY = {
    "hours",  # the hours table, every day
    "hours-saturday",  # "Und am Samstag?" after it, in the same session
    "phone",  # from the footer's tel: link
    "price-tube",  # "Schlauchwechsel" → the "Schlauch wechseln" row
    "payment",  # not on the site: not found, nothing quoted
    "hello",  # a greeting, answered with the introduction
    "en-hours",  # an English question on the German site
    "bye",  # "Tschüss!" → its own goodbye, not the introduction
}
NOT_YET = {
    "scooters",  # a service the site does not mention → the shop's description, quoted
    "en-tube",  # English price question → the German labels are not near enough
}


def test_a_sample_of_the_small_business_benchmark_through_the_real_stack(tmp_path: Path) -> None:
    site = load_sites(["radwerk"])[0]
    chosen = PASSING_TODAY | NOT_YET
    site = dataclasses.replace(site, questions=tuple(q for q in site.questions if q.id in chosen))
    assert {q.id for q in site.questions} == chosen

    verdicts = run([site], folder=tmp_path, progress=False)

    report = failures(verdicts)
    assert len(verdicts) == len(chosen)
    assert all(v.reply.error is None for v in verdicts), report
    assert all(v.language_ok for v in verdicts), report
    passed = {v.question for v in verdicts if v.ok}
    assert passed >= PASSING_TODAY, report

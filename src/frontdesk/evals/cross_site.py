"""`frontdesk eval sites`: the product on other organisations' content, each site gated.

Every question is the first message of a fresh session through the real graph, on a
site built with the product's defaults (`evals/sites.py`). Per site:

- answered: share of answerable questions routed answered, partially_answered or
  low_confidence;
- refused_offtopic: share of answerable questions refused as off-topic (routing
  irrelevant or nonsense) — gated as `answerable_not_refused`;
- abstain precision / recall over answerable + unanswerable questions (abstaining =
  no answer from the knowledge base: followup, cannot_answer, out_of_scope, irrelevant,
  nonsense, or a handoff);
- everyday_refused: share of everyday requests refused as off-topic;
- reference_recall: mean share of the reference answer's content words in the reply,
  where references exist; hit@5 of the turn's own retrieval on answerable questions;
- one_language: share of answers (any question the product answered) without a sentence
  in another language than the visitor's (`text_scores.foreign_sentences`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from frontdesk.evals import metrics as m
from frontdesk.evals.runner import Outcome
from frontdesk.evals.sites import (
    ANSWERED_ROUTINGS,
    REFUSED_ROUTINGS,
    EvalSite,
    Sample,
    SiteGates,
    load_documents,
    load_queries,
    site_file,
)
from frontdesk.evals.suites import Check, SuiteResult
from frontdesk.evals.text_scores import foreign_sentences, reference_overlap
from frontdesk.settings import Settings


def _kind(outcome: Outcome) -> str:
    return outcome.item.metadata.category or ""


def _share(flags: Sequence[bool]) -> float | None:
    return m.ratio(sum(flags), len(flags))


def site_suite(site_id: str, outcomes: Sequence[Outcome], gates: SiteGates) -> SuiteResult:
    """Pure: one site's outcomes in, its metrics and checks out."""
    ran = [o for o in outcomes if not o.error]
    answerable = [o for o in ran if _kind(o) == "answerable"]
    unanswerable = [o for o in ran if _kind(o) == "unanswerable"]
    everyday = [o for o in ran if _kind(o) == "everyday"]
    answered = _share([_answered(o) for o in answerable])
    refused = _share([o.routing in REFUSED_ROUTINGS for o in answerable])
    scored = answerable + unanswerable
    abstain = m.abstain_scores(
        [_kind(o) == "unanswerable" for o in scored], [o.abstained for o in scored]
    )
    everyday_refused = _share([o.routing in REFUSED_ROUTINGS for o in everyday])
    recalls = [
        reference_overlap(o.answer, o.item.expected_output.reference).recall or 0.0
        for o in answerable
        if o.item.expected_output.reference
    ]
    ranks = [
        m.first_relevant_rank(o.retrieved, o.item.expected_output.gold_doc_ids)
        for o in answerable
        if o.item.expected_output.gold_doc_ids
    ]
    answers = [o for o in ran if o.routing in ANSWERED_ROUTINGS and o.answer]
    one_language = _share([not _foreign(o) for o in answers])
    latency = m.latency_summary(o.latency_ms for o in ran)
    metrics: dict[str, Any] = {
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "everyday": len(everyday),
        "errors": len(outcomes) - len(ran),
        "answered": m.rounded(answered),
        "refused_offtopic": m.rounded(refused),
        "abstain_precision": m.rounded(abstain.precision if unanswerable else None),
        "abstain_recall": m.rounded(abstain.recall if unanswerable else None),
        "everyday_refused": m.rounded(everyday_refused),
        "reference_recall": m.rounded(m.mean(recalls)),
        "turn_hit@5": m.rounded(m.hit_at_k(ranks, 5) if ranks else None),
        "one_language": m.rounded(one_language),
        **latency.as_dict(),
    }
    name = f"site:{site_id}"
    checks = [
        Check(name, "answered", answered, gates.answered),
        Check(
            name,
            "answerable_not_refused",
            None if refused is None else 1 - refused,
            gates.not_refused,
        ),
        Check(name, "everyday_refused", everyday_refused, gates.everyday_refused),
        Check(name, "one_language", one_language, gates.one_language),
    ]
    if unanswerable:
        checks += [
            Check(name, "abstain_precision", abstain.precision, gates.abstain_precision),
            Check(name, "abstain_recall", abstain.recall, gates.abstain_recall),
        ]
    if len(ran) < len(outcomes):
        checks.append(
            Check(name, "items_without_error", _share([not o.error for o in outcomes]), 1.0)
        )
    return SuiteResult(
        name=name,
        metrics=metrics,
        checks=checks,
        failures=[_miss(o) for o in outcomes if _missed(o)],
        scores={"reference recall": recalls},
        latencies_ms=list(latency.values),
    )


def _answered(outcome: Outcome) -> bool:
    """The reply answers: "What's your email? 💌" carries the routing "answered" too, but
    a help-centre question that opens the booking form got no answer."""
    return outcome.routing in ANSWERED_ROUTINGS and outcome.route != "BOOKING"


def _foreign(outcome: Outcome) -> list[str]:
    return foreign_sentences(outcome.answer, outcome.language or "en")


def _missed(outcome: Outcome) -> bool:
    kind = _kind(outcome)
    if outcome.error or _foreign(outcome):
        return True
    if kind == "answerable":
        return not _answered(outcome)
    if kind == "unanswerable":
        return not outcome.abstained
    return outcome.routing not in REFUSED_ROUTINGS


def _miss(outcome: Outcome) -> dict[str, Any]:
    return {
        "id": outcome.item.id,
        "kind": _kind(outcome),
        "query": outcome.item.query[:200],
        "intent": outcome.intent,
        "route": outcome.route,
        "reason": outcome.route_reason,
        "routing": outcome.routing,
        "answer": outcome.answer[:200],
        "foreign_sentences": _foreign(outcome),
        "error": outcome.error,
    }


async def run_site(
    site: EvalSite,
    root: Path,
    sample: Sample,
    settings: Settings,
    console: Console,
    gates: SiteGates,
    *,
    progress: bool = True,
    reads_meaning: bool = False,
) -> tuple[SuiteResult, list[dict[str, Any]]]:
    """Build the site, run its items through the graph, score them. `reads_meaning`: the
    site opts in to `engine.local_reads_meaning` (the product's default is off)."""
    from frontdesk.evals.run import _progress, warm_up
    from frontdesk.evals.runner import run_items
    from frontdesk.evals.workspace import open_workspace

    items = load_queries(site, root, sample)
    documents = load_documents(site, root, items, sample)
    sites_dir = settings.data_dir / "eval" / "sites"
    sites_dir.mkdir(parents=True, exist_ok=True)
    (sites_dir / f"{site.id}.yaml").write_text(
        site_file(site, reads_meaning=reads_meaning), encoding="utf-8"
    )
    site_settings = settings.model_copy(update={"sites_dir": sites_dir})
    console.print(f"[bold]{site.id}[/]: {len(documents)} pages, {len(items)} questions")
    async with open_workspace(site_settings, site.id, console, documents) as space:
        await warm_up(space.service, space.site)
        with _progress(console, progress) as bar:
            task = bar.add_task(site.id, total=len(items))
            outcomes = await run_items(
                space.service, space.site, items, advance=lambda: bar.advance(task)
            )
    result = site_suite(site.id, outcomes, gates)
    result.metrics["pages"] = len(documents)
    return result, [{**o.as_dict(), "kind": _kind(o)} for o in outcomes]

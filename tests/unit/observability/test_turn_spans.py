"""A stored turn as a span tree (pure), and exporters that stay off unless configured."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from frontdesk.conversation.payload import Citation, TurnResult
from frontdesk.conversation.persistence import TurnRecord
from frontdesk.observability.spans import ROOT, turn_spans
from frontdesk.observability.tracing import NoExporter, build_exporter, langfuse_callbacks
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.sites.registry import load_site_file

pytestmark = pytest.mark.unit

END = 1_700_000_000_000_000_000
MS = 1_000_000
MESSAGE = "My phone is +49 30 1234567, do you do SSO?"


def record(**changes: object) -> TurnRecord:
    base = TurnRecord(
        site=load_site_file(DEMO_DIR / "sites" / "demo.yaml").config,
        session_id="s-1",
        message=MESSAGE,
        result=TurnResult(
            answer="Yes, single sign-on is included [1].",
            routing="answered",
            route="ANSWER",
            intent="LEARN",
            language="en",
            citations=[Citation(index=1, doc_id="sso", title="SSO", excerpt="SAML")],
            session_id="s-1",
            turn=2,
        ),
        values={
            "retrieval": {
                "chunks": [
                    {"chunk_id": "sso#0", "doc_id": "sso", "score": 0.81},
                    {"chunk_id": "sla#2", "doc_id": "sla", "score": 0.42},
                ]
            },
            "handoff": {"notify": True},
        },
        timings_ms={
            "system_router": 1.5,
            "first_token": 40.0,
            "grade_docs": 3.0,
            "answer_writer": 50.0,
        },
        latency_ms=60.0,
        ended_ns=END,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_nodes_are_laid_end_to_end_backwards_from_the_turn_end() -> None:
    root, *nodes = turn_spans(record())
    assert (root.name, root.start_ns, root.end_ns, root.parent) == (ROOT, END - 60 * MS, END, None)
    assert [n.name for n in nodes] == ["system_router", "grade_docs", "answer_writer"]
    assert all(n.parent == 0 for n in nodes)
    assert [n.end_ns - n.start_ns for n in nodes] == [round(1.5 * MS), 3 * MS, 50 * MS]
    assert nodes[-1].end_ns == END
    assert nodes[0].end_ns == nodes[1].start_ns and nodes[1].end_ns == nodes[2].start_ns
    assert [n.attributes["frontdesk.node.order"] for n in nodes] == [0, 1, 2]
    assert root.events == (("first_token", END - 20 * MS),)


def test_the_turn_span_carries_labels_ids_and_counts_but_no_text() -> None:
    attributes = turn_spans(record())[0].attributes
    assert attributes["frontdesk.route"] == "ANSWER"
    assert attributes["frontdesk.routing"] == "answered"
    assert attributes["frontdesk.intent"] == "LEARN"
    assert attributes["session.id"] == "s-1"
    assert attributes["frontdesk.turn"] == 2
    assert attributes["frontdesk.nodes"] == ["system_router", "grade_docs", "answer_writer"]
    assert attributes["frontdesk.retrieval.chunk_ids"] == ["sso#0", "sla#2"]
    assert attributes["frontdesk.retrieval.scores"] == [0.81, 0.42]
    assert attributes["frontdesk.citations.count"] == 1
    assert attributes["frontdesk.handoff"] is True
    assert "frontdesk.model" not in attributes  # None is left out, not sent as ""
    texts = [v for v in attributes.values() if isinstance(v, str)]
    assert not any("+49" in t or "single sign-on" in t for t in texts)
    with_content = turn_spans(record(), content=True)[0].attributes
    assert with_content["frontdesk.input"] == MESSAGE


def test_model_calls_nest_under_the_node_that_made_them() -> None:
    calls = [
        {"node": "llm:answer_writer", "ms": 10.0, "model": "openai:gpt-4.1-mini", "ok": False},
        {"node": "llm:answer_writer", "ms": 30.0, "model": "openai:gpt-4.1-nano", "ok": True},
        {"node": "llm:judge", "ms": 5.0, "model": "local", "tokens_in": 7},
    ]
    plans = turn_spans(record(llm_calls=calls))
    writer = next(i for i, p in enumerate(plans) if p.name == "answer_writer")
    first, second, judge = plans[-3:]
    assert (first.parent, second.parent, judge.parent) == (writer, writer, 0)
    assert second.end_ns == plans[writer].end_ns  # the last call ends with its node
    assert first.end_ns == second.start_ns
    assert (first.ok, second.ok) == (False, True)
    assert second.attributes["gen_ai.system"] == "openai"
    assert second.attributes["gen_ai.request.model"] == "gpt-4.1-nano"
    assert judge.attributes["gen_ai.request.model"] == "local"
    assert "gen_ai.system" not in judge.attributes
    assert judge.end_ns == END and judge.attributes["gen_ai.usage.input_tokens"] == 7


def test_parallel_nodes_longer_than_the_turn_are_clipped_to_its_start() -> None:
    plans = turn_spans(record(timings_ms={"intent_classifier": 50.0, "signals_detector": 45.0}))
    root, first, second = plans
    assert first.start_ns == root.start_ns  # 95 ms of nodes in a 60 ms turn
    assert second.end_ns - second.start_ns == 45 * MS
    assert first.attributes["frontdesk.node.ms"] == 50.0


def test_the_retry_search_is_an_attribute_inside_its_node_not_a_span() -> None:
    timings = {
        "grade_docs": 3.0,
        "retry_search": 4.0,
        "retry_retrieval": 5.0,
        "answer_writer": 50.0,
    }
    root, *nodes = turn_spans(record(timings_ms=timings))
    assert [n.name for n in nodes] == ["grade_docs", "retry_retrieval", "answer_writer"]
    assert root.attributes["frontdesk.retry_search_ms"] == 4.0
    assert "retry_search" not in root.attributes["frontdesk.nodes"]


def test_nothing_configured_means_no_exporter_and_no_callbacks() -> None:
    settings = Settings(langfuse_public_key="", langfuse_secret_key="")
    assert isinstance(build_exporter(settings), NoExporter)
    assert langfuse_callbacks(settings) == []
    assert langfuse_callbacks(settings.model_copy(update={"langfuse_public_key": "pk"})) == []


def test_missing_packages_turn_exporters_off_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    monkeypatch.setitem(sys.modules, "langfuse", None)
    settings = Settings(
        otel_endpoint="http://127.0.0.1:4318/v1/traces",
        langfuse_public_key="pk",
        langfuse_secret_key="sk",
    )
    assert isinstance(build_exporter(settings), NoExporter)
    assert langfuse_callbacks(settings) == []
    assert "frontdesk[otel]" in caplog.text and "frontdesk[langfuse]" in caplog.text

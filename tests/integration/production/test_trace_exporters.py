"""Trace exporters against a loopback OTLP/HTTP collector: real turns through the local
engine exported as OpenTelemetry spans, a collector that is down, and the Langfuse
LangChain callback sending its spans to a loopback "Langfuse host"."""

from __future__ import annotations

import base64
import shutil
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from otlp import ExportedSpan, OtlpReceiver, closed_port_url
from sqlalchemy.orm import Session, sessionmaker

from frontdesk.conversation.payload import Citation, CompleteEvent, TurnResult, VisitorContext
from frontdesk.conversation.persistence import Kept, OpenedTurn, TurnRecord, TurnWriter
from frontdesk.conversation.service import ChatService
from frontdesk.observability.tracing import OtelExporter, TurnExporter, langfuse_callbacks
from frontdesk.runtime import build_runtime
from frontdesk.settings import DEMO_DIR, Settings
from frontdesk.sites.registry import load_site_file

pytestmark = pytest.mark.integration

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

EMAIL = "jane.doe@example.com"
MESSAGE = f"Does Tessellate support SAML single sign-on for {EMAIL}?"


class ExportingWriter(TurnWriter):
    """Persists the turn, then exports it: the call ChatService makes after the write."""

    def __init__(self, sessions: sessionmaker[Session], exporter: TurnExporter) -> None:
        super().__init__(sessions)
        self.exporter = exporter
        self.records: list[TurnRecord] = []
        self.export_s: list[float] = []

    def write(self, record: TurnRecord, opened: OpenedTurn | None = None) -> Kept:
        kept = super().write(record, opened)
        started = time.perf_counter()
        self.exporter.export(record)
        self.export_s.append(time.perf_counter() - started)
        self.records.append(record)
        return kept


@pytest.fixture
def collector() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as receiver:
        yield receiver


@pytest.fixture
async def service(ingested_demo: Settings, tmp_path: Path) -> AsyncIterator[ChatService]:
    data = tmp_path / "data"
    shutil.copytree(ingested_demo.data_dir, data)
    chat = ChatService(build_runtime(Settings(data_dir=data, sites_dir=ingested_demo.sites_dir)))
    yield chat
    await chat.close()
    chat.runtime.close()


async def run_turn(service: ChatService, session_id: str, text: str) -> CompleteEvent:
    site = service.runtime.site("demo")
    events = [e async for e in service.stream_turn(site, session_id, text, VisitorContext())]
    assert isinstance(events[-1], CompleteEvent), events[-1]
    return events[-1]


def by_name(spans: list[ExportedSpan], name: str) -> ExportedSpan:
    [span] = [s for s in spans if s.name == name]
    return span


def sample_record(**changes: object) -> TurnRecord:
    """A turn of the llm engine: three nodes, two model calls (one failed)."""
    record = TurnRecord(
        site=load_site_file(DEMO_DIR / "sites" / "demo.yaml").config,
        session_id="s-llm",
        message=MESSAGE,
        result=TurnResult(
            answer="Yes, SAML 2.0 single sign-on is included [1].",
            routing="answered",
            route="ANSWER",
            intent="LEARN",
            language="en",
            citations=[Citation(index=1, doc_id="sso", title="SSO", excerpt="SAML 2.0")],
            session_id="s-llm",
            turn=3,
        ),
        values={"retrieval": {"chunks": [{"chunk_id": "sso#0", "doc_id": "sso", "score": 0.8}]}},
        timings_ms={"intent_classifier": 120.0, "answer_writer": 400.0, "first_token": 300.0},
        latency_ms=600.0,
        engine="llm",
        model="openai:gpt-4.1-mini",
        prompt_version="answer_writer@3",
        tokens_in=900,
        tokens_out=60,
        cost_usd=0.000456,
        llm_calls=[
            {"node": "llm:intent_classifier", "ms": 100.0, "model": "openai:gpt-4.1-nano",
             "tokens_in": 300, "tokens_out": 10, "ok": False},
            {"node": "llm:answer_writer", "ms": 350.0, "model": "openai:gpt-4.1-mini",
             "tokens_in": 600, "tokens_out": 50, "ok": True},
        ],
    )  # fmt: skip
    return replace(record, **changes)  # type: ignore[arg-type]


# -- OpenTelemetry -------------------------------------------------------------------------
async def test_a_real_turn_arrives_as_a_turn_span_with_its_nodes_in_order(
    service: ChatService, collector: OtlpReceiver
) -> None:
    exporter = OtelExporter(f"{collector.url}/v1/traces", service_name="frontdesk-test")
    writer = ExportingWriter(service.runtime.sessions, exporter)
    service.writer = writer
    session_id = str(uuid.uuid4())
    try:
        done = await run_turn(service, session_id, MESSAGE)
        assert exporter.force_flush()
    finally:
        exporter.shutdown()

    [record] = writer.records
    assert {r.path for r in collector.requests} == {"/v1/traces"}
    spans = collector.spans()
    root = by_name(spans, "frontdesk.turn")
    assert root.parent_span_id == ""
    assert root.resource["service.name"] == "frontdesk-test"
    assert root.scope == "frontdesk"
    assert root.end_ns == record.ended_ns
    assert root.duration_ns == round(record.latency_ms * 1_000_000)

    attributes = root.attributes
    assert attributes["frontdesk.site"] == "demo"
    assert attributes["session.id"] == session_id
    assert attributes["frontdesk.turn"] == done.result.turn == 1
    assert attributes["frontdesk.route"] == done.result.route
    assert attributes["frontdesk.routing"] == done.result.routing
    assert attributes["frontdesk.intent"] == done.result.intent
    assert attributes["frontdesk.language"] == "en"
    assert attributes["frontdesk.engine"] == "local"
    assert attributes["frontdesk.tokens_in"] == attributes["frontdesk.tokens_out"] == 0
    assert attributes["frontdesk.citations.count"] == len(done.result.citations)
    chunks = record.values["retrieval"]["chunks"]
    assert chunks, "the SSO question retrieves passages"
    assert attributes["frontdesk.retrieval.chunk_ids"] == [c["chunk_id"] for c in chunks]
    assert attributes["frontdesk.retrieval.scores"] == pytest.approx([c["score"] for c in chunks])
    assert attributes["frontdesk.first_token_ms"] == record.timings_ms["first_token"]
    assert [name for name, _ in root.events] == ["first_token"]

    nodes = [name for name in record.timings_ms if name != "first_token"]
    assert attributes["frontdesk.nodes"] == nodes
    children = sorted(
        (s for s in spans if s.parent_span_id == root.span_id), key=lambda s: s.start_ns
    )
    assert [s.name for s in children] == nodes
    assert all(s.trace_id == root.trace_id for s in children)
    assert children[-1].end_ns == root.end_ns
    for index, span in enumerate(children):
        assert span.attributes["frontdesk.node.order"] == index
        assert span.attributes["frontdesk.node.ms"] == record.timings_ms[span.name]
        if span.start_ns > root.start_ns:  # the first may be clipped to the turn's start
            assert span.duration_ns == round(record.timings_ms[span.name] * 1_000_000)
        if index:
            assert children[index - 1].end_ns == span.start_ns
    assert len(spans) == 1 + len(nodes)  # the local engine makes no model calls

    raw = collector.raw()
    for private in (MESSAGE, EMAIL, done.result.answer):
        assert private.encode() not in raw


async def test_model_calls_become_gen_ai_spans_under_their_node(collector: OtlpReceiver) -> None:
    exporter = OtelExporter(f"{collector.url}/v1/traces")
    record = sample_record()
    exporter.export(record)
    assert exporter.force_flush()
    exporter.shutdown()

    spans = collector.spans()
    assert [s.name for s in spans].count("frontdesk.turn") == 1
    writer, classify = by_name(spans, "answer_writer"), by_name(spans, "intent_classifier")
    call = by_name(spans, "llm:answer_writer")
    assert call.parent_span_id == writer.span_id
    assert call.end_ns == writer.end_ns
    assert call.duration_ns == 350_000_000
    assert call.attributes["gen_ai.system"] == "openai"
    assert call.attributes["gen_ai.request.model"] == "gpt-4.1-mini"
    assert call.attributes["gen_ai.usage.input_tokens"] == 600
    assert call.attributes["gen_ai.usage.output_tokens"] == 50
    assert call.status_code == 0  # unset
    failed = by_name(spans, "llm:intent_classifier")
    assert failed.parent_span_id == classify.span_id
    assert failed.status_code == 2  # error
    root = by_name(spans, "frontdesk.turn").attributes
    assert root["frontdesk.model"] == "openai:gpt-4.1-mini"
    assert root["frontdesk.prompt_version"] == "answer_writer@3"
    assert root["frontdesk.cost_usd"] == pytest.approx(0.000456)
    assert root["frontdesk.citations.doc_ids"] == ["sso"]
    assert "frontdesk.input" not in root
    assert MESSAGE.encode() not in collector.raw()


async def test_message_text_is_exported_only_when_the_setting_allows(
    collector: OtlpReceiver,
) -> None:
    exporter = OtelExporter(f"{collector.url}/v1/traces", content=True)
    exporter.export(sample_record())
    assert exporter.force_flush()
    exporter.shutdown()
    root = by_name(collector.spans(), "frontdesk.turn").attributes
    assert root["frontdesk.input"] == MESSAGE
    assert root["frontdesk.output"].startswith("Yes, SAML 2.0")


async def test_a_collector_that_is_down_never_touches_the_turn(service: ChatService) -> None:
    exporter = OtelExporter(f"{closed_port_url()}/v1/traces", timeout_s=1.0)
    writer = ExportingWriter(service.runtime.sessions, exporter)
    service.writer = writer
    session_id = str(uuid.uuid4())
    try:
        done = await run_turn(service, session_id, MESSAGE)
        again = await run_turn(service, session_id, "And SCIM provisioning?")
        exporter.force_flush(timeout_s=2.0)  # delivery fails, quietly
    finally:
        started = time.perf_counter()
        exporter.shutdown()
        shutdown_s = time.perf_counter() - started

    assert (done.result.turn, again.result.turn) == (1, 2)
    stored = service.transcripts.export("demo", session_id)
    assert [t["turn"] for t in stored["traces"]] == [1, 2]
    assert max(writer.export_s) < 0.1  # queued, not sent, on the turn's path
    assert shutdown_s < 10


# -- Langfuse ------------------------------------------------------------------------------
def langfuse_settings(host: str, *, content: bool = False) -> tuple[Settings, str]:
    public_key = f"pk-lf-test-{uuid.uuid4().hex[:8]}"  # Langfuse keeps one client per key
    settings = Settings(
        langfuse_host=host,
        langfuse_public_key=public_key,
        langfuse_secret_key="sk-lf-test",
        trace_content=content,
    )
    return settings, public_key


async def run_chain_with(settings: Settings, public_key: str) -> str:
    """A tiny real LangChain runnable (prompt → fake chat model) with the callback."""
    pytest.importorskip("langfuse", reason="the langfuse extra is not installed")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.runnables import RunnableLambda
    from langfuse import get_client

    callbacks = langfuse_callbacks(settings)
    assert len(callbacks) == 1
    model = GenericFakeChatModel(messages=iter([AIMessage(content="Yes, SAML is included.")]))
    chain = RunnableLambda(lambda text: [HumanMessage(content=text)]) | model
    reply = await chain.ainvoke(MESSAGE, config={"callbacks": callbacks, "run_name": "turn"})
    client = get_client(public_key=public_key)
    client.flush()
    client.shutdown()
    return str(reply.content)


async def test_langfuse_callback_sends_the_run_to_the_langfuse_host(
    collector: OtlpReceiver,
) -> None:
    settings, public_key = langfuse_settings(collector.url)
    assert await run_chain_with(settings, public_key) == "Yes, SAML is included."

    traces = [r for r in collector.requests if r.path == "/api/public/otel/v1/traces"]
    assert traces, [r.path for r in collector.requests]
    expected = base64.b64encode(f"{public_key}:sk-lf-test".encode()).decode()
    assert traces[0].headers["authorization"] == f"Basic {expected}"
    spans = collector.spans()
    names = {s.name for s in spans}
    assert "turn" in names  # the root run
    assert "GenericFakeChatModel" in names  # the model call, as a generation
    assert len({s.trace_id for s in spans}) == 1
    assert all(s.resource.get("service.name") == "frontdesk" for s in spans)
    raw = collector.raw()
    assert MESSAGE.encode() not in raw and EMAIL.encode() not in raw
    assert b"Yes, SAML is included." not in raw
    assert any(s.attributes.get("frontdesk.content_redacted") for s in spans)


async def test_langfuse_gets_inputs_and_outputs_when_content_is_allowed(
    collector: OtlpReceiver,
) -> None:
    settings, public_key = langfuse_settings(collector.url, content=True)
    await run_chain_with(settings, public_key)
    raw = collector.raw()
    assert EMAIL.encode() in raw
    assert b"Yes, SAML is included." in raw

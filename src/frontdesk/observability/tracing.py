"""Optional trace exporters: OpenTelemetry spans per turn, a Langfuse graph-run callback.

The stored trace (`frontdesk traces`, the admin API) is always written and is the record
of truth; these send a copy to the operator's tracing backend when configured:

- `FRONTDESK_OTEL_ENDPOINT` (an OTLP/HTTP traces URL): `build_exporter` returns an
  exporter that turns each persisted `TurnRecord` into spans (`observability/spans.py`)
  after the fact. `export` only queues the record; background threads build the spans
  and send them in batches, so a slow or absent collector never delays a turn.
- Langfuse keys: `langfuse_callbacks` returns the Langfuse LangChain callback handler,
  added to the graph run's callbacks, so Langfuse sees every node and model call live.

Both stay off, and import nothing, when not configured; the packages are the optional
extras `frontdesk[otel]` and `frontdesk[langfuse]`. Message text, answers and model
inputs/outputs are only exported with `FRONTDESK_TRACE_CONTENT=true`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
from typing import TYPE_CHECKING, Any, Protocol

from frontdesk.observability.spans import turn_spans

if TYPE_CHECKING:
    from langchain_core.callbacks import BaseCallbackHandler

    from frontdesk.conversation.persistence import TurnRecord
    from frontdesk.settings import Settings

log = logging.getLogger(__name__)

TRACER_NAME = "frontdesk"
EXPORT_TIMEOUT_S = 5.0
# Attributes of Langfuse spans that carry model inputs/outputs (dropped without content).
LANGFUSE_CONTENT_KEYS = ("langfuse.observation.input", "langfuse.observation.output")


class TurnExporter(Protocol):
    def export(self, record: TurnRecord) -> None:
        """Queue the spans of one persisted turn; never raises, never blocks on I/O."""

    def force_flush(self, timeout_s: float = EXPORT_TIMEOUT_S) -> bool:
        """Send what is queued (tests, shutdown); True when everything went out."""

    def shutdown(self) -> None:
        """Flush and stop the background sender."""


class NoExporter:
    """Nothing configured: exporting costs one method call."""

    def export(self, record: TurnRecord) -> None:
        return None

    def force_flush(self, timeout_s: float = EXPORT_TIMEOUT_S) -> bool:
        return True

    def shutdown(self) -> None:
        return None


class OtelExporter:
    """Turns as OpenTelemetry spans, sent over OTLP/HTTP by a batch span processor.

    `export` only queues the record (about a microsecond): a daemon thread builds the
    spans (some 20 µs each) and hands them to the `BatchSpanProcessor`, whose own thread
    sends them. When either queue is full — a collector that is down or slow — turns
    are dropped from the export and counted in `dropped`, never waited for.

    The exporter has its own `TracerProvider`: it neither installs nor uses the global
    one, so it coexists with any instrumentation the host process sets up. The standard
    `OTEL_BSP_*` (batching), `OTEL_TRACES_SAMPLER` and `OTEL_EXPORTER_OTLP_TRACES_HEADERS`
    environment variables apply.
    """

    def __init__(
        self,
        endpoint: str,
        *,
        service_name: str = "frontdesk",
        content: bool = False,
        timeout_s: float = EXPORT_TIMEOUT_S,
        max_pending: int = 1024,
    ) -> None:
        from opentelemetry.context import Context
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.trace import Status, StatusCode, set_span_in_context

        from frontdesk import __version__

        self.endpoint = endpoint
        self.content = content
        self.dropped = 0
        self._provider = TracerProvider(
            resource=Resource.create({"service.name": service_name, "service.version": __version__})
        )
        self._provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, timeout=timeout_s))
        )
        self._tracer = self._provider.get_tracer(TRACER_NAME, __version__)
        self._new_trace = Context()  # a turn starts its own trace, whatever is ambient
        self._in_span = set_span_in_context
        self._error = Status(StatusCode.ERROR)
        self._max_pending = max_pending
        self._pending: queue.Queue[TurnRecord | threading.Event | None] = queue.Queue()
        self._pid = 0  # the worker is started by the first export, in the serving process
        self._start_lock = threading.Lock()
        self._closed = False
        self._warned = False

    def export(self, record: TurnRecord) -> None:
        if self._closed:
            return
        if self._pid != os.getpid():
            self._start_worker()
        try:
            self._pending.put_nowait(record)
        except queue.Full:
            self.dropped += 1

    def _start_worker(self) -> None:
        # Also after a fork: the parent's thread does not exist in the child.
        with self._start_lock:
            if self._pid == os.getpid():
                return
            self._pending = queue.Queue(self._max_pending)
            worker = threading.Thread(
                target=self._work, args=(self._pending,), name="frontdesk-trace-export"
            )
            worker.daemon = True
            worker.start()
            self._pid = os.getpid()

    def _work(self, pending: queue.Queue[TurnRecord | threading.Event | None]) -> None:
        while True:
            item = pending.get()
            if item is None:
                return
            if isinstance(item, threading.Event):
                item.set()  # a flush marker: everything queued before it is built
                continue
            try:
                self._build(item)
            except Exception:
                if not self._warned:
                    self._warned = True
                    log.warning("could not build the spans of a turn", exc_info=True)

    def _build(self, record: TurnRecord) -> None:
        plans = turn_spans(record, content=self.content)
        spans: list[Any] = []
        for plan in plans:
            parent = self._new_trace if plan.parent is None else self._in_span(spans[plan.parent])
            span = self._tracer.start_span(
                plan.name, context=parent, attributes=plan.attributes, start_time=plan.start_ns
            )
            for name, timestamp in plan.events:
                span.add_event(name, timestamp=timestamp)
            if not plan.ok:
                span.set_status(self._error)
            spans.append(span)
        for span, plan in zip(spans, plans, strict=True):
            span.end(end_time=plan.end_ns)

    def _drain(self, timeout_s: float) -> bool:
        if self._pid != os.getpid():
            return True  # nothing was queued in this process
        marker = threading.Event()
        try:
            self._pending.put(marker, timeout=timeout_s)
        except queue.Full:
            return False
        return marker.wait(timeout_s)

    def force_flush(self, timeout_s: float = EXPORT_TIMEOUT_S) -> bool:
        """Build what is queued and send it. Blocks on the network: not on the event loop."""
        built = self._drain(timeout_s)
        return self._provider.force_flush(int(timeout_s * 1000)) and built

    def shutdown(self) -> None:
        """Send what is queued and stop (blocks up to the export timeout per batch)."""
        if self._closed:
            return
        self._drain(EXPORT_TIMEOUT_S)
        self._closed = True
        if self._pid == os.getpid():
            with contextlib.suppress(queue.Full):
                self._pending.put(None, timeout=EXPORT_TIMEOUT_S)
        self._provider.shutdown()


def build_exporter(settings: Settings) -> TurnExporter:
    """The OpenTelemetry exporter when `otel_endpoint` is set, else one that does nothing."""
    if not settings.otel_endpoint:
        return NoExporter()
    try:
        exporter = OtelExporter(
            settings.otel_endpoint,
            service_name=settings.otel_service_name,
            content=settings.trace_content,
        )
    except ImportError:
        log.warning(
            "FRONTDESK_OTEL_ENDPOINT is set but OpenTelemetry is not installed "
            "(pip install 'frontdesk[otel]'); turns are not exported"
        )
        return NoExporter()
    log.info("exporting turn traces to %s", settings.otel_endpoint)
    return exporter


def langfuse_callbacks(settings: Settings) -> list[BaseCallbackHandler]:
    """[the Langfuse LangChain handler] when both Langfuse keys are set, else [].

    Build once per process and pass with every graph run. Langfuse keeps one client per
    public key: the first one created decides host and masking, so call this before
    anything else in the process uses Langfuse (prompt fetching, datasets).
    """
    if not (settings.langfuse_public_key and settings.langfuse_secret_key):
        return []
    try:
        from langfuse import Langfuse
        from langfuse.langchain import CallbackHandler
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError:
        log.warning(
            "Langfuse keys are set but the langfuse package is not installed "
            "(pip install 'frontdesk[langfuse]'); graph runs are not sent to Langfuse"
        )
        return []
    Langfuse(
        public_key=settings.langfuse_public_key,
        secret_key=settings.langfuse_secret_key,
        base_url=settings.langfuse_host.rstrip("/"),
        # Its own provider: Langfuse would otherwise install itself as the global one.
        tracer_provider=TracerProvider(
            resource=Resource.create({"service.name": settings.otel_service_name})
        ),
        mask_otel_spans=None if settings.trace_content else _without_content,
    )
    log.info("sending graph runs to Langfuse at %s", settings.langfuse_host)
    return [CallbackHandler(public_key=settings.langfuse_public_key)]


def _without_content(*, params: Any) -> Any:
    """Langfuse export-stage mask: drop observation inputs/outputs (messages, prompts)."""
    from langfuse.types import MaskOtelSpansResult, OtelSpanPatch

    patch = OtelSpanPatch(
        delete_attributes=LANGFUSE_CONTENT_KEYS,
        set_attributes={"frontdesk.content_redacted": True},
    )
    return MaskOtelSpansResult(
        span_patches={
            identifier: patch
            for identifier, span in params.spans.items()
            if any(key in span.attributes for key in LANGFUSE_CONTENT_KEYS)
        }
    )

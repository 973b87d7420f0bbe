"""A loopback OTLP/HTTP collector for exporter tests: a stdlib HTTP server thread on
127.0.0.1 that keeps every request and decodes the protobuf trace payloads."""

from __future__ import annotations

import gzip
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes  # decompressed


@dataclass
class ExportedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    events: list[tuple[str, int]]
    status_code: int
    scope: str
    resource: dict[str, Any]

    @property
    def duration_ns(self) -> int:
        return self.end_ns - self.start_ns


class OtlpReceiver:
    """`with OtlpReceiver() as collector:` … `collector.url`, `collector.spans()`."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        received = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                headers = {k.lower(): v for k, v in self.headers.items()}
                received.append(Received(self.path, headers, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def raw(self) -> bytes:
        return b"".join(r.body for r in self.requests)

    def spans(self) -> list[ExportedSpan]:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        spans: list[ExportedSpan] = []
        for request in self.requests:
            message = ExportTraceServiceRequest.FromString(request.body)
            for resource_spans in message.resource_spans:
                resource = _attributes(resource_spans.resource.attributes)
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        spans.append(
                            ExportedSpan(
                                name=span.name,
                                trace_id=span.trace_id.hex(),
                                span_id=span.span_id.hex(),
                                parent_span_id=span.parent_span_id.hex(),
                                start_ns=span.start_time_unix_nano,
                                end_ns=span.end_time_unix_nano,
                                attributes=_attributes(span.attributes),
                                events=[(e.name, e.time_unix_nano) for e in span.events],
                                status_code=span.status.code,
                                scope=scope_spans.scope.name,
                                resource=resource,
                            )
                        )
        return spans


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def closed_port_url() -> str:
    """A loopback URL nothing listens on (the port was bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"

"""A loopback server speaking the OpenAI chat-completions API, for fault-injection tests
and the TTFT and load benchmarks (`python -m tests.support.simulator --port N` from the
repository root serves it in a process of its own).

Per model name it follows a script of behaviours, one per request, then answers `ok`:
`error:500`, `error:429`, `slow:<seconds>` (late first token / late reply), `drop:<n>`
(stream n tokens, then cut the connection), `garbage` (a reply that is not the schema).
Structured calls (forced tool calls or `response_format`) are answered with a value built
from the request's JSON schema, or by `structured(name, schema)` when given. Every
request body is kept in `requests` so tests can check what left the process.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.ports import ThreadedServer, free_port, serve_on_loopback

Structured = Callable[[str, dict[str, Any]], dict[str, Any] | None]
_VISITOR = re.compile(r"<visitor_message>\\n(.*?)\\n</visitor_message>")
DEFAULT_ANSWER = "Tessellate syncs your data every five minutes [1]. It supports SSO via SAML [2]."


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved: dict[str, Any] = root.get("$defs", {})[ref.split("/")[-1]]
        return resolved
    return schema


def sample(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """A valid, benign instance of a JSON schema (first enum value, empty lists)."""
    root = root or schema
    schema = _resolve(schema, root)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [o for o in schema[key] if _resolve(o, root).get("type") != "null"]
            return sample(options[0] if options else schema[key][0], root)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {name: sample(sub, root) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return []
    if kind == "string":
        return "simulated"
    if kind == "integer":
        return int(schema.get("maximum", 1))
    if kind == "number":
        return float(schema.get("maximum", 1.0))
    if kind == "boolean":
        return False
    return None


class SimulatedProvider:
    def __init__(
        self,
        *,
        classify_delay_s: float = 0.0,
        first_token_delay_s: float = 0.0,
        tokens_per_s: float = 0.0,
        answer: str = DEFAULT_ANSWER,
        structured: Structured | None = None,
        echo_query: bool = False,
    ) -> None:
        self.classify_delay_s = classify_delay_s
        self.first_token_delay_s = first_token_delay_s
        self.tokens_per_s = tokens_per_s
        self.answer = answer
        self.structured = structured
        self.echo_query = echo_query  # rewrites answer with the visitor's own words
        self.scripts: dict[str, deque[str]] = defaultdict(deque)
        self.requests: list[dict[str, Any]] = []
        self.port = 0
        self._server: ThreadedServer | None = None

    # -- scripting -----------------------------------------------------------------
    def script(self, model: str, *behaviours: str) -> None:
        self.scripts[model].extend(behaviours)

    def calls(self, model: str | None = None, *, stream: bool | None = None) -> int:
        return sum(
            1
            for body in self.requests
            if (model is None or body.get("model") == model)
            and (stream is None or bool(body.get("stream")) == stream)
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- the API -------------------------------------------------------------------
    async def chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        queue = self.scripts.get(body.get("model", ""))
        behaviour = queue.popleft() if queue else "ok"
        kind, _, arg = behaviour.partition(":")
        if kind == "error":
            status = int(arg or 500)
            return JSONResponse(
                {"error": {"message": f"simulated {status}", "type": "server_error"}},
                status_code=status,
                headers={"retry-after-ms": "10"} if status == 429 else None,
            )
        delay = float(arg) if kind == "slow" else None
        if body.get("stream"):
            drop_after = int(arg or 2) if kind == "drop" else None
            return StreamingResponse(
                self._stream(body, delay, drop_after), media_type="text/event-stream"
            )
        await asyncio.sleep(self.classify_delay_s if delay is None else delay)
        return JSONResponse(self._completion(body, garbage=kind == "garbage"))

    def _structured_value(
        self, name: str, schema: dict[str, Any], body: dict[str, Any]
    ) -> dict[str, Any]:
        if self.echo_query and name == "QueryOutput":
            found = _VISITOR.search(json.dumps(body.get("messages", [])))
            if found:
                return {"reasoning": "echo", "query": json.loads(f'"{found.group(1)}"')}
        value = self.structured(name, schema) if self.structured else None
        return value if value is not None else dict(sample(schema))

    def _completion(self, body: dict[str, Any], garbage: bool) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None}
        tools = body.get("tools") or []
        choice = body.get("tool_choice")
        if tools:
            wanted = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
            tool = next((t for t in tools if t["function"]["name"] == wanted), tools[0])
            fn = tool["function"]
            args = (
                "{not json"
                if garbage
                else json.dumps(self._structured_value(fn["name"], fn.get("parameters", {}), body))
            )
            message["tool_calls"] = [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": fn["name"], "arguments": args},
                }
            ]
        else:
            fmt = body.get("response_format") or {}
            schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
            if garbage:
                message["content"] = "I think the answer is LEARN."
            elif schema:
                name = (fmt.get("json_schema") or {}).get("name") or schema.get("title", "")
                message["content"] = json.dumps(self._structured_value(name, schema, body))
            else:
                message["content"] = self.answer
        prompt_tokens = max(1, len(json.dumps(body.get("messages", []))) // 4)
        completion_tokens = max(1, len(json.dumps(message)) // 4)
        return {
            "id": "chatcmpl-sim",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "sim"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    async def _stream(
        self, body: dict[str, Any], delay: float | None, drop_after: int | None
    ) -> AsyncIterator[bytes]:
        def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
            chunk = {
                "id": "chatcmpl-sim",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": body.get("model", "sim"),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(chunk)}\n\n".encode()

        yield event({"role": "assistant", "content": ""})
        await asyncio.sleep(self.first_token_delay_s if delay is None else delay)
        pieces = [w + " " for w in self.answer.split(" ")]
        pieces[-1] = pieces[-1].rstrip()
        for index, piece in enumerate(pieces):
            if drop_after is not None and index >= drop_after:
                raise ConnectionError("simulated dropped stream")
            if index and self.tokens_per_s:
                await asyncio.sleep(1 / self.tokens_per_s)
            yield event({"content": piece})
        yield event({}, finish="stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            prompt_tokens = max(1, len(json.dumps(body.get("messages", []))) // 4)
            usage = {
                "id": "chatcmpl-sim",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": body.get("model", "sim"),
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": len(pieces),
                    "total_tokens": prompt_tokens + len(pieces),
                },
            }
            yield f"data: {json.dumps(usage)}\n\n".encode()
        yield b"data: [DONE]\n\n"

    # -- lifecycle -----------------------------------------------------------------
    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.chat, methods=["POST"])])

    def start(self) -> SimulatedProvider:
        self.port = free_port()
        self._server = serve_on_loopback(self.app(), self.port, "simulated provider")
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._server = None

    def __enter__(self) -> SimulatedProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """Serve in a process of its own (the benchmark's provider is not in its process)."""
    import argparse

    parser = argparse.ArgumentParser(description="Simulated OpenAI-compatible provider")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--classify-delay-s", type=float, default=0.0)
    parser.add_argument("--first-token-delay-s", type=float, default=0.0)
    parser.add_argument("--tokens-per-s", type=float, default=0.0)
    parser.add_argument("--echo-query", action="store_true", help="rewrites echo the visitor")
    args = parser.parse_args(argv)

    provider = SimulatedProvider(
        classify_delay_s=args.classify_delay_s,
        first_token_delay_s=args.first_token_delay_s,
        tokens_per_s=args.tokens_per_s,
        echo_query=args.echo_query,
    )
    uvicorn.run(provider.app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()

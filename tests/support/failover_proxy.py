"""A TCP load balancer stand-in on loopback: each new connection goes to the first
upstream that accepts it, so when the first replica dies its connections break and the
next ones reach the second (what a reverse proxy with health checks does for a widget
that only knows one API URL). Bytes are piped as they come: SSE streams stay streams."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence

from tests.support.ports import free_port


class FailoverProxy:
    def __init__(self, upstream_ports: Sequence[int], port: int | None = None) -> None:
        self.upstream_ports = list(upstream_ports)
        self.port = port or free_port()
        self.connections: dict[int, int] = {p: 0 for p in self.upstream_ports}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FailoverProxy:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._listen(), self._loop)
        future.result(timeout=10)
        return self

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def __enter__(self) -> FailoverProxy:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _handle(self, client: asyncio.StreamReader, to_client: asyncio.StreamWriter) -> None:
        for port in self.upstream_ports:
            try:
                upstream, to_upstream = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue  # refused: that replica is down, try the next
            self.connections[port] += 1
            break
        else:
            to_client.close()
            return
        await asyncio.gather(self._pipe(client, to_upstream), self._pipe(upstream, to_client))

    @staticmethod
    async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                target.write(data)
                await target.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                target.close()

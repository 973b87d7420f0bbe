"""Ports on the loopback interface."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn


def free_port() -> int:
    """A TCP port nothing listens on right now (also how to get a refused connection)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ThreadedServer:
    """A uvicorn server on a daemon thread: how the loopback test peers listen."""

    def __init__(self, config: Any, name: str) -> None:
        self.server = uvicorn.Server(config)
        self.name = name
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self, timeout_s: float = 10) -> None:
        self.thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError(f"{self.name} did not start")
            time.sleep(0.01)

    def stop(self, timeout_s: float = 10) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=timeout_s)


def serve_on_loopback(app: Any, port: int, name: str) -> ThreadedServer:
    """Start `app` (ASGI) on 127.0.0.1:`port` on a daemon thread: the test peers' one way
    to listen (no lifespan, no access log)."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="error", lifespan="off", access_log=False
    )
    server = ThreadedServer(config, name)
    server.start()
    return server

"""Ports on the loopback interface."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port nothing listens on right now (also how to get a refused connection)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])

"""Which page origins may use a site's widget, and which refusals to tell its owner about."""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import Counter
from collections.abc import Sequence
from urllib.parse import urlsplit

from frontdesk.sites.schema import SERVER_ORIGINS, WidgetConfig

REPORT_INTERVAL_S = 600.0
REPORTED_ORIGINS_PER_SITE = 20


def allowed_origins(widget: WidgetConfig, served: Sequence[str]) -> list[str]:
    """The site's allowed origins, `self` replaced by the origins this server is served on."""
    origins: list[str] = []
    for entry in widget.allowed_origins:
        for origin in served if entry == SERVER_ORIGINS else (entry,):
            if origin not in origins:
                origins.append(origin)
    return origins


def is_web_origin(origin: str) -> bool:
    """`http(s)://host[:port]` and nothing else, as browsers send `Origin` (a caller may
    send any text: only a real origin is worth showing the site's owner)."""
    try:
        parts = urlsplit(origin)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and f"{parts.scheme}://{parts.netloc}" == origin
        and "@" not in parts.netloc
        and origin.isprintable()
        and " " not in origin
    )


def is_loopback_origin(origin: str) -> bool:
    """A page on the visitor's own machine (localhost, 127.0.0.0/8, ::1): its developer."""
    try:
        host = urlsplit(origin).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class RefusalThrottle:
    """Which refused origins to report now: each (site, origin) once per window of
    `interval_s`, and at most `per_site` origins per site per window, since a caller can
    send any `Origin` header it likes (thread-safe; one per process)."""

    def __init__(
        self, interval_s: float = REPORT_INTERVAL_S, per_site: int = REPORTED_ORIGINS_PER_SITE
    ) -> None:
        self.interval_s = interval_s
        self.per_site = per_site
        self._lock = threading.Lock()
        self._window_start = float("-inf")
        self._reported: set[tuple[str, str]] = set()
        self._per_site: Counter[str] = Counter()

    def should_report(self, site_id: str, origin: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self._lock:
            if now - self._window_start >= self.interval_s:
                self._window_start = now
                self._reported.clear()
                self._per_site.clear()
            key = (site_id, origin)
            if key in self._reported or self._per_site[site_id] >= self.per_site:
                return False
            self._reported.add(key)
            self._per_site[site_id] += 1
            return True

"""Who the client is: X-Forwarded-For counts only from the proxies the operator lists.

The client IP feeds per-IP rate limits, the admin lockout, the salted IP hash that
enrichment providers receive, and the cache of their answers. `frontdesk serve` runs
uvicorn with `server_options(settings)`:

- `FRONTDESK_TRUSTED_PROXIES` empty (the default): uvicorn's proxy-headers middleware is
  off, the client is the TCP peer, and `X-Forwarded-For` / `X-Forwarded-Proto` are
  ignored whoever sends them. uvicorn's own default (trust 127.0.0.1, or whatever
  `FORWARDED_ALLOW_IPS` says) is deliberately not used: with a proxy on the same host
  any local process could name any client, and behind a proxy that is not trusted
  every visitor is the proxy's one IP (one rate-limit bucket, one enrichment profile).
- a list of IPs / CIDR networks (or `*`): a request from one of them names its client in
  `X-Forwarded-For`; uvicorn takes the right-most address that is not itself a trusted
  proxy, so a client cannot spoof one by sending its own header through the proxy.

Running the app under another server (`uvicorn frontdesk.api.app:create_worker_app`,
gunicorn…) leaves this to that server's own flags (`--no-proxy-headers`,
`--forwarded-allow-ips`).
"""

from __future__ import annotations

import ipaddress
import logging
import os
from typing import Any

from frontdesk.settings import Settings

log = logging.getLogger(__name__)


def trusted_proxies(settings: Settings) -> list[str]:
    """The configured proxies, each checked: an IP, a CIDR network or `*`.

    Raises ValueError naming the first entry that is none of these."""
    entries = [entry.strip() for entry in settings.trusted_proxies.split(",") if entry.strip()]
    for entry in entries:
        if entry == "*":
            continue
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError as exc:
            raise ValueError(
                f"FRONTDESK_TRUSTED_PROXIES: {entry!r} is not an IP address, a CIDR network or '*'"
            ) from exc
    return entries


def server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy settings for `frontdesk serve` (see the module docstring)."""
    trusted = trusted_proxies(settings)
    if not trusted and os.environ.get("FORWARDED_ALLOW_IPS"):
        log.warning(
            "FORWARDED_ALLOW_IPS is ignored by `frontdesk serve`: list your proxies in "
            "FRONTDESK_TRUSTED_PROXIES (X-Forwarded-For is trusted from no one until then)"
        )
    if not trusted:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": trusted}

"""URL rules of the crawler: one spelling per page, same site only, no private networks.

Pure functions except `check_address`, which resolves a host name (the one I/O here,
because a public name may point at a private address).
"""

from __future__ import annotations

import asyncio
import ipaddress
import posixpath
import re
import socket
from collections.abc import Sequence
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

# Query parameters that name a visit, not a page.
_TRACKING = re.compile(r"^(utm_[a-z]+|gclid|fbclid|mc_cid|mc_eid|ref|sessionid|phpsessid)$", re.I)
_DEFAULT_PORTS = {"http": 80, "https": 443}


class UnsafeAddress(ValueError):
    """A URL whose host is or resolves to an address that is not globally reachable
    (private, loopback, link-local, shared, reserved, documentation, multicast, ...)."""


def normalise_url(url: str, base: str | None = None) -> str | None:
    """The one spelling of a page's address: absolute, http(s), lower-case host, no default
    port, no fragment, no tracking parameters, sorted query, `..` resolved. None for
    anything that is not an http(s) page (mailto:, javascript:, data:)."""
    raw = urljoin(base, url.strip()) if base else url.strip()
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = parts.path or "/"
    resolved = posixpath.normpath(path)
    if path.endswith("/") and not resolved.endswith("/"):
        resolved += "/"
    resolved = resolved.replace("//", "/")
    query = urlencode(
        sorted(
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not _TRACKING.match(k)
        )
    )
    return urlunsplit((scheme, netloc, resolved, query, ""))


def site_of(url: str) -> str:
    """`scheme://host[:port]` — what "the same site" means (a `www.` prefix is ignored)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    port = parts.port
    return f"{host}:{port}" if port not in (None, _DEFAULT_PORTS.get(parts.scheme)) else host


def same_site(url: str, start_url: str) -> bool:
    return site_of(url) == site_of(start_url)


def allowed_by_patterns(url: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    if any(re.search(pattern, url) for pattern in exclude):
        return False
    return not include or any(re.search(pattern, url) for pattern in include)


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: NAT64 (RFC 6052, RFC 8215)
# and the deprecated IPv4-compatible form. `ipaddress` unwraps IPv4-mapped, 6to4 and Teredo.
_IPV4_IN_LOW_BITS = (
    ipaddress.IPv6Network("64:ff9b::/96"),
    ipaddress.IPv6Network("64:ff9b:1::/48"),
    ipaddress.IPv6Network("::/96"),
)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to (mapped, 6to4, Teredo, NAT64)."""
    found = [address for address in (ip.ipv4_mapped, ip.sixtofour) if address is not None]
    if ip.teredo is not None:
        found.extend(ip.teredo)  # (server, client)
    if any(ip in network for network in _IPV4_IN_LOW_BITS):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF))
    return found


def is_public_address(address: str) -> bool:
    """Whether the address is globally reachable: every range of the IANA special-purpose
    registries (private, shared 100.64/10, 192.0.0/24, benchmarking, documentation,
    reserved, link-local, loopback, multicast, ...) is refused, so is an IPv6 address
    that embeds such an IPv4 address."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address):
        inner = embedded_ipv4(ip)
        if inner:
            return all(_is_global(v4) for v4 in inner)
    return _is_global(ip)


def _is_global(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # `is_global` is False for the special-purpose ranges `ipaddress` knows; the other
    # properties cover what older Python versions leave out of it (multicast, reserved).
    return ip.is_global and not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or (isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local)
    )


async def check_address(url: str, *, allow_private_network: bool) -> None:
    """Raise `UnsafeAddress` when the URL's host is or resolves to a non-public address."""
    if allow_private_network:
        return
    host = urlsplit(url).hostname or ""
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
        addresses = [str(literal)]
    except ValueError:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise UnsafeAddress(f"cannot resolve {host} ({exc})") from exc
        addresses = [str(info[4][0]) for info in infos]
    private = [address for address in addresses if not is_public_address(address)]
    if private:
        where = host if host.strip("[]") == private[0] else f"{host} resolves to {private[0]},"
        raise UnsafeAddress(
            f"{where} which is not a public address; set allow_private_network: true on "
            "the source (--allow-private-network) to crawl it"
        )

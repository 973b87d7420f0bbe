"""The `<frontdesk-chat>` web component and the demo website that embeds it."""

from __future__ import annotations

import html
from functools import lru_cache
from pathlib import Path

from frontdesk.sites.schema import SiteConfig

STATIC_DIR = Path(__file__).resolve().parent / "static"
# The demo company's mock website lives with the rest of the demo's content.
DEMO_WEBSITE = Path(__file__).resolve().parents[1] / "demo" / "website.html"


@lru_cache(maxsize=1)
def widget_script() -> bytes:
    """`widget.js`, the whole widget: no framework, no build step."""
    return (STATIC_DIR / "widget.js").read_bytes()


@lru_cache(maxsize=1)
def _demo_template() -> str:
    return DEMO_WEBSITE.read_text(encoding="utf-8")


def demo_page_html(site: SiteConfig | None, api_url: str = "/") -> str:
    """The demo company's mock website with the widget wired to `site` and the API at
    `api_url`."""
    values = {
        "API_URL": api_url,
        "SITE_NAME": site.name if site else "Frontdesk",
        "SITE_KEY": site.widget.public_key if site else "",
        "FALLBACK_URL": site.widget.fallback_url if site else "",
        "LANG": site.default_language if site else "en",
    }
    page = _demo_template()
    for name, value in values.items():
        page = page.replace("{{" + name + "}}", html.escape(value, quote=True))
    return page

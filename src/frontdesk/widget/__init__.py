"""The `<frontdesk-chat>` web component and the demo website that embeds it."""

from __future__ import annotations

import html
import json
from functools import lru_cache
from pathlib import Path

import yaml

from frontdesk.conversation.texts import Catalog, parse_catalog
from frontdesk.sites.schema import SiteConfig

STATIC_DIR = Path(__file__).resolve().parent / "static"
# The demo company's mock website lives with the rest of the demo's content.
DEMO_WEBSITE = Path(__file__).resolve().parents[1] / "demo" / "website.html"


WIDGET_TEXTS = Path(__file__).resolve().parent / "texts.yaml"
_STRINGS_SLOT = "/*@frontdesk-strings@*/ { formal: { en: {} }, informal: {} }"


@lru_cache(maxsize=1)
def widget_texts() -> Catalog:
    """The widget's own strings (`texts.yaml` beside this module), checked like the reply
    catalog: English everywhere, one register per text, informal twins where needed."""
    raw = yaml.safe_load(WIDGET_TEXTS.read_text(encoding="utf-8"))
    return parse_catalog(raw, "widget/texts.yaml")


def _by_language(table: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    languages: dict[str, dict[str, str]] = {}
    for key, variants in table.items():
        for language, text in variants.items():
            languages.setdefault(language, {})[key] = text
    return languages


@lru_cache(maxsize=1)
def widget_script() -> bytes:
    """`widget.js`, the whole widget: no framework, no build step; its strings are filled
    in from `texts.yaml`."""
    script = (STATIC_DIR / "widget.js").read_text(encoding="utf-8")
    if _STRINGS_SLOT not in script:
        raise RuntimeError("widget.js has lost the slot its strings are filled into")
    catalog = widget_texts()
    strings = {"formal": _by_language(catalog.formal), "informal": _by_language(catalog.informal)}
    filled = json.dumps(strings, ensure_ascii=False, separators=(",", ":"))
    return script.replace(_STRINGS_SLOT, filled).encode("utf-8")


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

"""What the assistant says when it is not quoting the knowledge base, in eight languages:
the catalog is `texts.yaml` beside this module (placeholders: {site} the company name,
{topics} a short list of topics, {when} the follow-up commitment, {email} the visitor's
address).

The catalog is neutral: it names no product, no demo and no sales pitch. A site words
its own sales moments (the demo offer, booking prompts, a case-study offer) in its
configuration (`texts:` in the site file), per language; `say` prefers the site's text
in the visitor's language, then the catalog's in that language, then English.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from importlib.resources import files
from typing import Any, Final

import yaml


def _load() -> dict[str, dict[str, str]]:
    catalog = yaml.safe_load(files(__package__).joinpath("texts.yaml").read_text("utf-8"))
    missing = sorted(key for key, variants in catalog.items() if "en" not in variants)
    if missing:
        raise ValueError(f"texts.yaml: no English text for {', '.join(missing)}")
    return {key: {lang: str(text) for lang, text in v.items()} for key, v in catalog.items()}


TEXTS: Final[dict[str, dict[str, str]]] = _load()

Overrides = Mapping[str, Mapping[Any, str]]  # language code → text, per key


def placeholders(template: str) -> set[str]:
    """The `{names}` a template fills."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def say(key: str, language: str, *, overrides: Overrides | None = None, **values: str) -> str:
    """The text for `key` in `language` (the site's own wording first, English when
    missing), with placeholders filled."""
    variants = TEXTS[key]
    own = (overrides or {}).get(key) or {}
    template = own.get(language) or variants.get(language) or own.get("en") or variants["en"]
    return template.format(**values) if values else template

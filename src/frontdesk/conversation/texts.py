"""What the assistant says when it is not quoting the knowledge base, in eight languages:
the catalog is `texts.yaml` beside this module (placeholders: {site} the company name,
{topics} a short list of topics, {when} the follow-up commitment, {email} the visitor's
address)."""

from __future__ import annotations

from importlib.resources import files
from typing import Final

import yaml


def _load() -> dict[str, dict[str, str]]:
    catalog = yaml.safe_load(files(__package__).joinpath("texts.yaml").read_text("utf-8"))
    missing = sorted(key for key, variants in catalog.items() if "en" not in variants)
    if missing:
        raise ValueError(f"texts.yaml: no English text for {', '.join(missing)}")
    return {key: {lang: str(text) for lang, text in v.items()} for key, v in catalog.items()}


TEXTS: Final[dict[str, dict[str, str]]] = _load()


def say(key: str, language: str, **values: str) -> str:
    """The text for `key` in `language` (English when missing), with placeholders filled."""
    variants = TEXTS[key]
    template = variants.get(language) or variants["en"]
    return template.format(**values) if values else template

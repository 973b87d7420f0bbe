"""What the assistant says when it is not quoting the knowledge base, in eight languages:
the catalog is `texts.yaml` beside this module (placeholders: {site} the company name,
{topics} a short list of topics, {when} the follow-up commitment, {email} the visitor's
address).

Each entry is written in the formal register (Sie, vous, usted, Lei, вы, u, o senhor); its
`informal:` block holds the texts of the languages whose informal wording differs (du, tu,
tú, tu, ты, je, você). A site's `tone` picks the register; a text that addresses the
visitor formally must have its informal twin, which the loader checks
(`conversation/register.py`).

The catalog is neutral: it names no product, no demo and no sales pitch. A site words
its own sales moments (the demo offer, booking prompts, a case-study offer) in its
configuration (`texts:` in the site file), per language; `say` prefers the site's text
in the visitor's language, then the catalog's in that language and register, then English.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, Final

import yaml

from frontdesk.conversation.register import Tone, register_problems

INFORMAL_KEY = "informal"


class CatalogError(ValueError):
    """The reply catalog is malformed: a missing English text or a register mix-up."""


@dataclass(frozen=True)
class Catalog:
    formal: dict[str, dict[str, str]]  # key → language → text (the default register)
    informal: dict[str, dict[str, str]]  # key → language → text, where it differs


def parse_catalog(raw: Mapping[str, Any], source: str = "texts.yaml") -> Catalog:
    """A catalog from its YAML form; raises `CatalogError` naming every problem."""
    formal: dict[str, dict[str, str]] = {}
    informal: dict[str, dict[str, str]] = {}
    problems: list[str] = []
    for key, variants in raw.items():
        if not isinstance(variants, Mapping):
            problems.append(f"{key}: expected texts per language")
            continue
        own = variants.get(INFORMAL_KEY) or {}
        formal[key] = {str(k): str(v) for k, v in variants.items() if k != INFORMAL_KEY}
        informal[key] = {str(k): str(v) for k, v in own.items()}
        if "en" not in formal[key]:
            problems.append(f"{key}: no English text")
        problems.extend(register_problems(key, formal[key], informal[key]))
        for language, text in informal[key].items():
            if language in formal[key] and placeholders(text) != placeholders(
                formal[key][language]
            ):
                problems.append(f"{key}: informal {language} text fills other placeholders")
    if problems:
        raise CatalogError(f"{source}: " + "; ".join(problems))
    return Catalog(formal, informal)


def _load() -> Catalog:
    return parse_catalog(
        yaml.safe_load(files(__package__).joinpath("texts.yaml").read_text("utf-8"))
    )


def placeholders(template: str) -> set[str]:
    """The `{names}` a template fills."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


CATALOG: Final[Catalog] = _load()
TEXTS: Final[dict[str, dict[str, str]]] = CATALOG.formal

Overrides = Mapping[str, Mapping[Any, str]]  # language code → text, per key


def template_for(key: str, language: str, tone: Tone = "formal") -> str:
    """The catalog's text for `key` in `language` and `tone` (English when missing)."""
    if tone == "informal":
        informal = CATALOG.informal[key].get(language)
        if informal:
            return informal
    variants = TEXTS[key]
    return variants.get(language) or variants["en"]


def say(
    key: str,
    language: str,
    *,
    tone: Tone = "formal",
    overrides: Overrides | None = None,
    **values: str,
) -> str:
    """The text for `key` in `language` and the site's `tone` (the site's own wording
    first, English when missing), with placeholders filled."""
    own = (overrides or {}).get(key) or {}
    if own.get(language):
        template = own[language]
    elif language in TEXTS[key]:
        template = template_for(key, language, tone)
    else:
        template = own.get("en") or TEXTS[key]["en"]
    return template.format(**values) if values else template

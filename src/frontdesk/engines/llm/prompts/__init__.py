"""Prompts as versioned files, composed in three levels:

1. `meta.md` — shared by every agent; carries `{{agent_instructions}}` and
   `{{site_instructions}}`;
2. `<agent>.md` — the agent's own template, inserted as `{{agent_instructions}}`;
3. the site's `instructions` (SiteConfig), inserted as `{{site_instructions}}`.

Each file starts with a front matter block (`name`, `version`). Placeholders are
`{{name}}` (as in Langfuse prompts). With `FRONTDESK_LANGFUSE_PROMPTS=true` and the
`langfuse` package installed and configured, prompts named `frontdesk/<agent>` are fetched
from Langfuse; any failure falls back to the files here.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PROMPTS_DIR = Path(__file__).resolve().parent
PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
AGENTS = (
    "answer_writer",
    "intent_classifier",
    "signals_detector",
    "skill_selector",
    "query_rewriter",
    "query_expander",
    "document_grader",
    "claim_verifier",
    "answer_evaluator",
    "suggester",
)


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    text: str

    def render(self, **values: str) -> str:
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), ""), self.text).strip()


def parse_prompt_file(text: str, name: str) -> PromptTemplate:
    meta: dict[str, str] = {}
    body = text
    if text.startswith("---\n"):
        head, _, body = text[4:].partition("\n---\n")
        for line in head.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                meta[key.strip()] = value.strip()
    return PromptTemplate(name=meta.get("name", name), version=meta.get("version", "0"), text=body)


@lru_cache(maxsize=32)
def load_file_prompt(name: str) -> PromptTemplate:
    path = PROMPTS_DIR / f"{name}.md"
    return parse_prompt_file(path.read_text(encoding="utf-8"), name)


def _langfuse_prompt(name: str, local: PromptTemplate) -> PromptTemplate:
    """Fetch `frontdesk/<name>` from Langfuse; the local file on any failure."""
    try:
        module: Any = importlib.import_module("langfuse")
        client = module.Langfuse()
        fetched = client.get_prompt(f"frontdesk/{name}", fallback=local.text)
        text = str(fetched.prompt)
        version = f"lf{fetched.version}"
    except Exception as exc:  # no package, no credentials, no network: use the file
        log.info("langfuse prompt %s unavailable (%s); using the local file", name, exc)
        return local
    return PromptTemplate(name=name, version=version, text=text)


class PromptBook:
    """The prompts one site's engine uses, resolved once (files or Langfuse)."""

    def __init__(self, site_name: str, site_instructions: str, *, langfuse: bool = False) -> None:
        self.site_name = site_name
        self.site_instructions = site_instructions.strip()
        self._templates: dict[str, PromptTemplate] = {}
        for name in ("meta", *AGENTS):
            local = load_file_prompt(name)
            self._templates[name] = _langfuse_prompt(name, local) if langfuse else local

    def template(self, name: str) -> PromptTemplate:
        return self._templates[name]

    def system(self, agent: str, **values: str) -> str:
        """Meta-template ← agent template ← site instructions."""
        agent_text = self._templates[agent].render(site=self.site_name, **values)
        return self._templates["meta"].render(
            site=self.site_name,
            agent_instructions=agent_text,
            site_instructions=self.site_instructions or "(none)",
        )

    @property
    def version(self) -> str:
        """`v<meta>-<digest>`: changes with any template or the site's instructions."""
        digest = hashlib.sha1(usedforsecurity=False)
        for name in sorted(self._templates):
            template = self._templates[name]
            digest.update(f"{name}@{template.version}\n".encode())
        digest.update(self.site_instructions.encode())
        return f"v{self._templates['meta'].version}-{digest.hexdigest()[:10]}"

    @property
    def versions(self) -> dict[str, str]:
        return {name: t.version for name, t in self._templates.items()}

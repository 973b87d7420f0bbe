"""What each kind of fact answers, in each of the widget's languages (`kinds.yaml`)."""

from __future__ import annotations

from importlib.resources import files

import yaml


def _load() -> dict[str, dict[str, tuple[str, ...]]]:
    raw = yaml.safe_load(files(__package__).joinpath("kinds.yaml").read_text("utf-8"))
    return {
        kind: {language: tuple(texts) for language, texts in by_language.items()}
        for kind, by_language in raw.items()
    }


# kind -> language -> texts (a definition, then questions).
KIND_TEXTS: dict[str, dict[str, tuple[str, ...]]] = _load()


def question_texts(kind: str, language: str) -> tuple[str, ...]:
    """The questions among a kind's texts in `language` (the rest are definitions)."""
    texts = KIND_TEXTS.get(kind, {}).get(language, ())
    return tuple(text for text in texts if text.rstrip().endswith("?"))

"""Build `intents.jsonl` from the hand-written phrase files in `phrases/`.

Run from the repository root: `python src/frontdesk/engines/local/data/build_intents.py`.

Phrase file format (one file per language, plus `common.txt` for shared slots):

    @slot = value one | value two          named slot, used as {slot}
    == INTENT [hs] [ns] [xN]               section: intent, high_stakes, nonsense,
                                           N variants per template (default 3)
    a template with {slot} and [inline|alternatives|]   ([a|] makes "a" optional)
    a conversation act ~thanks                  a template ending in `~ACT` also gives
                                                its rows that conversation act (ACTS)
    # comment

Every template expands into up to N distinct sentences with a generator seeded by
the template itself, so the output is deterministic. The held-out split takes 20 %
of rows by a hash of their text. Sentences from one template share most of their
words, so that split is optimistic; `--by-template OUT` writes a copy split by
template instead, for the stricter measurement of unseen phrasings.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PHRASES = HERE / "phrases"
OUTPUT = HERE / "intents.jsonl"
LANGS = ("en", "ru", "fr", "de", "es", "it", "pt", "nl")
INTENTS = ("LEARN", "CONTEXT", "SUPPORT", "OFFTOPIC", "OTHER", "BOOKING", "STOP_BOOKING", "HACK")
# Conversation acts a message can be on its own, answered each by its own reply
# (`engines/local/acts.py`): a row without one is no act, or not one of these.
ACTS = ("greeting", "how_are_you", "thanks", "goodbye", "yes", "no")
TEST_SHARE = 0.2
DEFAULT_VARIANTS = 3
MAX_VARIANTS = 10
MAX_ACT_PHRASINGS = 30

_SLOT = re.compile(r"\{(\w+)\}")
_ALT = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")
_ACT = re.compile(r"\s+~(\w+)$")


@dataclass
class Section:
    intent: str
    high_stakes: bool = False
    nonsense: bool = False
    variants: int = DEFAULT_VARIANTS
    templates: list[str] = field(default_factory=list)
    acts: dict[str, str] = field(default_factory=dict)  # template → its conversation act


def _parse(path: Path, slots: dict[str, list[str]]) -> list[Section]:
    sections: list[Section] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            name, _, values = line[1:].partition("=")
            slots[name.strip()] = [v.strip() for v in values.split("|") if v.strip()]
        elif re.match(r"== [A-Z_]+", line):
            words = line[2:].split()
            if words[0] not in INTENTS:
                raise ValueError(f"{path.name}: unknown intent {words[0]!r}")
            section = Section(intent=words[0])
            for flag in words[1:]:
                if flag == "hs":
                    section.high_stakes = True
                elif flag == "ns":
                    section.nonsense = True
                elif flag.startswith("x"):
                    section.variants = int(flag[1:])
                else:
                    raise ValueError(f"{path.name}: unknown flag {flag!r}")
            sections.append(section)
        else:
            if not sections:
                raise ValueError(f"{path.name}: template before any section: {line!r}")
            act = _ACT.search(line)
            if act is not None:
                if act.group(1) not in ACTS:
                    raise ValueError(f"{path.name}: unknown act {act.group(1)!r}")
                line = line[: act.start()]
                sections[-1].acts[line] = act.group(1)
            sections[-1].templates.append(line)
    return sections


def _render(template: str, slots: dict[str, list[str]], rng: random.Random) -> str:
    def alt(match: re.Match[str]) -> str:
        options: list[str] = match.group(1).split("|")
        return rng.choice(options)

    def slot(match: re.Match[str]) -> str:
        values: list[str] = slots[match.group(1)]
        return rng.choice(values)

    text = template
    # Slot values may contain alternatives themselves, so resolve until stable.
    for _ in range(4):
        text = _SLOT.sub(slot, _ALT.sub(alt, text))
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s+([?.!,])", r"\1", text)


def _every_phrasing(template: str, slots: dict[str, list[str]]) -> list[str]:
    """Every combination of a template's inline alternatives (slots are not expanded)."""
    groups = [m.group(1).split("|") for m in _ALT.finditer(template)]
    pieces = _ALT.split(template)[::2]  # the text around the alternatives
    texts = []
    for choice in itertools.islice(itertools.product(*groups), MAX_ACT_PHRASINGS):
        text = "".join(p + c for p, c in zip(pieces, choice, strict=False)) + pieces[-1]
        texts.append(_render(text, slots, random.Random(text)))
    return texts


def _casual(text: str, rng: random.Random) -> str:
    """Visitors often type lowercase without punctuation; teach that too."""
    if rng.random() < 0.3:
        return text.lower().rstrip("?.!")
    return text


def _split(key: str) -> str:
    digest = hashlib.sha256(key.encode()).digest()
    return "test" if digest[0] < 256 * TEST_SHARE else "train"


def build(by_template: bool = False) -> list[dict[str, object]]:
    common: dict[str, list[str]] = {}
    _parse(PHRASES / "common.txt", common)
    rows: list[dict[str, object]] = []
    seen: set[str] = set()
    for lang in LANGS:
        slots = dict(common)
        for section in _parse(PHRASES / f"{lang}.txt", slots):
            for template in section.templates:
                rng = random.Random(f"{lang}|{template}")
                group = f"{lang}|{section.intent}|{template}"
                # A line listing many inline options ("[hi|hello|good morning|...]") is
                # a list of phrasings, each worth a row; slots only add variety.
                widest = max(
                    (m.group(1).count("|") + 1 for m in _ALT.finditer(template)), default=1
                )
                act = section.acts.get(template)
                # An act's line lists its phrasings: every one of them becomes a row (a
                # random pick left "auf Wiedersehen" out of "[tschüss|auf Wiedersehen|…]").
                renders = (
                    _every_phrasing(template, slots)
                    if act is not None
                    else (
                        _render(template, slots, rng)
                        for _ in range(max(section.variants, min(widest, MAX_VARIANTS)))
                    )
                )
                for text in renders:
                    if not section.nonsense and section.intent != "HACK":
                        text = _casual(text, rng)
                    if text.lower() in seen:
                        continue
                    seen.add(text.lower())
                    row: dict[str, object] = {
                        "text": text,
                        "intent": section.intent,
                        "lang": lang,
                        "high_stakes": section.high_stakes,
                        "nonsense": section.nonsense,
                        "split": _split(group if by_template else text),
                    }
                    if act is not None:
                        row["act"] = act
                    rows.append(row)
    return rows


def main() -> None:
    by_template = len(sys.argv) == 3 and sys.argv[1] == "--by-template"
    rows = build(by_template)
    output = Path(sys.argv[2]) if by_template else OUTPUT
    with output.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = Counter((str(r["intent"]), str(r["lang"])) for r in rows)
    print(f"{len(rows)} rows -> {output}", file=sys.stderr)
    print("intent        " + " ".join(f"{lang:>5}" for lang in LANGS), file=sys.stderr)
    for intent in INTENTS:
        cells = " ".join(f"{counts[intent, lang]:>5}" for lang in LANGS)
        print(f"{intent:<13} {cells}", file=sys.stderr)


if __name__ == "__main__":
    main()

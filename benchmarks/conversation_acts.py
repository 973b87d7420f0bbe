"""Conversation acts recognised per language, on rows never trained on.

    PYTHONPATH=src .venv/bin/python benchmarks/conversation_acts.py [--json]

Held-out rows: `tests/support/acts_held_out.py` (23 acts per language in eight
languages, and 32 messages that open with an act but ask or state something); CLINC150
**val** (its greetings, goodbyes, thanks, yes and no; the other 2,980 rows as non-acts);
xSID **val** in en, de, it and nl (1,200 voice-assistant requests, all non-acts). A row
counts as recognised when the graph's router would give it its act's reply
(`routes.is_conversation_act`), read as `intent_classifier` reads it
(`nodes.analysis.read_act`): the intent model's act head, then the site's embedding model
(default e5) for a short statement, or for a short question that the fact reader also
puts with small talk.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from frontdesk.conversation.nodes.analysis import read_act  # noqa: E402
from frontdesk.conversation.route_table import RouteInput, is_conversation_act  # noqa: E402
from frontdesk.conversation.routes import states_a_topic  # noqa: E402
from frontdesk.engines.base import IntentResult  # noqa: E402
from frontdesk.engines.local.answering.text import is_question  # noqa: E402
from frontdesk.engines.local.engine import LocalIntentJob  # noqa: E402
from frontdesk.engines.local.intent import get_intent_classifier  # noqa: E402
from frontdesk.engines.local.intent_data import clinc_act, shared_datasets_dir  # noqa: E402
from frontdesk.knowledge.embedding.embedders import DEFAULT_EMBEDDING, make_embedder  # noqa: E402
from frontdesk.knowledge.search.acts import Act, load_acts  # noqa: E402
from tests.support.acts_held_out import ACTS_HELD_OUT, NOT_ACTS  # noqa: E402


class Reader:
    def __init__(self) -> None:
        self.job = LocalIntentJob(get_intent_classifier())
        self.embedder = make_embedder(DEFAULT_EMBEDDING)
        self.examples = load_acts(DEFAULT_EMBEDDING)

    async def read(self, text: str, *, embedding: bool) -> tuple[IntentResult, Act | None]:
        result = await self.job.classify(text, [])
        if not embedding or self.examples is None:
            return result, result.act
        examples = self.examples

        async def read_shipped(message: str) -> Act | None:
            return examples.read(self.embedder.embed_query(message))

        return result, await read_act(text, result, read_shipped, self.embedder)


def routed_as_act(text: str, result: IntentResult, act: Act | None) -> bool:
    inp = RouteInput(
        result.intent,
        act=act,
        asks_question=is_question(text),
        states_topic=states_a_topic(text),
        nonsense=result.nonsense,
    )
    return is_conversation_act(inp)


async def measure() -> dict[str, object]:
    reader = Reader()
    rows: dict[str, dict[str, list[int]]] = {"act head": {}, "head + e5": {}}
    for language, acts in ACTS_HELD_OUT.items():
        for name in rows:
            rows[name][language] = [0, 0]
        for act, messages in acts.items():
            for text in messages:
                head_result, head = await reader.read(text, embedding=False)
                _, both = await reader.read(text, embedding=True)
                got = {
                    "act head": head == act and routed_as_act(text, head_result, head),
                    "head + e5": both == act and routed_as_act(text, head_result, both),
                }
                for name, hit in got.items():
                    rows[name][language][0] += int(hit)
                    rows[name][language][1] += 1
    not_acts = 0
    for texts in NOT_ACTS.values():
        for text in texts:
            result, act = await reader.read(text, embedding=True)
            not_acts += routed_as_act(text, result, act)
    figures: dict[str, object] = {"held_out": rows, "not_acts_as_acts": not_acts}
    datasets = shared_datasets_dir() / "intent"
    val = datasets / "clinc150" / "val.jsonl"
    if val.is_file():
        clinc = [json.loads(line) for line in val.read_text(encoding="utf-8").splitlines()]
        hits, wrong, acts_total, others = 0, 0, 0, 0
        for row in clinc:
            if row["label"] == "maybe":
                continue
            expected = clinc_act(row["label"], row["text"])
            result, act = await reader.read(row["text"], embedding=True)
            routed = routed_as_act(row["text"], result, act)
            if expected is None:
                others += 1
                wrong += routed
            else:
                acts_total += 1
                hits += routed and act == expected
        figures["clinc_val"] = {"acts": [hits, acts_total], "non_acts_as_acts": [wrong, others]}
    xsid = datasets / "xsid" / "valid.jsonl"
    if xsid.is_file():
        counts: Counter[str] = Counter()
        totals: Counter[str] = Counter()
        for line in xsid.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["lang"] in ("en", "de", "it", "nl"):
                result, act = await reader.read(row["text"], embedding=True)
                totals[row["lang"]] += 1
                counts[row["lang"]] += routed_as_act(row["text"], result, act)
        figures["xsid_val_as_acts"] = {lang: [counts[lang], totals[lang]] for lang in totals}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = asyncio.run(measure())
    if args.json:
        print(json.dumps(figures))
        return
    held_out = figures["held_out"]
    assert isinstance(held_out, dict)
    languages = list(ACTS_HELD_OUT)
    print(f"{'':10} " + " ".join(f"{lang:>6}" for lang in languages) + "   total")
    for name, per_language in held_out.items():
        cells = " ".join(
            f"{per_language[lang][0]:>3}/{per_language[lang][1]:<2}" for lang in languages
        )
        hit = sum(v[0] for v in per_language.values())
        total = sum(v[1] for v in per_language.values())
        print(f"{name:10} {cells}   {hit}/{total}")
    print(
        f"messages that open with an act but ask or state something, read as acts: "
        f"{figures['not_acts_as_acts']}/{sum(len(v) for v in NOT_ACTS.values())}"
    )
    for key in ("clinc_val", "xsid_val_as_acts"):
        if key in figures:
            print(key, figures[key])


if __name__ == "__main__":
    main()

"""The synthetic site of the search benchmarks (`search_latency.py`, both backends):
chunk texts and vectors from a seed, queries, and the measurements both report."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from frontdesk.knowledge.models import Chunk, Document, content_hash
from frontdesk.knowledge.search.query import SearchOptions
from frontdesk.text.lexical import lexical_text

SITE = "bench-site"
DIM = 384
MODEL = f"hash:{DIM}"  # the name only; vectors are synthetic
PER_DOC = 20
HEADING_WORDS = 4
CENTRES = 2_000
SYLLABLES = ["ka", "lo", "mi", "ne", "sor", "tu", "va", "rex", "pli", "dan", "gor", "shi", "em"]
OPTIONS = SearchOptions(top_k=7, relevance_threshold=0.0, proactive_threshold=None)


def percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.array(values), q)), 2)


TOKENS_PER_CHUNK = 90  # the mean of the 60–120 words a chunk text has
HEAPS_K, HEAPS_BETA = 40.0, 0.5  # vocabulary = K · tokens^β (English text: K 10–100, β 0.4–0.6)
VOCABULARIES = ("heaps", "fixed")


def vocabulary_size(chunks: int, vocabulary: str = "heaps") -> int:
    """Distinct words of a corpus of `chunks` chunks: "heaps" grows with the corpus as
    real text does (Heaps' law: ~38,000 words at 10k chunks, 120,000 at 100k, 380,000 at
    1M); "fixed" is the 5,000 words of the earlier benchmark figures."""
    if vocabulary == "fixed":
        return 5_000
    return max(5_000, round(HEAPS_K * (chunks * TOKENS_PER_CHUNK) ** HEAPS_BETA))


def syllable_word(rank: int) -> str:
    """Word of a vocabulary rank (0 is the most frequent): the rank written in base 13
    with syllables for digits, so frequent words are short, as in real text."""
    syllables = [SYLLABLES[rank % len(SYLLABLES)]]
    rank //= len(SYLLABLES)
    while rank:
        rank -= 1  # bijective numeration: every rank a different syllable sequence
        syllables.append(SYLLABLES[rank % len(SYLLABLES)])
        rank //= len(SYLLABLES)
    return "".join(reversed(syllables)) + ("" if len(syllables) > 1 else "ro")


class Corpus:
    """Deterministic synthetic chunks: text and vector of chunk n from the seed alone.

    Words are drawn with Zipf's law (the r-th most frequent word with probability ∝ 1/r)
    from a vocabulary of `vocabulary_size(chunks, vocabulary)` words. With "heaps" the
    vocabulary grows with the corpus, so a word's share of chunks stays what it is in a
    real site of that size: at 1M chunks most words of a question are in a few hundred
    chunks and "how", "the" in most. With "fixed" (the earlier figures) 5,000 words serve
    every size: at 1M chunks even the rarest is in ~2,000 chunks, which no real corpus
    of that size does, and every query is a query of only common words.

    Vectors are unit vectors around `topics` centres (2,000 by default), so a topic has
    chunks / topics members, all about as far from each other (isotropic noise): a
    query's exact top 10 is its own chunk and 9 of its topic's other members. At 1M
    chunks that is 9 of ~500 near-ties (49 within 0.03 of cosine), which an HNSW graph
    finds much less often than 9 of 50 at 100k; `topics=200` at 100k chunks gives 1M's
    neighbourhoods (not its graph size: recall falls further with the graph's size)."""

    def __init__(
        self, seed: int, chunks: int = 0, vocabulary: str = "fixed", topics: int = CENTRES
    ) -> None:
        rng = random.Random(seed)
        size = vocabulary_size(chunks, vocabulary)
        if vocabulary == "fixed":
            words: set[str] = set()
            while len(words) < size:
                words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
            self.words = sorted(words)
        else:
            self.words = [syllable_word(rank) for rank in range(size)]
        # Zipf word ranks, drawn by inverse transform on the cumulative weights.
        self.cumulative = np.cumsum(1.0 / np.arange(1, size + 1))
        centres = np.random.default_rng(seed).standard_normal((topics, DIM)).astype(np.float32)
        self.centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)
        self.seed = seed
        self.topics = topics
        self.vocabulary = vocabulary
        self._stems: dict[str, str] | None = None

    def texts(self, first: int, count: int, version: int = 0) -> list[str]:
        """Texts of chunks `first` … `first + count - 1` (60–120 words each), one
        generator per call like `vectors` (a document's chunks are made together)."""
        rng = np.random.default_rng([self.seed, first, version, 1])
        lengths = rng.integers(60, 121, count)
        draws = rng.random(int(lengths.sum())) * self.cumulative[-1]
        ranks = np.searchsorted(self.cumulative, draws, side="right").tolist()
        words = self.words
        found, start = [], 0
        for length in lengths.tolist():
            found.append(" ".join([words[r] for r in ranks[start : start + length]]))
            start += length
        return found

    def text(self, n: int, version: int = 0) -> str:
        return self.texts(n - n % PER_DOC, PER_DOC, version)[n % PER_DOC]

    def lexical(self, text: str) -> str:
        """`lexical_text(text)` of a corpus text, by a lookup of its words' stems (the
        vocabulary is lower-case words; the build checks it against `lexical_text`)."""
        if self._stems is None:
            self._stems = dict(
                zip(self.words, lexical_text(" ".join(self.words)).split(), strict=True)
            )
        stems = self._stems
        return " ".join([stems[word] for word in text.split()])

    def vectors(self, first: int, count: int, version: int = 0) -> np.ndarray:
        rng = np.random.default_rng([self.seed, first, version])
        topics = rng.integers(0, self.topics, count)
        noise = rng.standard_normal((count, DIM)).astype(np.float32)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        rows = self.centres[topics] + 0.6 * noise
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    def new_page_text(self, number: int) -> str:
        """Chunk 0 of a page written during the re-ingestion: with a word of its own, as
        a new page has (with the fixed vocabulary, at 1M chunks every word of the 5,000
        is in over 2,000 chunks, so a page of only those words has no lexical list by
        design)."""
        return f"newpage{number} " + self.text(number * PER_DOC)

    def write_doc(self, index: Any, number: int, version: int = 0, new: bool = False) -> None:
        doc_id = f"doc-{number:07d}.md"
        document = Document(doc_id, f"Document {number}", "", "markdown", f"bench:{doc_id}")
        first = number * PER_DOC
        texts = self.texts(first, PER_DOC, version)
        if new:
            texts[0] = self.new_page_text(number)
        path = (heading(texts),)
        chunks = [
            Chunk(f"{number:07d}-{i:02d}", doc_id, i, body, path, doc_id)
            for i, body in enumerate(texts)
        ]
        lexical = [lexical_text(c.indexed_text) for c in chunks]
        vectors = self.vectors(first, PER_DOC, version)
        index.replace_document(SITE, document, "bench", chunks, vectors, lexical, MODEL)


def write_title_vectors(index: Any, corpus: Any, chunks: int) -> None:
    """Each page's title vector in the embedding cache, where an ingest puts it
    (`knowledge/search/titles.py`). The corpus has no model, so a page's title is given its first
    chunk's vector: a vector near the page's topic, as a title's is."""
    pages = chunks // PER_DOC
    for start in range(0, pages, 2_000):
        batch = {}
        for number in range(start, min(pages, start + 2_000)):
            first = number * PER_DOC
            batch[content_hash(heading(corpus.texts(first, 1)))] = corpus.vectors(first, 1)[0]
        index.cache_vectors(MODEL, batch)


def heading(texts: list[str]) -> str:
    """A document's heading (every chunk's heading path): the first words of its first
    chunk, as a page's title names what it is about. Queries draw words from a chunk, so
    some of them are in its heading, as visitors' words often are in a page's title."""
    return " ".join(texts[0].split()[:HEADING_WORDS])


def queries(corpus: Corpus, chunks: int, count: int, seed: int) -> list[tuple[str, np.ndarray]]:
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    found = []
    for _ in range(count):
        n = rng.randrange(chunks)
        words = rng.sample(corpus.text(n).split(), k=rng.randint(3, 8))
        vector = corpus.vectors((n // PER_DOC) * PER_DOC, PER_DOC)[n % PER_DOC]
        vector = vector + 0.3 * np_rng.standard_normal(DIM).astype(np.float32) / np.sqrt(DIM)
        found.append((" ".join(words), (vector / np.linalg.norm(vector)).astype(np.float32)))
    return found


def run_queue_ms() -> float:
    """This thread's time waiting for a core so far (ms; /proc schedstat, Linux): with
    its CPU time it splits a search's wall time into running, waiting to run, and
    blocked (sleeping on a lock, the GIL or I/O) — the rest."""
    try:
        return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return 0.0


def where_time_went(times: list[float], cpu: list[float], queued: list[float]) -> dict[str, float]:
    """Mean CPU, run-queue wait and blocked time of the slowest 1 % of searches."""
    slow = sorted(range(len(times)), key=lambda i: -times[i])[: max(1, len(times) // 100)]
    wall = float(np.mean([times[i] for i in slow]))
    running = float(np.mean([cpu[i] for i in slow]))
    waiting = float(np.mean([queued[i] for i in slow]))
    return {
        "slowest_1pct_wall_ms": round(wall, 1),
        "slowest_1pct_cpu_ms": round(running, 1),
        "slowest_1pct_waiting_for_core_ms": round(waiting, 1),
        "slowest_1pct_blocked_ms": round(wall - running - waiting, 1),
    }


def memory_mb() -> dict[str, float]:
    """VmRSS, RssAnon, RssFile and Pss (shared pages divided among the processes
    mapping them) of this process, in MB."""
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    found = {key: int(status[key].split()[0]) / 1024 for key in ("VmRSS", "RssAnon", "RssFile")}
    rollup = Path("/proc/self/smaps_rollup")
    if rollup.exists():
        fields = {
            line.split(":")[0]: int(line.split()[1]) / 1024
            for line in rollup.read_text().splitlines()[1:]
        }
        found["Pss"] = fields["Pss"]
        # Private: pages only this process maps (its heap, and file pages no other
        # process has mapped yet); Shared: pages other processes map too.
        found["Private"] = fields["Private_Clean"] + fields["Private_Dirty"]
        found["Shared"] = fields["Shared_Clean"] + fields["Shared_Dirty"]
    return found


def exact_top10(blocks: Any, vectors: np.ndarray) -> list[list[int]]:
    """Positions of each query's exact top 10 over row blocks `(first position, matrix)`
    (one pass over the vectors for all queries: at 1M chunks one per query takes minutes)."""
    best_scores = np.full((len(vectors), 10), -np.inf, dtype=np.float32)
    best_rows = np.zeros((len(vectors), 10), dtype=np.int64)
    for start, matrix in blocks:
        scores = np.asarray(matrix) @ vectors.T  # (block, queries)
        merged_scores = np.concatenate([best_scores, scores.T], axis=1)
        merged_rows = np.concatenate(
            [best_rows, np.broadcast_to(np.arange(start, start + len(scores)), scores.T.shape)],
            axis=1,
        )
        keep = np.argsort(-merged_scores, axis=1)[:, :10]
        best_scores = np.take_along_axis(merged_scores, keep, axis=1)
        best_rows = np.take_along_axis(merged_rows, keep, axis=1)
    return [[int(r) for r in row] for row in best_rows]


def dense_recall(
    index: Any, work: list[tuple[str, np.ndarray]], truth: list[set[str]]
) -> dict[str, float]:
    """Recall@10 of the index's dense search against `truth` (each query's exact top-10
    chunk ids): asked for 10, and the top 10 of the `candidates` a hybrid search uses."""
    recalls: dict[int, list[float]] = {10: [], OPTIONS.candidates: []}
    for expected, (_, vector) in zip(truth, work, strict=True):
        for limit, found in recalls.items():
            hits = index.dense_search(SITE, MODEL, vector, limit)[:10]
            found.append(len(expected & {hit.chunk_id for hit in hits}) / 10)
    of_candidates = np.asarray(recalls[OPTIONS.candidates])
    return {
        "recall_queries": len(truth),
        "recall_at_10": round(float(np.mean(recalls[10])), 4),
        f"recall_at_10_of_{OPTIONS.candidates}": round(float(of_candidates.mean()), 4),
        f"recall_at_10_of_{OPTIONS.candidates}_se": round(
            float(of_candidates.std(ddof=1) / np.sqrt(len(of_candidates))), 4
        )
        if len(of_candidates) > 1
        else 0.0,
    }


def rewrite(index: Any, corpus: Corpus, chunks: int, count: int) -> None:
    """The re-ingestion: rewrite `count` chunks (new text and vectors) document by document
    through `replace_document`, and every 50 documents write a new page, printing when its
    transaction committed (one JSON line, read by the searching process)."""
    docs = chunks // PER_DOC
    for k in range(count // PER_DOC):
        corpus.write_doc(index, (k * 7919) % docs, version=1)
        if k % 50 == 25:
            number = docs + k  # a new document number
            corpus.write_doc(index, number, new=True)
            print(json.dumps({"doc": number, "at": time.time()}), flush=True)

"""One interface per model-shaped job; `local` and `llm` engines implement each of them.

Inputs and outputs are plain values so that nodes, tests and evaluations can call
any implementation the same way. Every job is async: the local engine answers at
once, an LLM engine awaits its provider.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, TypedDict

from frontdesk.conversation.register import Tone
from frontdesk.knowledge.models import RetrievedChunk
from frontdesk.knowledge.search.acts import Act

if TYPE_CHECKING:
    from frontdesk.text.embedding import Embedder, Matrix

Intent = Literal[
    "LEARN", "CONTEXT", "SUPPORT", "OFFTOPIC", "OTHER", "BOOKING", "STOP_BOOKING", "HACK"
]
INTENTS: tuple[Intent, ...] = (
    "LEARN",
    "CONTEXT",
    "SUPPORT",
    "OFFTOPIC",
    "OTHER",
    "BOOKING",
    "STOP_BOOKING",
    "HACK",
)
Level = Literal["not_detected", "partially_confirmed", "confirmed"]


@dataclass(frozen=True)
class Turn:
    """One exchange of the recent history, as writers and rewriters see it."""

    user: str
    assistant: str
    # The team member who wrote `assistant` during a live takeover (None: the bot).
    team: str | None = None


@dataclass(frozen=True)
class IntentResult:
    intent: Intent
    confidence: float
    high_stakes: bool = False
    nonsense: bool = False
    reasoning: str = ""
    probabilities: dict[str, float] = field(default_factory=dict)
    # The conversation act the message is on its own, if any (`engines/local/acts.py`).
    act: Act | None = None


@dataclass(frozen=True)
class SignalsResult:
    """Interest and qualification evidence found in one visitor message."""

    interest_delta: float = 0.0
    interest_signals: tuple[str, ...] = ()  # e.g. "demo_interest", "pricing_interest"
    qualification: dict[str, Level] = field(default_factory=dict)  # problem_fit → level
    evidence: dict[str, str] = field(default_factory=dict)  # dimension → quote
    flags: frozenset[str] = frozenset()  # is_negative_persona, is_no_fit, is_consultant, ...
    explicit_human_request: bool = False
    email: str | None = None


@dataclass(frozen=True)
class SkillChoice:
    """How the reply should end (its closing skill)."""

    skills: tuple[str, ...] = ()  # propose_demo, collect_email, suggest_follow_up, ...
    reasoning: str = ""


@dataclass(frozen=True)
class Claim:
    text: str
    supported: bool
    support: float
    chunk_index: int | None = None


@dataclass(frozen=True)
class Verification:
    claims: tuple[Claim, ...] = ()
    factuality_score: float = 1.0


@dataclass(frozen=True)
class Evaluation:
    """Self-critique of an answer (FULLY / PARTIALLY / CANNOT)."""

    quality: float
    relevance: float
    coverage: Literal["full", "partial", "none"]
    reasoning: str = ""


@dataclass(frozen=True)
class SiteMeaning:
    """How a writer without a language model reads meaning on this site: the embedder the
    site's knowledge base was built with, and the cosine a sentence must reach to say what
    the question asks — the site's own support bar (`knowledge/search/topic.py`), measured
    against everyday requests with the same model, so no one model's number is fixed.

    Passages in another language than the visitor's are always read by meaning (their
    words cannot match); `own_language` says whether passages in the visitor's language
    are too (the site's opt-in, `engine.local_reads_meaning`). `vectors` gives passage
    vectors of texts through the site's embedding cache (each sentence embedded once per
    model); None: the embedder embeds them."""

    embedder: Embedder
    bar: float
    own_language: bool = True
    vectors: Callable[[Sequence[str]], Matrix] | None = None

    def passage_vectors(self, texts: Sequence[str]) -> Matrix:
        if self.vectors is not None:
            return self.vectors(texts)
        return self.embedder.embed_documents(texts)


@dataclass(frozen=True)
class AnswerRequest:
    question: str
    search_query: str
    language: str
    chunks: Sequence[RetrievedChunk]
    history: Sequence[Turn] = ()
    site_name: str = ""
    instructions: str = ""
    skills: tuple[str, ...] = ()
    # The site's own reply to price questions (`pricing_reply`); empty: prices are
    # answered from the passages like any other fact.
    pricing_reply: str = ""
    # The site's embedder and bar: the local writer finds sentences that say what the
    # visitor asks in other words (synonyms, slang, typos). None: words only.
    meaning: SiteMeaning | None = None
    # The site's register (`tone`): how the writer's own words address the visitor.
    tone: Tone = "formal"
    # The site's own language: of the pages in other languages than the visitor's, the
    # site's own are quoted before a third language's.
    site_language: str = ""


class IntentClassifierJob(Protocol):
    async def classify(self, text: str, history: Sequence[Turn]) -> IntentResult: ...


class SignalsDetectorJob(Protocol):
    async def detect(self, text: str, language: str) -> SignalsResult: ...


class SkillSelectorJob(Protocol):
    async def select(
        self, intent: IntentResult, interest_score: float, threshold: float, turn_number: int
    ) -> SkillChoice: ...


class QueryRewriterJob(Protocol):
    async def rewrite(self, question: str, history: Sequence[Turn], language: str) -> str:
        """A standalone search query: follow-ups and pronouns resolved from history."""
        ...

    async def expand(self, question: str, language: str) -> str:
        """A second-chance query for a retry (synonyms, keywords, hypothetical answer)."""
        ...


class DocumentGraderJob(Protocol):
    async def grade(self, question: str, chunks: Sequence[RetrievedChunk]) -> list[bool]:
        """Relevant or not, per chunk (document grading)."""
        ...


class WriterUnavailableError(RuntimeError):
    """The writer could not answer (provider errors, first-token timeout, dropped stream).

    `partial` is what had already streamed to the visitor. The graph answers with the
    fallback message and a handoff offer (reason `llm_failure`).
    """

    def __init__(self, message: str, partial: str = "") -> None:
        super().__init__(message)
        self.partial = partial


class AnswerWriterJob(Protocol):
    # True: the writer words the answer in the visitor's language from passages in any
    # language (a language model translates); False: it quotes passages in their own.
    translates: bool

    def write(self, request: AnswerRequest) -> AsyncIterator[str]:
        """Stream the grounded answer; `[n]` cites `request.chunks[n-1]`."""
        ...


class ClaimVerifierJob(Protocol):
    async def verify(self, answer: str, chunks: Sequence[RetrievedChunk]) -> Verification: ...


class AnswerEvaluatorJob(Protocol):
    async def evaluate(
        self, question: str, answer: str, chunks: Sequence[RetrievedChunk]
    ) -> Evaluation: ...


class SuggesterJob(Protocol):
    async def follow_ups(
        self,
        question: str,
        answer: str,
        chunks: Sequence[RetrievedChunk],
        language: str,
        tone: Tone = "formal",
    ) -> list[str]:
        """Three questions the visitor may ask next, answerable from the knowledge base,
        worded in the site's register."""
        ...


class ModelCall(TypedDict):
    """One model call of a turn, as its trace lists it among the nodes
    (`engines.llm.accounting.TurnUsage.as_nodes`)."""

    node: str  # "llm:" and the job that made the call ("llm:answer_writer")
    ms: float
    model: str  # provider:model
    tokens_in: int
    tokens_out: int
    ok: bool


@dataclass(frozen=True)
class Engines:
    """The implementations a site's turns use, one per job."""

    name: str
    intent: IntentClassifierJob
    signals: SignalsDetectorJob
    skills: SkillSelectorJob
    rewriter: QueryRewriterJob
    grader: DocumentGraderJob
    writer: AnswerWriterJob
    verifier: ClaimVerifierJob
    evaluator: AnswerEvaluatorJob
    suggester: SuggesterJob
    prompt_version: str | None = None  # recorded on every turn's trace (LLM engines)
    models: dict[str, str] = field(default_factory=dict)  # role → provider:model

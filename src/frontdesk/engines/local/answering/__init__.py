"""The `local` answering jobs: no LLM, no network, a few milliseconds per turn.

- `LocalQueryRewriter` — follow-ups resolved from history; synonym expansion for retries.
- `LocalDocumentGrader` — relevant or not, from term overlap and the retriever's cosine.
- `LocalAnswerWriter` — extractive, cited answers with localized framing: sentences by
  relevance, one language, every part of a question; internal questions deflected,
  prices deflected only with the site's own `pricing_reply`.
- `LocalClaimVerifier` — claims checked against the passages; factuality score.
- `LocalAnswerEvaluator` — self-critique: quality, relevance, coverage full/partial/none.
- `LocalSuggester` — three follow-up questions from the passages' headings.

The writer and the verifier accept an optional `Embedder` (the knowledge base's) to
blend cosine similarity into their lexical scores; nothing here loads a model.
"""

from typing import TYPE_CHECKING

from frontdesk.engines.local.answering.evaluator import LocalAnswerEvaluator
from frontdesk.engines.local.answering.grader import LocalDocumentGrader
from frontdesk.engines.local.answering.rewrite import LocalQueryRewriter
from frontdesk.engines.local.answering.suggester import LocalSuggester
from frontdesk.engines.local.answering.text import cited_indices
from frontdesk.engines.local.answering.verifier import LocalClaimVerifier
from frontdesk.engines.local.answering.writer import LocalAnswerWriter

if TYPE_CHECKING:  # mypy checks that each class implements its job's protocol
    from frontdesk.engines import base

    _rewriter: base.QueryRewriterJob = LocalQueryRewriter()
    _grader: base.DocumentGraderJob = LocalDocumentGrader()
    _writer: base.AnswerWriterJob = LocalAnswerWriter()
    _verifier: base.ClaimVerifierJob = LocalClaimVerifier()
    _evaluator: base.AnswerEvaluatorJob = LocalAnswerEvaluator()
    _suggester: base.SuggesterJob = LocalSuggester()

__all__ = [
    "LocalAnswerEvaluator",
    "LocalAnswerWriter",
    "LocalClaimVerifier",
    "LocalDocumentGrader",
    "LocalQueryRewriter",
    "LocalSuggester",
    "cited_indices",
]

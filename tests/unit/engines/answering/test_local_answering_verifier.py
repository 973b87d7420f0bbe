from __future__ import annotations

import pytest
from local_answering_kb import ALL, PLANS, RATE_LIMIT, SALESFORCE, passage

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering import LocalAnswerWriter, LocalClaimVerifier
from frontdesk.engines.local.answering.phrases import FOREIGN_LEAD_IN, NOT_FOUND, PARTS_UNKNOWN

pytestmark = pytest.mark.unit


async def test_invented_sentence_is_unsupported() -> None:
    answer = (
        "According to our documentation: Sandbox orgs can be connected alongside production [1]. "
        "Tessellate Flow also offers a free lifetime plan for nonprofit organisations [1]."
    )
    result = await LocalClaimVerifier().verify(answer, [SALESFORCE, RATE_LIMIT])
    assert [claim.supported for claim in result.claims] == [True, False]
    assert result.claims[0].chunk_index == 0
    assert result.factuality_score == 0.5


async def test_changed_figure_is_unsupported() -> None:
    answer = "Rate-limited requests are retried for up to 6 hours [1]."
    result = await LocalClaimVerifier().verify(answer, [RATE_LIMIT])
    assert not result.claims[0].supported


async def test_extractive_answer_is_fully_supported() -> None:
    req = AnswerRequest(
        question="What does TF-1004 mean?", search_query="TF-1004", language="en", chunks=ALL
    )
    answer = await LocalAnswerWriter().compose(req)
    result = await LocalClaimVerifier().verify(answer, ALL)
    assert result.claims
    assert result.factuality_score == 1.0


async def test_framing_is_not_a_claim() -> None:
    verifier = LocalClaimVerifier()
    unknown = PARTS_UNKNOWN["en"].format(x="“do you offer on-premises hosting”")
    for text in (NOT_FOUND["en"], FOREIGN_LEAD_IN["ru"], unknown, ""):
        result = await verifier.verify(text, [PLANS])
        assert result.claims == ()
        assert result.factuality_score == 1.0


async def test_at_most_ten_claims() -> None:
    answer = " ".join(f"Statement number {n} is about Salesforce [1]." for n in range(15))
    result = await LocalClaimVerifier().verify(answer, [SALESFORCE])
    assert len(result.claims) == 10


async def test_without_passages_verification_is_skipped() -> None:
    result = await LocalClaimVerifier().verify("Anything at all.", [])
    assert result.factuality_score == 1.0


async def test_negated_claim_is_unsupported() -> None:
    answer = "Sandbox orgs cannot be connected alongside production [1]."
    result = await LocalClaimVerifier().verify(answer, [SALESFORCE])
    assert not result.claims[0].supported


async def test_table_row_claim_is_supported() -> None:
    answer = "- Code steps (Python, JavaScript) — Starter: No; Growth: Yes; Enterprise: Yes [1]"
    result = await LocalClaimVerifier().verify(answer, [PLANS])
    assert result.claims[0].supported


async def test_negation_is_compared_sentence_by_sentence() -> None:
    item = passage(
        9,
        ("Billing", "Changing plans"),
        "- **Downgrades** take effect at the start of the next billing period. Before a "
        "downgrade, Tessellate Flow lists features that the lower plan does not include.",
    )
    answer = "- **Downgrades** take effect at the start of the next billing period [1]."
    result = await LocalClaimVerifier().verify(answer, [item])
    assert result.claims[0].supported

from __future__ import annotations

import pytest
from local_answering_kb import ALL, PLANS, RATE_LIMIT, SALESFORCE, passage

from frontdesk.engines.base import AnswerRequest
from frontdesk.engines.local.answering import LocalAnswerWriter, LocalClaimVerifier
from frontdesk.engines.local.answering.phrases import FOREIGN_LEAD_IN, NOT_FOUND, PARTS_UNKNOWN
from frontdesk.engines.local.answering.quoting import with_citation
from frontdesk.engines.local.answering.units import split_claims

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


async def test_quotes_of_two_passages_ending_in_a_link_are_two_claims() -> None:
    # The writer cites a quote without a full stop (a sentence ending in a link) as
    # "…shorts/ [1]": the next quote, from another passage, is another claim.
    shorts = passage(
        7,
        ("Shorts",),
        "Shorts are vertical videos of up to 60 seconds, published in the Shorts section: "
        "https://example.com/feeds/shorts/",
    )
    ranking = passage(
        8, ("Recommendations",), "The ranking of videos in Shorts follows the platform's rules."
    )
    first = with_citation(shorts.content, 1)
    assert first.endswith("/shorts/ [1]")  # how the writer cites a quote with no full stop
    answer = f"According to our documentation: {first} {with_citation(ranking.content, 2)}"
    result = await LocalClaimVerifier().verify(answer, [shorts, ranking])
    assert [claim.chunk_index for claim in result.claims] == [0, 1]
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


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("Use the link: https://example.com/a [1] Then sign in [2].", 2),
        ("It supports SSO [1] and SCIM [2]. It runs in the EU [3].", 2),
        ("See both pages [1] [2] for the details.", 1),
    ],
)
def test_a_citation_ends_a_claim_only_before_a_new_sentence(answer: str, claims: int) -> None:
    assert len(split_claims(answer)) == claims

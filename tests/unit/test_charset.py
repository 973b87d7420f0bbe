"""`clean_text`: what every request string and every loaded document goes through."""

from __future__ import annotations

import pytest

from frontdesk.api.schemas import TurnRequest
from frontdesk.guard.charset import clean_text
from frontdesk.knowledge.ingest.loaders import load_bytes

pytestmark = pytest.mark.unit


def test_nul_is_removed_and_lone_surrogates_become_replacement_characters() -> None:
    assert clean_text("a\x00b") == "ab"
    assert clean_text("x\udc80y\ud800") == "x\ufffdy\ufffd"
    assert clean_text("emoji 😀 ok\n\ttab") == "emoji 😀 ok\n\ttab"  # valid text untouched
    clean_text("\udc80").encode("utf-8")  # encodable, where the raw one raises


def test_every_string_of_a_turn_request_is_cleaned() -> None:
    body = TurnRequest.model_validate(
        {
            "message": "hi\x00 \udc80",
            "site_key": "pk\x00",
            "page_url": "https://a.example/\ud800",
            "reveal": {"company\x00": "Acme\udfff"},
        }
    )
    assert body.message == "hi \ufffd"
    assert body.site_key == "pk"
    assert body.page_url == "https://a.example/\ufffd"
    assert body.reveal == {"company": "Acme\ufffd"}


def test_an_uploaded_document_reaches_the_index_without_nul() -> None:
    # The loader's binary sniff reads the first 4 KiB only: a NUL after it used to pass.
    data = ("# Pricing\n\n" + "word " * 1000 + "tail\x00end").encode()
    document = load_bytes(data, "pri\x00cing.md")
    assert "\x00" not in document.text and "tailend" in document.text
    assert document.doc_id == "pricing.md"

"""Structure-aware chunking: headings, paragraphs, lists, sentence splits, merges, ids."""

from __future__ import annotations

import itertools

import pytest

from frontdesk.knowledge.ingest.chunker import (
    chunk_document,
    count_tokens,
    parse_sections,
    split_sentences,
)
from frontdesk.knowledge.models import Document

pytestmark = pytest.mark.unit


def doc(text: str, title: str = "Guide", doc_id: str = "guide.md") -> Document:
    return Document(doc_id, title, text, "markdown", f"/kb/{doc_id}")


def test_short_document_is_one_chunk_with_title_prepended() -> None:
    faq = doc("How do I reset my password?\n\nOpen Settings, then Security.", title="Password")
    [chunk] = chunk_document(faq)
    assert chunk.chunk_index == 0
    assert chunk.heading_path == ("Password",)
    assert chunk.content == "How do I reset my password?\n\nOpen Settings, then Security."
    assert chunk.indexed_text.startswith("Password\n\nHow do I reset")


def test_sections_carry_heading_paths() -> None:
    sections = parse_sections(
        "# Guide\n\nIntro.\n\n## Install\n\nStep.\n\n### Linux\n\napt.\n\n"
        "## Usage\n\n- one\n- two\n  wrapped\n\n```\ncode\n\nblock\n```"
    )
    assert [s.path for s in sections] == [
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Install", "Linux"),
        ("Guide", "Usage"),
    ]
    assert sections[3].blocks[0].units == ["- one", "- two wrapped"]
    assert sections[3].blocks[1].units == ["```\ncode\n\nblock\n```"]


def long_section(count: int) -> str:
    return " ".join(
        f"Step {i} configures the connector for the billing system." for i in range(count)
    )


def test_long_sections_split_at_sentences_with_overlap() -> None:
    text = "# Guide\n\n## Install\n\n" + long_section(60) + "\n\n## Usage\n\n" + long_section(12)
    chunks = chunk_document(doc(text), chunk_size=100, chunk_overlap=24)
    assert len(chunks) > 3
    for chunk in chunks:
        assert count_tokens(chunk.content) <= 100
        assert chunk.content.endswith(".")  # never cut inside a sentence
        assert chunk.content[0].isupper()
    install = [c for c in chunks if c.heading_path == ("Guide", "Install")]
    assert len(install) >= 3
    for previous, current in itertools.pairwise(install):
        previous_sentences = split_sentences(previous.content)
        first_sentence = split_sentences(current.content)[0]
        assert first_sentence in previous_sentences[-3:]  # overlap of whole sentences
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))


def test_tiny_sections_are_merged_into_neighbours() -> None:
    text = (
        "# Guide\n\n## Contact\n\nMail us.\n\n## Details\n\n"
        + long_section(8)
        + "\n\n## Large\n\n"
        + long_section(14)
    )
    chunks = chunk_document(doc(text), chunk_size=160, chunk_overlap=16, min_tokens=20)
    assert all(count_tokens(c.content) >= 10 for c in chunks)
    merged = chunks[0]
    assert merged.content.startswith("Contact\nMail us.")
    assert merged.heading_path == ("Guide",)


def test_lists_stay_together_when_they_fit() -> None:
    items = "\n".join(f"- Feature {i} works offline" for i in range(6))
    text = "# Guide\n\n## Features\n\n" + items + "\n\n## More\n\n" + long_section(30)
    chunks = chunk_document(doc(text), chunk_size=120, chunk_overlap=10, min_tokens=5)
    features = next(c for c in chunks if c.heading_path == ("Guide", "Features"))
    assert features.content == items


def test_chunk_ids_are_stable_and_content_addressed() -> None:
    text = "# Guide\n\n## A\n\n" + long_section(30) + "\n\n## B\n\n" + long_section(30)
    first = chunk_document(doc(text), chunk_size=120, chunk_overlap=10)
    again = chunk_document(doc(text), chunk_size=120, chunk_overlap=10)
    assert [c.chunk_id for c in first] == [c.chunk_id for c in again]
    changed = chunk_document(
        doc(text.replace("Step 29", "Step 99")), chunk_size=120, chunk_overlap=10
    )
    assert first[0].chunk_id == changed[0].chunk_id
    assert first[-1].chunk_id != changed[-1].chunk_id
    other = chunk_document(doc(text, doc_id="other.md"), chunk_size=120, chunk_overlap=10)
    assert first[0].chunk_id != other[0].chunk_id
    assert len({c.content_hash for c in first}) == len(first)


def test_overlap_must_be_smaller_than_size() -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_document(doc("text"), chunk_size=64, chunk_overlap=64)


def test_empty_document_has_no_chunks() -> None:
    assert chunk_document(doc("   ")) == []


def test_very_long_sentence_is_split_by_words() -> None:
    text = "# G\n\n## S\n\n" + " ".join(["word"] * 500)
    chunks = chunk_document(doc(text), chunk_size=100, chunk_overlap=0)
    assert all(count_tokens(c.content) <= 100 for c in chunks)
    assert sum(count_tokens(c.content) for c in chunks) == 500


def test_a_word_longer_than_the_window_is_cut_so_the_document_is_indexed() -> None:
    """A bookmarklet or an encoded URL is one "word" of hundreds of tokens: it is cut in
    parts that fit, instead of failing the whole document (StackFAQ lost a page so)."""
    script = "javascript:(function(){var%20t%3D1%3Bwhile(t%3C9)%7Bt%2B%2B%7D})()" * 40
    text = f"Paste this into the address bar: {script} and press Enter."
    chunks = chunk_document(doc(text), chunk_size=120, chunk_overlap=20, max_tokens=128)
    assert len(chunks) > 1
    assert all(count_tokens(c.indexed_text) <= 128 for c in chunks)
    joined = "".join(c.content.replace(" ", "") for c in chunks)
    assert script in joined  # every character is kept, in order (overlap aside)
    assert chunks[0].content.startswith("Paste this")


def test_sentence_splitting_handles_several_languages() -> None:
    assert split_sentences("Привет, мир. Как дела? Хорошо!") == [
        "Привет, мир.",
        "Как дела?",
        "Хорошо!",
    ]
    assert split_sentences("¿Qué tal? ¡Muy bien! Gracias.") == [
        "¿Qué tal?",
        "¡Muy bien!",
        "Gracias.",
    ]
    assert split_sentences("Version 2.5 is out, e.g. lower case stays. Next.") == [
        "Version 2.5 is out, e.g. lower case stays.",
        "Next.",
    ]

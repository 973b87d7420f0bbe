"""Loaders on real files of each type, written by the test (including broken ones)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from frontdesk.knowledge.ingest.loaders import (
    LoaderError,
    load_bytes,
    load_directory,
    load_file,
    load_path,
    title_from_name,
)

pytestmark = pytest.mark.unit

HTML_PAGE = """<!doctype html>
<html><head><title>Pricing plans | Tessellate</title>
<link rel="canonical" href="https://tessellate.example/pricing">
<script>var tracking = "secret-tracker";</script><style>.x{color:red}</style></head>
<body>
<header><a href="/">Home</a> <a href="/about">About us</a></header>
<nav class="main-menu"><ul><li>Products</li><li>Careers</li></ul></nav>
<div class="cookie-banner">We use cookies</div>
<main>
  <h1>Pricing plans</h1>
  <p>Our <b>Team</b> plan includes unlimited workflows.</p>
  <h2>Billing</h2>
  <ul><li>Monthly invoices</li><li>Annual discount of 20%</li></ul>
  <table><tr><th>Plan</th><th>Seats</th></tr><tr><td>Team</td><td>10</td></tr></table>
</main>
<aside>Related posts</aside>
<footer>© Tessellate · Imprint · Privacy</footer>
</body></html>
"""


def test_markdown_front_matter_title_and_url(tmp_path: Path) -> None:
    path = tmp_path / "refunds.md"
    path.write_text(
        "---\ntitle: Refund policy\nurl: https://x.example/refunds\n---\n\n# Refunds\n\n"
        "We refund within **30 days**.\n",
        encoding="utf-8",
    )
    doc = load_file(path)
    assert doc.kind == "markdown"
    assert doc.title == "Refund policy"
    assert doc.url == "https://x.example/refunds"
    assert doc.text.startswith("# Refunds")
    assert "---" not in doc.text
    assert doc.source == str(path.resolve())


def test_markdown_title_from_first_h1_and_name(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Intro line\n\n# Getting started\n\nText.", encoding="utf-8")
    (tmp_path / "case-study_fintech-rag.md").write_text("## Only h2\n\nText.", encoding="utf-8")
    assert load_file(tmp_path / "a.md").title == "Getting started"
    assert load_file(tmp_path / "case-study_fintech-rag.md").title == "Case study fintech rag"
    assert title_from_name("x/y/hello-world.txt") == "Hello world"


def test_text_file(tmp_path: Path) -> None:
    path = tmp_path / "opening-hours.txt"
    path.write_bytes("\ufeffWe are open 9-17.\r\n\r\n\r\n\r\nClosed on Sundays.\r\n".encode())
    doc = load_file(path)
    assert doc.kind == "text"
    assert doc.title == "Opening hours"
    assert doc.text == "We are open 9-17.\n\nClosed on Sundays."


def test_html_keeps_main_content_only(tmp_path: Path) -> None:
    path = tmp_path / "pricing.html"
    path.write_text(HTML_PAGE, encoding="utf-8")
    doc = load_file(path)
    assert doc.kind == "html"
    assert doc.title == "Pricing plans | Tessellate"
    assert doc.url == "https://tessellate.example/pricing"
    assert "# Pricing plans" in doc.text
    assert "## Billing" in doc.text
    assert "- Monthly invoices" in doc.text
    assert "- Team | 10" in doc.text
    assert "Team plan includes unlimited workflows." in doc.text
    for noise in (
        "secret-tracker",
        "About us",
        "Careers",
        "cookies",
        "Imprint",
        "Related posts",
        "color:red",
    ):
        assert noise not in doc.text


def test_html_article_header_keeps_its_title() -> None:
    page = (
        b"<html><body><header class='site-header'>Logo Menu</header><article>"
        b"<header class='entry-header'><h1>Release notes</h1></header>"
        b"<p>Version 2 adds SSO.</p><footer>Posted in news</footer></article>"
        b"<div class='site-footer'>Copyright</div></body></html>"
    )
    doc = load_bytes(page, "notes.html")
    assert doc.text.startswith("# Release notes")
    assert "Version 2 adds SSO." in doc.text
    assert "Logo Menu" not in doc.text and "Copyright" not in doc.text


def test_html_without_main_uses_body() -> None:
    doc = load_bytes(
        b"<html><body><nav>Menu</nav><p>Plain page text.</p></body></html>", "plain.htm"
    )
    assert doc.text == "Plain page text."
    assert doc.source == "upload:plain.htm"


def test_pdf_text_and_metadata_title(tmp_path: Path, make_pdf: Callable[..., bytes]) -> None:
    path = tmp_path / "warranty.pdf"
    path.write_bytes(
        make_pdf(
            [
                ["Warranty terms", "Every device has a two year warranty."],
                ["Returns are accepted within 30 days."],
            ],
            title="Warranty handbook",
        )
    )
    doc = load_file(path)
    assert doc.kind == "pdf"
    assert doc.title == "Warranty handbook"
    assert "two year warranty" in doc.text
    assert "Returns are accepted within 30 days." in doc.text


def test_broken_pdf_names_the_file(tmp_path: Path, make_pdf: Callable[..., bytes]) -> None:
    good = make_pdf([["Hello"]])
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 20)
    with pytest.raises(LoaderError, match=r"broken\.pdf"):
        load_file(path)
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good[: len(good) // 3])
    with pytest.raises(LoaderError, match=r"truncated\.pdf"):
        load_file(truncated)


def test_unsupported_and_empty_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match=r"slides\.pptx: unsupported file type '\.pptx'"):
        load_bytes(b"PK\x03\x04", "slides.pptx")
    with pytest.raises(LoaderError, match=r"empty\.md: file is empty"):
        load_bytes(b"  \n", "empty.md")
    with pytest.raises(LoaderError, match=r"latin\.txt: not UTF-8"):
        load_bytes("café".encode("latin-1"), "latin.txt")


def test_directory_is_recursive_and_failures_do_not_stop_it(
    tmp_path: Path, make_pdf: Callable[..., bytes]
) -> None:
    (tmp_path / "faq").mkdir()
    (tmp_path / "faq" / "billing.md").write_text("# Billing\n\nInvoices monthly.", "utf-8")
    (tmp_path / "about.txt").write_text("About us.", "utf-8")
    (tmp_path / "guide.pdf").write_bytes(make_pdf([["A guide."]]))
    (tmp_path / "faq" / "broken.pdf").write_bytes(b"not a pdf at all")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.md").write_text("hidden", "utf-8")
    outcomes = list(load_directory(tmp_path))
    loaded = {o.document.doc_id for o in outcomes if o.document}
    failed = {o.path.name: o.error for o in outcomes if o.error}
    assert loaded == {"about.txt", "faq/billing.md", "guide.pdf"}
    assert set(failed) == {"broken.pdf", "logo.png"}
    assert "faq/broken.pdf" in (failed["broken.pdf"] or "")
    assert "unsupported file type" in (failed["logo.png"] or "")


def test_missing_path() -> None:
    [outcome] = list(load_path(Path("/nonexistent/kb")))
    assert outcome.error and "no such file or directory" in outcome.error

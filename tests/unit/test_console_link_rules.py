"""Which addresses become links in the console and its Markdown export (pure)."""

from __future__ import annotations

import pytest

from frontdesk.console.links import (
    http_url,
    link,
    mail_link,
    markdown_link,
    markdown_quote,
    markdown_text,
)


@pytest.mark.parametrize(
    "value",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",  # a browser strips the space
        "java\tscript:alert(1)",  # ...and the tab
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "//evil.test/path",  # scheme-relative: not an absolute address we checked
        "http://",
        "https:///no-host",
        "https://example.test/a b",
        'https://example.test/"onmouseover="alert(1)',
        "https://example.test/<b>",
        "http:/\\evil.test",
        "",
        None,
        42,
    ],
)
def test_anything_but_an_absolute_http_address_is_text(value: object) -> None:
    assert http_url(value) is None
    assert "<a" not in link(value, "title")
    assert "](" not in markdown_link(value, "title") and "<" not in markdown_link(value)


@pytest.mark.parametrize(
    "value",
    ["https://example.test/", "http://example.test:8080/a?b=c#d", "HTTPS://Example.test/x"],
)
def test_http_addresses_are_links(value: str) -> None:
    assert http_url(value) == value
    assert link(value, "Docs") == f'<a href="{value}" rel="noopener noreferrer">Docs</a>'
    assert markdown_link(value) == f"<{value}>"
    assert markdown_link(value, "Docs [v2]") == f"[Docs \\[v2\\]]({value})"


def test_a_link_text_is_escaped_and_parentheses_cannot_end_a_markdown_link() -> None:
    assert link("https://x.test/", "<b>bold</b>") == (
        '<a href="https://x.test/" rel="noopener noreferrer">&lt;b&gt;bold&lt;/b&gt;</a>'
    )
    assert markdown_link("https://x.test/a_(b)", "t") == "[t](https://x.test/a_%28b%29)"


def test_mail_links_only_for_plain_addresses() -> None:
    assert mail_link("ana@northwind.io") == (
        '<a href="mailto:ana@northwind.io">ana@northwind.io</a>'
    )
    for value in ("ana@northwind.io Bcc: x@y.z", "a@b.c?body=hi", "javascript:alert(1)//@x.io"):
        assert "<a" not in mail_link(value)


def test_markdown_text_is_inert_and_reads_as_written() -> None:
    text = markdown_text("<img src=x onerror=alert(1)> [a](javascript:x) **b** `c` | d ~e~")
    assert "<" not in text and "](" not in text
    assert text == (
        "&lt;img src=x onerror=alert\\(1\\)&gt; \\[a\\]\\(javascript:x\\) "
        "\\*\\*b\\*\\* \\`c\\` \\| d \\~e\\~"
    )
    assert markdown_text("&lt;img") == "&amp;lt;img"  # an entity stays the text it was


def test_a_quoted_message_cannot_start_a_line_of_the_document() -> None:
    lines = markdown_quote("Hi\n## Turn 9 (route ANSWER)\n---\n1. one\n- two\n> three\n===")
    assert all(line.startswith(">") for line in lines)
    assert lines == [
        "> Hi",
        "> \\## Turn 9 \\(route ANSWER\\)",
        "> \\---",
        "> 1\\. one",
        "> \\- two",
        "> &gt; three",
        "> \\===",
    ]

"""What `guard.visitor_text` keeps and removes from visitor-derived strings (pure)."""

from __future__ import annotations

import pytest

from frontdesk.conversation.reducers import merge_form_collection, merge_visitor_profile
from frontdesk.guard.visitor_text import clean_field, clean_fields, clean_text, clean_tree

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("Evil Corp <!channel> <http://2130706433|pay invoice>", "Evil Corp"),
        ("<@U024BE7LH> CTO", "CTO"),
        ("Acme <b>Labs</b>", "Acme Labs"),
        ("<50 employees, >10 sites", "<50 employees, >10 sites"),  # not markup: kept
        ("AT&T", "AT&T"),
        ("Ana\r\nBcc: x@y.z", "Ana Bcc: x@y.z"),
        ("abc\u202edef\u200b\x00\x07\x1b\udc80", "abcdef"),
        ("  São   Paulo\t", "São Paulo"),
        ("👩\u200d💻 dev", "👩\u200d💻 dev"),  # ZWJ sequences survive
    ],
)
def test_fields_lose_markup_controls_and_line_breaks(raw: str, kept: str) -> None:
    assert clean_field(raw) == kept


def test_fields_and_texts_are_bounded_with_an_ellipsis() -> None:
    assert clean_field("x" * 500) == "x" * 199 + "…"
    assert len(clean_text("y" * 10_000)) == 3000
    assert clean_field("short", 10) == "short"


def test_texts_keep_lines_and_visible_markup_for_the_channel_to_escape() -> None:
    text = "Hi\r\n\r\n\r\n\r\n<@U024BE7LH> see <http://x|y>\x00\u2028bye"
    assert clean_text(text) == "Hi\n\n<@U024BE7LH> see <http://x|y>\nbye"


def test_mappings_and_trees() -> None:
    assert clean_fields({"email\n": "a@b.io\r\n", "n": 3, "": "dropped"}) == {
        "email": "a@b.io",
        "n": 3,
    }
    assert clean_tree({"k": ["a\x00", {"b": "c\u202e"}], "n": None}) == {
        "k": ["a", {"b": "c"}],
        "n": None,
    }


def test_state_reducers_clean_what_the_visitor_supplied() -> None:
    profile = merge_visitor_profile({"email": "a@b.io"}, {"company_name": "X <!here>\n"})
    assert profile == {"email": "a@b.io", "company_name": "X"}
    forms = merge_form_collection(None, {"collected_values": {"size": "<i>50</i>"}})
    assert forms["collected_values"] == {"size": "50"}

"""What the embedding model reads of a chunk: machine encoding is left out, language never."""

from __future__ import annotations

import base64

import pytest

from frontdesk.knowledge.ingest.encoded import embedding_text, is_encoded_run
from frontdesk.knowledge.models import Chunk

pytestmark = pytest.mark.unit

BOOKMARKLET = (
    "javascript:(function()%7Bif%20(window.location.href.indexOf(%22watch%3Fv%3D%22)%20%3E"
    "%20-1%20%26%26%20document.title)%7Bwindow.open(%22https%3A%2F%2Fexample.org%2F%22)%7D%7D)()"
)
INLINE_IMAGE = base64.b64encode(bytes(range(256)) * 2).decode()


@pytest.mark.parametrize(
    "word", [BOOKMARKLET, INLINE_IMAGE, f"![logo](data:image/png;base64,{INLINE_IMAGE})"]
)
def test_encoding_is_caught(word: str) -> None:
    assert is_encoded_run(word)


@pytest.mark.parametrize(
    "word",
    [
        # Scripts written without spaces arrive as one long "word".
        "会员可以在账户设置页面随时取消订阅，取消后将在当前计费周期结束时停止续费，已支付的费用不予退还，如有疑问请联系客服团队。",
        "สมาชิกสามารถยกเลิกการสมัครได้ตลอดเวลาจากหน้าการตั้งค่าบัญชีของคุณโดยไม่มีค่าใช้จ่ายเพิ่มเติมใดๆ",
        "Donaudampfschiffahrtsgesellschaftskapitänswitwenrentenversicherungsgesellschaft",
        "https://help.example.com/articles/how-to-cancel-your-membership-and-get-a-refund-2024",
        "how-to-configure-single-sign-on-with-okta-and-azure-active-directory-for-teams",
        "https://trello.com/card/board/data-export/4d5ea62fd76aa1136000000c/4e9d8a91f482dd34ea18",
        "https://www.cdc.gov/vaccines/covid-19/info-by-product/janssen/Janssen-Prep-Summary.pdf",
        "short%20escape%20run",
    ],
)
def test_language_and_addresses_are_kept(word: str) -> None:
    assert not is_encoded_run(word)


def test_only_the_encoded_runs_leave_what_is_embedded() -> None:
    content = (
        "Drag this link to your bookmarks bar:\n\n"
        f"{BOOKMARKLET}\n\nThen click it on any video page. Logo: {INLINE_IMAGE}"
    )
    chunk = Chunk("c1", "d1", 0, content, ("Saving videos", "Bookmarklet"))
    assert embedding_text(chunk) == (
        "Saving videos > Bookmarklet\n\nDrag this link to your bookmarks bar:\n\n"
        "Then click it on any video page. Logo:"
    )
    plain = Chunk("c2", "d1", 1, "Plain text with a link https://example.org/a.", ("Help",))
    assert embedding_text(plain) == plain.indexed_text

"""The abuse gate of seed 000: its spam sequence, hack block, length block and priority."""

import pytest

from frontdesk.guard.abuse import check_abuse, next_spam_count

pytestmark = pytest.mark.unit


def test_seed_spam_sequence_turns_1_to_5() -> None:
    last: str | None = None
    count = 0
    outcomes = []
    for message in ["hello", "hello", "Hello ", "  HELLO", "different question"]:
        count = next_spam_count(last, message, count)
        block = check_abuse(hack_count=0, spam_count=count, message=message)
        outcomes.append((count, block.kind if block else None))
        last = message
    assert outcomes == [(0, None), (1, None), (2, None), (3, "spam"), (0, None)]


def test_hack_block_is_permanent_and_takes_priority() -> None:
    block = check_abuse(hack_count=2, spam_count=5, message="x" * 20_000, language="ru")
    assert block is not None and block.kind == "hack"
    assert "новую сессию" in block.message
    assert check_abuse(hack_count=1, spam_count=0, message="hi") is None


def test_spam_beats_length_and_length_blocks_one_message() -> None:
    long = "x" * 15_001
    spam = check_abuse(hack_count=0, spam_count=3, message=long)
    assert spam is not None and spam.kind == "spam"
    length = check_abuse(hack_count=0, spam_count=0, message=long, language="de")
    assert length is not None and length.kind == "length"
    assert check_abuse(hack_count=0, spam_count=0, message="x" * 15_000) is None


@pytest.mark.parametrize("language", ["en", "fr", "es", "de", "it", "pt", "nl", "ru"])
def test_block_messages_are_localized(language: str) -> None:
    for kind_args in ({"hack_count": 2, "spam_count": 0}, {"hack_count": 0, "spam_count": 3}):
        block = check_abuse(message="hi", language=language, **kind_args)
        assert block is not None and block.message
    english = check_abuse(hack_count=2, spam_count=0, message="hi").message  # type: ignore[union-attr]
    if language != "en":
        localized = check_abuse(hack_count=2, spam_count=0, message="hi", language=language)
        assert localized is not None and localized.message != english

"""The abuse gate: its spam sequence, hack block, length block and priority."""

import pytest

from frontdesk.guard.abuse import (
    HACK_BLOCK_MINUTES,
    HACK_CONFIDENT_AT,
    active_hack_count,
    check_abuse,
    counts_toward_block,
    next_spam_count,
)

pytestmark = pytest.mark.unit


def test_spam_sequence_turns_1_to_5() -> None:
    last: str | None = None
    count = 0
    outcomes = []
    for message in ["hello", "hello", "Hello ", "  HELLO", "different question"]:
        count = next_spam_count(last, message, count)
        block = check_abuse(hack_count=0, spam_count=count, message=message)
        outcomes.append((count, block.kind if block else None))
        last = message
    assert outcomes == [(0, None), (1, None), (2, None), (3, "spam"), (0, None)]


def test_hack_block_takes_priority() -> None:
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


def test_only_confident_detections_count_toward_the_block() -> None:
    assert counts_toward_block(0.97)
    assert counts_toward_block(HACK_CONFIDENT_AT)
    # A suspected attack gets the refusal; two of them must not lock a visitor out.
    assert not counts_toward_block(0.6)
    assert not counts_toward_block(0.6, confident_at=0.9)
    assert counts_toward_block(0.6, confident_at=0.5)


def test_a_hack_block_lifts_after_the_window_without_attacks() -> None:
    now = 1_000_000.0
    window = HACK_BLOCK_MINUTES * 60
    assert active_hack_count(2, now - 60, now) == 2
    assert check_abuse(hack_count=active_hack_count(2, now - 60, now), spam_count=0, message="hi")
    # One second before the window ends the block holds; at its end it is gone.
    assert active_hack_count(2, now - window + 1, now) == 2
    assert active_hack_count(2, now - window, now) == 0
    recovered = active_hack_count(2, now - window, now)
    assert check_abuse(hack_count=recovered, spam_count=0, message="hi") is None
    assert active_hack_count(2, now - 11 * 60, now, block_minutes=10) == 0


def test_an_untimed_hack_count_from_an_older_session_is_forgotten() -> None:
    # Sessions saved before attacks were timed carried a count "for good".
    assert active_hack_count(5, None, 1_000_000.0) == 0
    assert active_hack_count(0, 999_999.0, 1_000_000.0) == 0

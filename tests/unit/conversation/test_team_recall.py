"""Which team member's words a visitor's message asks about (after a live takeover)."""

from __future__ import annotations

import pytest

from frontdesk.conversation.nodes.common import team_message_named
from frontdesk.engines.base import Turn

pytestmark = pytest.mark.unit

TURNS = [
    Turn("Hello", "Hi! How can I help?"),
    Turn("Which plan?", "Start with the trial.", team="Jana Krüger"),
    Turn("And billing?", "Monthly or yearly.", team="Tom"),
    Turn("Thanks", "You're welcome!"),
]


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("Was hat Jana vorgeschlagen?", "Start with the trial."),
        ("what did KRÜGER say", "Start with the trial."),
        ("Tom, was that yearly?", "Monthly or yearly."),
        ("What did you suggest?", None),  # no one named: the bot's usual reading
        ("Tomorrow?", None),  # a name is a whole word, not a part of one
        ("what did jana say", None),  # a name is written as one
        ("Tom can you check again?", None),  # a first word is a name only when addressed
    ],
)
def test_the_named_team_members_latest_words(message: str, said: str | None) -> None:
    found = team_message_named(message, TURNS)
    assert (found.assistant if found else None) == said


def test_the_bots_own_turns_and_one_letter_names_are_never_recalled() -> None:
    assert team_message_named("What did you say, J?", [Turn("?", "x", team="J")]) is None
    assert team_message_named("Hi again", [Turn("Hello", "Hi again!")]) is None


def test_an_operator_named_like_a_word_is_not_named_by_that_word() -> None:
    will = [Turn("Which plan?", "Start with the trial.", team="Will Baker")]
    assert team_message_named("Will you be open tomorrow?", will) is None
    assert team_message_named("I will come by tomorrow", will) is None
    assert team_message_named("What did Will suggest?", will) is not None
    assert team_message_named("Will, what was the plan?", will) is not None

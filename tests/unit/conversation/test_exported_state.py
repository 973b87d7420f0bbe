"""A session's export shows what the conversation remembers of the visitor, not the
turn's working state (messages and passages are exported on their own)."""

from langchain_core.messages import HumanMessage

from frontdesk.conversation.state import TurnValues
from frontdesk.conversation.transcripts import exported_state


def test_the_export_keeps_what_is_remembered_of_the_visitor_and_nothing_else() -> None:
    values: TurnValues = {
        "messages": [HumanMessage("Do you open on Sundays?")],
        "input": "Do you open on Sundays?",
        "language": "de",
        "turn_number": 3,
        "visitor_profile": {"company": "Bäckerei Sonne"},
        "answer": "Sonntags geschlossen [1].",
        "hack_count": 0,
    }

    exported = exported_state(values)

    assert exported == {
        "language": "de",
        "turn_number": 3,
        "visitor_profile": {"company": "Bäckerei Sonne"},
    }


def test_a_new_conversation_exports_an_empty_state() -> None:
    assert exported_state({}) == {}

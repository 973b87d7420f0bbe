"""The graph's routers: each reads the state and returns a `Literal` of node names,
raising on a state it does not know, so a turn can never fall through silently.
`graph.py` wires them with `add_conditional_edges`. The policies they apply are pure
functions beside them: the routing table in `route_table.py` (`decide_route`: explicit
request, high stakes, hot lead, accepted offers), and what follows a route in
`outcomes.py` (booking flows, redirect and handoff routings, site support, team
answers, live handoffs, the visitor's contact). Every way a turn reaches a person is
decided in these three modules: `decide_route`, `relevance_gate` and `route_or_retry`
(a high-stakes question: a person offered beside the answer, or handed over when the
documentation has none), `after_answer_writer` (the writer failed) and
`after_stall_check` (a stalled conversation).
"""

from __future__ import annotations

from typing import Literal, get_args

from frontdesk.conversation.outcomes import team_answer_of
from frontdesk.conversation.route_table import (
    ACT_REASONS,
    QUESTION_SUPPORT_CHECKED_INTENTS,
    SUPPORT_CHECKED_INTENTS,
    TOPIC_WORDS,
    RouteInput,
    is_conversation_act,
)
from frontdesk.conversation.state import ChatState, booking_of, intent_of, qualification_flags
from frontdesk.conversation.vocabulary import ROUTES, Block, LiveOwner, Route
from frontdesk.engines.local.answering.text import guess_language, is_question, question_terms

BLOCK_KINDS: frozenset[str] = frozenset(get_args(Block))


# Nothing relevant found: one more search with an expanded query, then a clarifying question.
MAX_RETRIEVAL_RETRIES = 1


QUESTION_ENDINGS = ("?", "？", "💌", "👉", "? 👇")


def _route(state: ChatState) -> Route:
    route = state.get("route")
    if route not in ROUTES:
        raise ValueError(f"unknown route {route!r}")
    return route  # type: ignore[return-value]


LIVE_OWNERS: frozenset[str] = frozenset(get_args(LiveOwner))


def after_abuse_gate(state: ChatState) -> Literal["detect_language", "human_relay", "__end__"]:
    """A blocked turn ends here: no model call, no search (abuse gate). While a
    person owns the conversation (live takeover) the bot is silent: the message goes to
    them (`human_relay`)."""
    block = state.get("block")
    if block is not None:
        if block in BLOCK_KINDS:
            return "__end__"
        raise ValueError(f"unknown block {block!r}")
    owner = state.get("live_owner") or "bot"
    if owner not in LIVE_OWNERS:
        raise ValueError(f"unknown conversation owner {owner!r}")
    return "human_relay" if owner == "human" else "detect_language"


def after_skill_selector(state: ChatState) -> Literal["site_support_check", "intent_router"]:
    """An everyday request, or small talk asked as a question or stating a topic, waits
    for the site's content before it is refused; everything else is routed at once
    (keyboard mash and "thanks" need no search)."""
    intent = intent_of(state)
    label = intent.get("label")
    if label is None:
        raise ValueError("no intent before routing")
    if intent.get("nonsense") or _act_alone(state):
        return "intent_router"
    if label in SUPPORT_CHECKED_INTENTS:
        return "site_support_check"
    text = state["input"]
    if (
        label in QUESTION_SUPPORT_CHECKED_INTENTS
        and (is_question(text) or states_a_topic(text))
        and not _decided_before_content(state)
    ):
        return "site_support_check"
    return "intent_router"


def _act_alone(state: ChatState) -> bool:
    """A conversation act and nothing more (`is_conversation_act`): its reply needs no
    search, so the router decides at once."""
    intent = intent_of(state)
    text = state["input"]
    act = intent.get("act")
    if act is None:
        return False
    probe = RouteInput(
        intent=str(intent.get("label")),
        act=act,
        asks_question=is_question(text),
        states_topic=states_a_topic(text),
    )
    return is_conversation_act(probe)


def states_a_topic(text: str) -> bool:
    """Pure: the message has `TOPIC_WORDS` content words or more (a statement about
    something rather than a conversation act)."""
    return len(question_terms(text, guess_language(text))) >= TOPIC_WORDS


def _decided_before_content(state: ChatState) -> bool:
    """The router decides this turn before the site's content has a say (a person asked
    for, a high-stakes matter, a booking being collected): its search is not waited for,
    so the fast path still cancels it."""
    return (
        bool(qualification_flags(state).get("explicit_human_request"))
        or bool(intent_of(state).get("high_stakes"))
        or booking_of(state).get("status") == "collecting"
    )


def route_by_intent(
    state: ChatState,
) -> Literal[
    "team_recall_writer",
    "enricher_awaiter",
    "redirect_handler",
    "booking_handler",
    "propose_handoff",
]:
    """The routing table, as `intent_router` decided it (`decide_route`). A question
    about what a named team member said in this conversation is answered from their
    words, whatever the classifier made of it."""
    if state.get("team_recall"):
        return "team_recall_writer"
    route = _route(state)
    if route == "ANSWER":
        return "enricher_awaiter"  # the only path that collects the background work
    if route == "REDIRECT":
        return "redirect_handler"
    if route == "BOOKING":
        return "booking_handler"
    return "propose_handoff"


def after_match_facts(state: ChatState) -> Literal["fact_answer_writer", "grade_docs"]:
    """A question about a fact the site states (its hours, phone, address, the price of a
    named service…) is answered from the facts; every other question from the pages."""
    reply = state.get("fact_reply")
    if reply is None:
        return "grade_docs"
    if not reply.get("facts"):
        raise ValueError("a matched fact question without facts")
    return "fact_answer_writer"


AnswerSource = Literal["team_answer_writer", "answer_writer", "retry_retrieval"]


def _answer_source(state: ChatState) -> AnswerSource | None:
    """Corrective RAG's choice: a team answer that matches, as the team wrote it; else
    what survived grading; else one retry; None when nothing is left to answer from."""
    retries = int(state.get("retries") or 0)
    if not 0 <= retries <= MAX_RETRIEVAL_RETRIES:
        raise ValueError(f"retries out of range: {retries}")
    if team_answer_of(state) is not None:
        return "team_answer_writer"
    if state.get("graded_chunks"):
        return "answer_writer"
    if retries < MAX_RETRIEVAL_RETRIES:
        return "retry_retrieval"
    return None


def relevance_gate(
    state: ChatState,
) -> Literal[
    "team_answer_writer", "answer_writer", "retry_retrieval", "clarify_handler", "propose_handoff"
]:
    """Answer from a team answer, the graded passages or a retry (`_answer_source`);
    with nothing found, ask back, or hand a high-stakes matter to a person."""
    source = _answer_source(state)
    if source is not None:
        return source
    if state.get("route_reason") == "high_stakes":
        return "propose_handoff"
    return "clarify_handler"


def draft_gate(
    state: ChatState,
) -> Literal["team_answer_writer", "answer_writer", "retry_retrieval", "__end__"]:
    """The relevance gate of an operator's draft (`conversation/draft.py`): the same
    choice, except that nothing found ends the draft empty — the operator is told
    nothing fits; a draft never asks back or hands off."""
    return _answer_source(state) or "__end__"


def after_answer_writer(state: ChatState) -> Literal["verify_facts", "propose_handoff"]:
    """A writer that failed (provider error, timeout, dropped stream) ends in a handoff
    offer with reason `llm_failure` (writer failure); else the answer is checked."""
    if state.get("writer_failed"):
        return "propose_handoff"
    if _route(state) != "ANSWER":
        raise ValueError(f"unexpected route after the writer: {state.get('route')!r}")
    return "verify_facts"


def route_or_retry(state: ChatState) -> Literal["stall_check", "offer_human", "propose_handoff"]:
    """Keep a full answer; anything less ends with an offer of a
    person (soft escalation). A high-stakes answer always ends with a person: offered
    beside the procedure, or handed the question when the documentation had none."""
    evaluation = state.get("evaluation")
    after = evaluation["after"] if evaluation else None
    if after not in ("auto", "human", "error"):
        raise ValueError(f"unknown evaluation outcome {after!r}")
    if state.get("route_reason") == "high_stakes":
        return "propose_handoff"
    if after == "auto" and state.get("routing") == "answered":
        return "stall_check"
    return "offer_human"


def after_stall_check(
    state: ChatState,
) -> Literal["propose_handoff", "skill_ending_writer", "dialog_state_extractor"]:
    """Stall path, then skills: how a reply ends."""
    answer_path = _route(state) == "ANSWER"
    full_answer = answer_path and state.get("routing") == "answered"
    # Only a full answer ends in a stall offer: a partial one, a clarifying question or a
    # refusal already offered a person (one offer per reply), a redirect never does.
    if full_answer and state.get("stall"):
        return "propose_handoff"
    # A full answer may end with the chosen skill (👉 question, 💌 offer, 👇 demo).
    return "skill_ending_writer" if full_answer else "dialog_state_extractor"


def suggestion_router(
    state: ChatState,
) -> Literal["answer_suggester", "follow_up_suggester", "finalize"]:
    """Answer options when the reply asks something; else follow-up questions. A
    conversation act's reply ends in an open question ("Wie kann ich Ihnen helfen?"):
    "Yes, please" / "Not now" would answer nothing."""
    route = _route(state)
    asks = (state.get("answer") or "").rstrip().endswith(QUESTION_ENDINGS)
    if state.get("suggested_follow_ups"):
        return "finalize"  # the handler already chose suggestions (redirects)
    if route == "REDIRECT" and state.get("route_reason") in ACT_REASONS:
        return "finalize"
    if asks:
        return "answer_suggester"
    return "follow_up_suggester" if route == "ANSWER" else "finalize"

"""Understanding the visitor's message: language, intent ‖ signals, skills, and the route."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import cast

from langgraph.runtime import Runtime

from frontdesk.conversation.contact import contact_in, declines_contact
from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.nodes.appointment_flags import appointment_flags
from frontdesk.conversation.nodes.common import (
    Update,
    history_turns,
    language_of,
    team_message_named,
    timed,
)
from frontdesk.conversation.nodes.skills import follow_up_context
from frontdesk.conversation.outcomes import contact_reply
from frontdesk.conversation.route_table import RouteInput, decide_route
from frontdesk.conversation.routes import states_a_topic
from frontdesk.conversation.state import (
    ChatState,
    booking_of,
    intent_of,
    interest_of,
    interest_score,
    progress_of,
    qualification_of,
    turn_of,
    visitor_email,
)
from frontdesk.conversation.substates import InterestSignals, Qualification
from frontdesk.conversation.vocabulary import ContactReply
from frontdesk.engines.base import IntentResult
from frontdesk.engines.local.answering.parts import addresses_the_business
from frontdesk.engines.local.answering.phrases import (
    asks_pricing,
    mentions_plans,
    voices_grievance,
)
from frontdesk.engines.local.answering.text import is_question
from frontdesk.facts.answer import KIND_MARGINS, SMALL_TALK_KIND
from frontdesk.facts.meaning import kind_scores
from frontdesk.guard.abuse import counts_toward_block
from frontdesk.knowledge.search.acts import Act
from frontdesk.knowledge.search.everyday import reads_as_everyday
from frontdesk.leads.qualification import QualificationDelta, apply_delta, is_hot_lead
from frontdesk.sites.handoff import ContactWay
from frontdesk.text.embedding import Embedder

log = logging.getLogger(__name__)

INTEREST_DECAY = 0.9  # older signals count a little less than fresh ones
# Under this many characters a message keeps the conversation's language: too short for
# lingua to tell, unless it is nearly certain (`SHORT_SURE`) or a chat word says (`SURE`
# is lingua's usual bar).
SHORT_MESSAGE = 12
SHORT_SURE = 0.9
SURE = 0.5
# The longest message the embedding model is asked about as a possible act: acts are short.
MAX_ACT_CHARS = 60


async def reply_language(
    text: str, previous: str | None, supported: list[str], default: str
) -> str:
    """The reply language follows the visitor; very short messages keep the previous one.
    E-mail addresses and phone numbers are no words of any language: a message that is
    only one keeps the conversation's language (the previous turn's, else the site's)."""
    from frontdesk.engines.local.acts import without_contacts
    from frontdesk.engines.local.scan import read
    from frontdesk.text.language import detect_language as detect

    fallback = previous or default
    text = without_contacts(text)
    short = len(text.strip()) < SHORT_MESSAGE
    if short and previous:
        return previous
    # A short first message ("Ça va ? 😊": Portuguese to lingua, 0.68) is the site's
    # language unless a chat word names another or lingua is nearly certain.
    sure = SHORT_SURE if short else SURE
    language = await read(lambda window: detect(window, default=fallback, sure=sure), text)
    return language if language in supported else fallback


@timed
async def detect_language(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """The language of this turn's reply (`system_router`)."""
    site = runtime.context.site
    language = await reply_language(
        state["input"], state.get("language"), list(site.languages), site.default_language
    )
    return {"language": language}


def intent_from_state(state: ChatState) -> IntentResult:
    raw = intent_of(state)
    return IntentResult(
        intent=raw.get("label", "OTHER"),
        confidence=float(raw.get("confidence", 0.0)),
        high_stakes=bool(raw.get("high_stakes")),
        nonsense=bool(raw.get("nonsense")),
        reasoning=str(raw.get("reasoning", "")),
        act=raw.get("act"),
    )


def might_be_an_act(text: str, result: IntentResult) -> bool:
    """Pure: worth asking the embedding model whether the message is an act — short, no
    topic of its own, no question, and nothing the classifier flagged (an attack, keyboard
    mash, a high-stakes matter). A short question reads as "how are you" to it whatever it
    asks ("Hola, ¿a qué hora abren?" 0.925, "Hoe gaat het met je?" 0.929), so questions
    are the act head's alone."""
    if result.intent == "HACK" or result.nonsense or result.high_stakes:
        return False
    if len(text) > MAX_ACT_CHARS or is_question(text):
        return False
    return not states_a_topic(text)


def might_ask_how_i_am(text: str, result: IntentResult) -> bool:
    """Pure: a short question with no topic of its own ("Come stai?", "Hoe gaat het met
    je?") that the act head did not place: it may be "how are you", which only two readers
    agreeing decide (`small_talk_question`)."""
    if result.intent == "HACK" or result.nonsense or result.high_stakes:
        return False
    return len(text) <= MAX_ACT_CHARS and is_question(text) and not states_a_topic(text)


def small_talk_question(
    act: Act | None, kinds: Mapping[str, float], margin: float | None
) -> Act | None:
    """Pure: "how are you" when the shipped acts read it so and the fact reader puts it
    with small talk, nearer than any other kind by `margin` (the margin a fact kind needs
    when the search agrees). Either reader alone takes a short question wrongly: the acts
    read "Où êtes-vous ?" and "Hola, ¿a qué hora abren?" as "how are you", the fact kinds
    put them with the address and the hours."""
    if act != "how_are_you" or margin is None or len(kinds) < 2:
        return None
    ranked = sorted(kinds.items(), key=lambda item: item[1], reverse=True)
    (nearest, score), (_, runner_up) = ranked[0], ranked[1]
    return act if nearest == SMALL_TALK_KIND and score - runner_up >= margin else None


async def read_act(
    text: str,
    result: IntentResult,
    read: Callable[[str], Awaitable[Act | None]] | None,
    embedder: Embedder | None,
    language: str = "en",
) -> Act | None:
    """The conversation act the message is: the intent model's act head, else for a short
    statement the site's embedding model against the shipped acts (a phrasing the head
    never saw: "Nos vemos"), and for a short question "how are you" only when the fact
    reader agrees (`small_talk_question`: "Come stai?")."""
    if result.act is not None or read is None:
        return result.act
    if might_be_an_act(text, result):
        return await read(text)
    margins = KIND_MARGINS.get(embedder.name) if embedder is not None else None
    if embedder is None or margins is None or not might_ask_how_i_am(text, result):
        return None
    kinds = await asyncio.to_thread(kind_scores, embedder, text, language)
    return small_talk_question(await read(text), kinds, margins.least)


@timed
async def intent_classifier(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    ctx = runtime.context
    history = history_turns(state["messages"], ctx.context_window_turns)
    result = await ctx.engines.intent.classify(state["input"], history)
    act = await read_act(
        state["input"], result, ctx.read_act, ctx.facts_embedder, state.get("language") or "en"
    )
    return {
        "intent": {
            "label": result.intent,
            "confidence": round(result.confidence, 4),
            "high_stakes": result.high_stakes,
            "nonsense": result.nonsense,
            "reasoning": result.reasoning,
            "act": act,
        },
        "intent_history": [result.intent],
    }


@timed
async def signals_detector(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Interest signals and the qualification delta (`update_state`)."""
    ctx = runtime.context
    language = language_of(state, runtime)
    found = await ctx.engines.signals.detect(state["input"], language)
    turn = turn_of(state)

    previous = interest_of(state)
    score = float(previous.get("score", 0.0)) * INTEREST_DECAY + found.interest_delta
    interest = InterestSignals(
        score=round(min(score, 10.0), 4),
        current=list(found.interest_signals),
        history=[*previous.get("history", []), *found.interest_signals][-20:],
    )

    current = qualification_of(state)
    levels = {dim: lvl for dim, lvl in found.qualification.items() if lvl != "not_detected"}
    delta = QualificationDelta.model_validate(
        {
            **levels,
            **{flag: True for flag in found.flags},
            "explicit_human_request": found.explicit_human_request,
        }
    )
    evidence = {dim: found.evidence.get(dim, state["input"][:120]) for dim in levels}
    try:
        applied = apply_delta(current, delta, turn, evidence)  # type: ignore[arg-type]
    except ValueError:
        log.warning("qualification delta discarded", extra={"turn": turn})
        applied = None
    update: Update = {"interest_signals": interest}
    if applied is not None:
        for change in applied.rejected:
            log.warning(
                "qualification_monotonicity_violation",
                extra={
                    "dimension": change.dimension,
                    "current": change.current,
                    "proposed": change.proposed,
                    "turn": turn,
                },
            )
        update["qualification"] = cast(Qualification, applied.state.model_dump(mode="json"))
    if found.email:
        update["visitor_profile"] = {"email": found.email}
    return update


@timed
async def skill_selector(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    ctx = runtime.context
    choice = await ctx.engines.skills.select(
        intent_from_state(state),
        interest_score(state),
        ctx.site.qualification.interest_threshold,
        turn_of(state),
    )
    return {"skill_selection": {"skills": list(choice.skills), "reasoning": choice.reasoning}}


def pending_contact_reply(state: ChatState, way: ContactWay, intent: str) -> ContactReply | None:
    """This message as the answer to the contact question a handoff is waiting on (None:
    no handoff waits)."""
    progress = progress_of(state)
    if progress.get("contact_ask_turn") is None:
        return None
    text = state["input"]
    return contact_reply(
        contact=(found[1] if (found := contact_in(text, way)) else None),
        declined=declines_contact(text),
        asked_again=bool(progress.get("contact_asked_again")),
        hack=intent == "HACK",
    )


def _site_supported(state: ChatState) -> bool:
    support = state.get("site_support")
    return bool(support and (support["supported"] or support.get("fact")))


def _site_strongly_supported(state: ChatState) -> bool:
    support = state.get("site_support")
    return bool(support and (support.get("strong") or support.get("fact")))


def _asks_the_business(state: ChatState) -> bool:
    """A question to the business in the second person ("Do you have a car park?") that
    the site's embedding model reads nearer a question any business is asked than any
    everyday request ("can you add 5 and 89" is put to an assistant, not a business). A
    model without both readings never tells, so such a message is refused as before."""
    support = state.get("site_support")
    if not support or not addresses_the_business(state["input"]):
        return False
    nearest, bar = support.get("everyday"), support.get("everyday_bar")
    business = support.get("business")
    if nearest is None or bar is None or business is None:
        return False
    return not reads_as_everyday(nearest, bar) and business > nearest


@timed
async def intent_router(state: ChatState, runtime: Runtime[TurnContext]) -> Update:
    """Deterministic: the route is a function of intent, qualification, interest, booking
    (`route_table.decide_route`); `routes.route_by_intent` then picks the path's first node."""
    ctx = runtime.context
    intent = intent_from_state(state)
    qualification = qualification_of(state)
    booking = booking_of(state)
    signals = set(interest_of(state).get("current", ()))
    decision = decide_route(
        RouteInput(
            intent=intent.intent,
            high_stakes=intent.high_stakes,
            nonsense=intent.nonsense,
            explicit_human_request=qualification.explicit_human_request,
            hot_lead=is_hot_lead(qualification) and not qualification.is_negative_persona,
            proposals_issued=int(progress_of(state).get("stage3_proposals_issued", 0)),
            interest_score=interest_score(state),
            interest_threshold=ctx.site.qualification.interest_threshold,
            booking_status=booking.get("status", "idle"),
            message_has_email=visitor_email(state) is not None and "@" in state["input"],
            email_known=visitor_email(state) is not None,
            # A procedure or policy asked about; a grievance with a "who do I talk to?"
            # is still for a person.
            asks_question=is_question(state["input"]) and not voices_grievance(state["input"]),
            states_topic=states_a_topic(state["input"]),
            booking_wish="demo_interest" in signals,
            mentions_pricing="pricing_interest" in signals
            or asks_pricing(state["input"])
            or mentions_plans(state["input"]),
            act=intent.act,
            site_supported=_site_supported(state),
            site_strongly_supported=_site_strongly_supported(state),
            asks_the_business=_asks_the_business(state),
            contact_reply=pending_contact_reply(state, ctx.site.handoff.contact, intent.intent),
            **follow_up_context(state, ctx.site.qualification.forms),
            **appointment_flags(
                state,
                ctx.site,
                intent=intent.intent,
                language=language_of(state, runtime),
                now=ctx.now,
                signals=signals,
            ),
        )
    )
    recalled = None
    if decision.route in ("ANSWER", "REDIRECT") and not decision.hack and not intent.nonsense:
        # Asked about what a team member said here: their words answer it, not the pages
        # (asking for them again, or an attack naming them, keeps its own route).
        recalled = team_message_named(
            state["input"], history_turns(state["messages"], ctx.context_window_turns)
        )
    if decision.route != "ANSWER" or recalled is not None:
        # Only the ANSWER path reads the background work: stop it before it costs a search.
        ctx.cancel_pending()
    update: Update = {"route": decision.route, "route_reason": decision.reason}
    if recalled is not None and recalled.team:
        update["team_recall"] = {"name": recalled.team, "text": recalled.assistant}
        update["route"], update["route_reason"] = "ANSWER", "team_recall"
    if decision.hack and counts_toward_block(intent.confidence, ctx.site.abuse.hack_confident_at):
        # Only confident detections count toward the block; the gate has already
        # forgotten attacks older than the block window.
        update["hack_count"] = int(state.get("hack_count", 0)) + 1
        update["last_hack_at"] = ctx.now.timestamp()
    if decision.booking_status is not None:
        update["booking"] = {**booking, "status": decision.booking_status}
    return update

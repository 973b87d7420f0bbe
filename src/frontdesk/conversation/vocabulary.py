"""The conversation's vocabulary: routes, routing values, route reasons, owners, blocks.

Defined once; the graph's state, its routers, the API payload and the console derive
theirs from here, so a new word is added in one place and mypy finds every reader.
"""

from __future__ import annotations

from typing import Literal, get_args

from frontdesk.knowledge.search.acts import Act
from frontdesk.store.live import Owner

# The four ways the graph takes a turn.
Route = Literal["ANSWER", "REDIRECT", "BOOKING", "HANDOFF"]
# What a finished turn records: a graph route, or a turn the graph did not answer —
# BLOCKED by the abuse gate, HUMAN when a person owns the conversation (relayed to them).
TurnRoute = Literal[Route, "BLOCKED", "HUMAN"]
ROUTES: tuple[Route, ...] = get_args(Route)
TURN_ROUTES: tuple[TurnRoute, ...] = get_args(TurnRoute)

# The routing value of a turn: how well it was answered, and why not.
Routing = Literal[
    "answered",
    "partially_answered",
    "followup",
    "low_confidence",
    "cannot_answer",
    "high_stakes",
    "out_of_scope",
    "irrelevant",
    "nonsense",
]

# Why a turn was redirected: refused, off-topic, or a conversation act with its own reply.
RedirectReason = Literal[
    "hack",
    "offtopic",
    "other",
    "nonsense",
    "stop_booking",
    "support",
    # conversation acts, each with its own reply (`texts.yaml`, `act.*`)
    Act,
]
# Why a turn was handed to a person.
HandoffReason = Literal[
    "explicit_request",
    "hot_lead",
    "stall",
    "high_stakes",
    "high_stakes_offer",
    "high_stakes_question",
    "llm_failure",
]
# The visitor's answer to "how can our team reach you?" (`outcomes.contact_reply`).
ContactReply = Literal["contact_given", "contact_declined", "contact_ask_again", "contact_open"]
# Why the answer path runs: the intent, the site's own content, or a booking paused.
AnswerReason = Literal[
    "learn", "context", "support", "site_supported", "asks_the_business", "high_stakes"
]
# Why the booking path runs, and which of its steps.
BookingReason = Literal[
    "appointment_cancel",
    "appointment_move",
    "appointment_ask",
    "appointment_reply",
    "appointment_requested",
    "post_conversion",
    "profiling_answer",
    "booking_requested",
    "content_gating_email",
    "interest_threshold",
    "booking_field_answer",
]
# The route table's reason for its route (`route_table.decide_route`), one per branch.
RouteReason = Literal[
    RedirectReason,
    HandoffReason,
    ContactReply,
    AnswerReason,
    BookingReason,
    "handoff_accepted",
    "stall_accepted",
    "paused_booking",
    "exit_booking",
    "team_recall",
]

# Who owns the conversation this turn (`store.live`): the bot, or a person of the team.
LiveOwner = Owner
# Why the abuse gate blocked a turn (`nodes/gate.py`).
Block = Literal["hack", "spam", "length"]

BookingStatus = Literal["idle", "collecting", "booked", "declined"]
ContactStatus = Literal["provided", "asked", "declined"]
LeadLevel = Literal["hot", "warm", "cold"]

"""What the console's analytics page counts for one site over a period.

Every figure is one aggregate query over the site's rows in the period (indexed by site
and time); turn outcomes and the time to first token come from the turns' traces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import func, select

from frontdesk.store.db import Repository
from frontdesk.store.models import Conversation, Handoff, Lead, Message, Trace
from frontdesk.store.widget import AnswerFeedback

# Outcome groups of the routing values and routes.
ANSWERED = ("answered", "partially_answered", "followup")
CANNOT_ANSWER = ("cannot_answer", "low_confidence", "high_stakes")
REFUSED = ("out_of_scope", "irrelevant", "nonsense")
TTFT_SAMPLE = 1000


@dataclass
class SiteAnalytics:
    days: list[tuple[date, int]] = field(default_factory=list)
    turns: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    funnel: list[tuple[str, int]] = field(default_factory=list)
    ttft_ms: list[float] = field(default_factory=list)
    top_questions: list[tuple[str, int]] = field(default_factory=list)
    feedback: dict[str, int] = field(default_factory=dict)  # visitors' votes: up, down


def _as_date(value: object) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


class AnalyticsRepository(Repository):
    def site(self, site_id: str, first_day: date, last_day: date) -> SiteAnalytics:
        start = datetime.combine(first_day, time.min, tzinfo=UTC)
        end = datetime.combine(last_day + timedelta(days=1), time.min, tzinfo=UTC)
        found = SiteAnalytics()
        in_period = (
            Conversation.site_id == site_id,
            Conversation.started_at >= start,
            Conversation.started_at < end,
        )
        per_day = dict(
            (_as_date(day), int(count))
            for day, count in self.session.execute(
                select(func.date(Conversation.started_at), func.count())
                .where(*in_period)
                .group_by(func.date(Conversation.started_at))
            )
        )
        day = first_day
        while day <= last_day:
            found.days.append((day, per_day.get(day, 0)))
            day += timedelta(days=1)

        # Turns by their traces (one per graph turn, indexed by site and time); blocked
        # turns never reach the graph, so they are counted from their stored replies.
        replies = (
            select(Trace.route, Trace.routing, func.count())
            .where(Trace.site_id == site_id, Trace.created_at >= start, Trace.created_at < end)
            .group_by(Trace.route, Trace.routing)
        )
        site_conversations = select(Conversation.id).where(Conversation.site_id == site_id)

        def replies_routed(route: str) -> int:
            """Stored replies of a route the graph leaves no trace for (ix_messages_route)."""
            count = self.session.scalar(
                select(func.count()).where(
                    Message.route == route,
                    Message.created_at >= start,
                    Message.created_at < end,
                    Message.conversation_id.in_(site_conversations),
                )
            )
            return int(count or 0)

        # Blocked turns never reach the graph; relayed ones are the person's who owns the
        # conversation (live takeover), not answers of the assistant.
        outcomes = {"answered": 0, "refused": replies_routed("BLOCKED"), "cannot answer": 0}
        outcomes.update({"handed off": 0, "with a person": replies_routed("HUMAN"), "other": 0})
        found.turns = outcomes["refused"] + outcomes["with a person"]
        for route, routing, count in self.session.execute(replies):
            found.turns += int(count)
            if route == "HANDOFF":
                outcomes["handed off"] += int(count)
            elif route == "BLOCKED" or routing in REFUSED:
                outcomes["refused"] += int(count)
            elif routing in CANNOT_ANSWER:
                outcomes["cannot answer"] += int(count)
            elif routing in ANSWERED:
                outcomes["answered"] += int(count)
            else:
                outcomes["other"] += int(count)
        found.outcomes = outcomes

        found.feedback = {"up": 0, "down": 0}
        for rating, count in self.session.execute(
            select(AnswerFeedback.rating, func.count())
            .where(
                AnswerFeedback.site_id == site_id,
                AnswerFeedback.created_at >= start,
                AnswerFeedback.created_at < end,
            )
            .group_by(AnswerFeedback.rating)
        ):
            found.feedback[str(rating)] = int(count)

        conversations = sum(count for _day, count in found.days)
        engaged = self.session.scalar(
            select(func.count()).where(*in_period, Conversation.turn_count >= 2)
        )
        lead_rows = dict(
            (status, int(count))
            for status, count in self.session.execute(
                select(Lead.status, func.count())
                .where(Lead.site_id == site_id, Lead.created_at >= start, Lead.created_at < end)
                .group_by(Lead.status)
            )
        )
        handoffs = self.session.scalar(
            select(func.count()).where(
                Handoff.site_id == site_id, Handoff.created_at >= start, Handoff.created_at < end
            )
        )
        leads = sum(lead_rows.values())
        contacted = sum(lead_rows.get(s, 0) for s in ("contacted", "won", "lost"))
        found.funnel = [
            ("conversations", conversations),
            ("2+ turns", int(engaged or 0)),
            ("handoffs", int(handoffs or 0)),
            ("leads", leads),
            ("contacted", contacted),
            ("won", lead_rows.get("won", 0)),
        ]

        for nodes in self.session.scalars(
            select(Trace.nodes)
            .where(Trace.site_id == site_id, Trace.created_at >= start, Trace.created_at < end)
            .order_by(Trace.created_at.desc())
            .limit(TTFT_SAMPLE)
        ):
            for node in nodes or []:
                if isinstance(node, dict) and node.get("node") == "first_token":
                    found.ttft_ms.append(float(node.get("ms") or 0.0))
                    break

        question = func.lower(func.trim(Message.content))
        found.top_questions = [
            (str(text), int(count))
            for text, count in self.session.execute(
                select(question, func.count())
                .where(
                    Message.role == "user",
                    Message.turn == 1,
                    Message.conversation_id.in_(select(Conversation.id).where(*in_period)),
                )
                .group_by(question)
                .order_by(func.count().desc())
                .limit(10)
            )
        ]
        return found

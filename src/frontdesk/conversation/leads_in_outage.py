"""What a turn owes the team while the store cannot write, and what the visitor hears.

A turn that carries a handoff or a captured e-mail owes the team a lead. While the store
cannot keep it, the lead waits in the spool (and is replayed into the store later) or,
when the spool cannot write either, is mailed to the site's fallback address at once
(`handoff/direct.py`). Either way the visitor is told the truth: their request is noted
and the team will write to them, but nobody can join the chat meanwhile (taking a
conversation over needs the store).
"""

from __future__ import annotations

from typing import TypedDict

from frontdesk.conversation.state import TurnValues
from frontdesk.conversation.substates import Handoff, LeadCapture
from frontdesk.conversation.texts import say
from frontdesk.settings import Settings
from frontdesk.sites.schema import SiteConfig


class CapturedLead(TypedDict):
    """A captured e-mail as the handoff it owes the team (nothing was proposed)."""

    reason: str
    notify: bool


def owed_handoff(values: TurnValues) -> Handoff | CapturedLead | None:
    """The handoff this turn's state owes the team (a captured e-mail is one too)."""
    handoff = values.get("handoff")
    if handoff and handoff.get("notify"):
        return handoff.copy()
    capture = values.get("lead_capture")
    if capture:
        return CapturedLead(reason=f"lead_capture:{capture.get('capture_context')}", notify=True)
    return None


def visitor_email(values: TurnValues) -> str | None:
    email = (values.get("visitor_profile") or {}).get("email") or (
        values.get("lead_capture") or LeadCapture()
    ).get("email")
    return str(email) if email else None


def lead_kept_note(values: TurnValues, site: SiteConfig) -> str:
    """What the visitor is told when their lead is kept outside the store."""
    language = str(values.get("language") or site.default_language)
    email = visitor_email(values)
    if email:
        return say("store.lead_kept", language, tone=site.tone, overrides=site.texts, email=email)
    return say("store.lead_kept_no_email", language, tone=site.tone, overrides=site.texts)


async def mail_owed_lead(
    settings: Settings,
    site: SiteConfig,
    *,
    session_id: str,
    turn: int,
    key: str,
    message: str,
    values: TurnValues,
) -> bool:
    """The last path for a lead neither the store nor the spool could keep: mailed to the
    fallback address. True when the mail server took it (False: nothing was owed, or
    the mail failed too)."""
    from frontdesk.handoff.direct import mail_handoff
    from frontdesk.handoff.packets import HandoffRequest

    handoff = owed_handoff(values)
    if handoff is None:
        return False
    email = visitor_email(values)
    profile = {**(values.get("visitor_profile") or {}), **({"email": email} if email else {})}
    request = HandoffRequest(
        site=site,
        session_id=session_id,
        turn=turn,
        handoff=handoff,
        values={**values, "visitor_profile": profile},
        message=message,
        language=values.get("language") or site.default_language,
    )
    return await mail_handoff(settings, request, key=key)

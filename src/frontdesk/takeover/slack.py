"""Slack bridge of the live takeover: a reply in the thread of a handoff message reaches
the visitor's chat (Slack Events API).

Incoming webhooks do not say which message they posted, so the bridge learns it from the
Events API itself: Slack reports the handoff message (a `bot_message` carrying the
"Frontdesk session <id>" line, `handoff/channels/slack.py`) with its `ts`; a later
message whose `thread_ts` is that `ts` is a reply to it. Every request is verified with
the app's signing secret (v0 HMAC-SHA256 of `v0:<timestamp>:<body>`, at most five
minutes old); Slack's retries are relayed once.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from frontdesk.handoff.channels.slack import SESSION_MARKER

MAX_AGE_S = 300
SESSION_LINE = re.compile(re.escape(SESSION_MARKER) + r" ([0-9a-fA-F-]{36}) ·")


def slack_signature(secret: str, timestamp: str, body: bytes) -> str:
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def signature_valid(
    secret: str, timestamp: str | None, signature: str | None, body: bytes, now: datetime
) -> bool:
    if not secret or not timestamp or not signature:
        return False
    try:
        sent = int(timestamp)
    except ValueError:
        return False
    if abs(now.timestamp() - sent) > MAX_AGE_S:  # a replayed request
        return False
    return hmac.compare_digest(slack_signature(secret, timestamp, body), signature)


@dataclass(frozen=True)
class HandoffPosted:
    """Slack reports our own handoff message: its ts belongs to this session."""

    ts: str
    session_id: str


@dataclass(frozen=True)
class ThreadReply:
    """A person's reply in a thread."""

    thread_ts: str
    ts: str
    user: str
    name: str
    text: str


SlackEvent = HandoffPosted | ThreadReply | None


def handoff_session(blocks: object) -> str | None:
    """The session our handoff message names: its last block, a context line that starts
    with the marker. Only that line counts — a visitor's words quoted earlier in the
    message ("Frontdesk session <someone else's id> · …") cannot bind the thread."""
    if not isinstance(blocks, list) or not blocks:
        return None
    last = blocks[-1]
    if not isinstance(last, dict) or last.get("type") != "context":
        return None
    for element in last.get("elements") or []:
        text = element.get("text") if isinstance(element, dict) else None
        found = SESSION_LINE.match(text) if isinstance(text, str) else None
        if found:
            return found.group(1).lower()
    return None


def read_event(payload: dict[str, Any]) -> SlackEvent:
    """What an `event_callback` means to the bridge (None: nothing to do)."""
    event = payload.get("event")
    if not isinstance(event, dict) or event.get("type") != "message":
        return None
    ts = str(event.get("ts") or "")
    if not ts:
        return None
    if event.get("subtype") == "bot_message" or event.get("bot_id"):
        session_id = handoff_session(event.get("blocks"))
        return HandoffPosted(ts, session_id) if session_id else None
    thread_ts = event.get("thread_ts")
    if event.get("subtype") or not thread_ts or thread_ts == ts:
        return None  # edits, joins, and top-level messages are not replies
    text = str(event.get("text") or "").strip()
    if not text:
        return None
    profile = event.get("user_profile") or {}
    name = str(profile.get("display_name") or profile.get("real_name") or "").strip()
    return ThreadReply(str(thread_ts), ts, str(event.get("user") or ""), name or "Team", text)


RequestKind = Literal["url_verification", "event_callback", "other"]


def request_kind(payload: dict[str, Any]) -> RequestKind:
    kind = payload.get("type")
    if kind == "url_verification":
        return "url_verification"
    if kind == "event_callback":
        return "event_callback"
    return "other"

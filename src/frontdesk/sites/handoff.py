"""The handoff section of a site file: how a conversation reaches the team, and how the
team reaches the visitor."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import (
    Field,
    HttpUrl,
    field_validator,
)

from frontdesk.sites.common import Strict

# How the team reaches a visitor whose handoff nobody can answer live.
ContactWay = Literal["email", "phone", "either"]


class WebhookChannel(Strict):
    url: HttpUrl
    secret: str = Field(
        default="",
        description="Signing secret (Standard Webhooks): `whsec_<base64 of 24-64 random "
        "bytes>` is verifiable as is by any Standard Webhooks library; another string is "
        "used as its UTF-8 bytes. Empty: deliveries are not signed.",
    )

    @field_validator("secret")
    @classmethod
    def _spec_secret(cls, secret: str) -> str:
        if secret.startswith("whsec_"):
            body = secret.removeprefix("whsec_")
            if not re.fullmatch(r"[A-Za-z0-9+/]{16,}={0,2}", body) or len(body) % 4:
                raise ValueError("a whsec_ secret must be base64 (at least 12 bytes)")
        return secret


class HandoffConfig(Strict):
    slack_webhook_url: HttpUrl | None = None
    webhooks: list[WebhookChannel] = Field(default_factory=list)
    fallback_email: str = Field(
        default="", pattern=r"^$|^[^@\s]+@[^@\s]+\.[^@\s]+$", description="Last-resort inbox."
    )
    retry_delays_s: list[float] = Field(
        default_factory=lambda: [1.0, 3.0, 9.0],
        max_length=10,
        description="Waits between delivery attempts; attempts = 1 + len(retry_delays_s).",
    )
    crm_record_url: str = Field(
        default="",
        description="Link to a CRM record in Slack messages; {lead_id} is replaced. "
        "Empty: no button.",
    )
    slack_signing_secret: str = Field(
        default="",
        max_length=200,
        description="Live takeover's Slack bridge: the Slack app's signing secret. Set, "
        "handoff messages carry their session and a reply in the message's thread "
        "reaches the visitor's chat (Events API at /v1/slack/events/{site}). Empty: off.",
    )
    live_wait_seconds: int = Field(
        default=120,
        ge=10,
        le=3600,
        description="Live takeover: how long an accepted handoff rings the operators online "
        "before the visitor is told a person will follow up by email.",
    )
    contact: ContactWay = Field(
        default="email",
        description="What the visitor is asked for when a handoff cannot be answered live "
        "(outside business hours, or no operator online) and no way to reach them is known: "
        "an e-mail address, a phone number, or either.",
    )
    contact_wait_seconds: int = Field(
        default=900,
        ge=0,
        le=86_400,
        description="How long such a handoff waits for the visitor's answer before it goes "
        "to the team marked 'no contact: asked, no answer'. A contact or a refusal sends it "
        "at once.",
    )

    @field_validator("retry_delays_s")
    @classmethod
    def _non_negative_delays(cls, delays: list[float]) -> list[float]:
        if any(delay < 0 for delay in delays):
            raise ValueError("retry delays must be >= 0 seconds")
        return delays

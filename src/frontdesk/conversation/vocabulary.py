"""The conversation's vocabulary: routes, routing values, reasons, owners and blocks.

Defined once; the graph's state, its routers, the API payload and the console derive
theirs from here.
"""

from __future__ import annotations

from typing import Literal

Route = Literal["ANSWER", "REDIRECT", "BOOKING", "HANDOFF"]
BookingStatus = Literal["idle", "collecting", "booked", "declined"]
ContactStatus = Literal["provided", "asked", "declined"]

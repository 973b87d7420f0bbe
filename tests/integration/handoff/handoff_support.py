"""Helpers of the handoff integration tests (a unique module name: conftest clashes)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from tests.support.loopback import HttpReceiver
from tests.support.ports import free_port

FAST_RETRIES = "[0.01, 0.01, 0.01]"

MakeHandoff = Callable[..., str]


def acme_yaml(http: HttpReceiver, *, refused_webhook: bool = False, slack: bool = True) -> str:
    dead = f"http://127.0.0.1:{free_port()}/nobody-home"
    hooks = [f"{{url: '{http.url('/hook')}', secret: s3cret}}"]
    if refused_webhook:
        hooks.append(f"{{url: '{dead}'}}")
    slack_line = f"slack_webhook_url: '{http.url('/slack')}'" if slack else ""
    return textwrap.dedent(
        f"""\
        id: acme
        name: Acme
        widget: {{public_key: pk_acme_000000000001}}
        business_hours: {{timezone: Europe/Madrid}}
        handoff:
          {slack_line}
          webhooks: [{", ".join(hooks)}]
          fallback_email: sales@acme.test
          retry_delays_s: {FAST_RETRIES}
          crm_record_url: 'https://crm.acme.test/leads/{{lead_id}}'
        """
    )

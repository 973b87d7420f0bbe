"""Schema-driven fuzzing (schemathesis + hypothesis): no input may produce a 5xx.

Every operation in the OpenAPI document is called with generated parameters and bodies,
once exactly as generated (random keys, random origins) and once with valid credentials,
so the generated bodies reach the route logic instead of stopping at the 401.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from api_support import DEMO_KEY, DEMO_ORIGIN, MakeApi, admin_headers
from hypothesis import HealthCheck, given, settings
from scripted_backend import Reply, ScriptedBackend

schemathesis = pytest.importorskip("schemathesis")

pytestmark = pytest.mark.integration

EXAMPLES_PER_OPERATION = 25
BUDGET_S = 50.0


class FakeKnowledge:
    def ingest_upload(self, site: Any, data: bytes, filename: str) -> dict[str, Any]:
        return {"ingested": [filename], "failed": {}}


def content_type(response: Any) -> str:
    value = response.headers.get("content-type", "")
    return str(value[0] if isinstance(value, list) and value else value)


def test_no_generated_request_gets_a_5xx(make_api: MakeApi) -> None:
    backend = ScriptedBackend(default=Reply(tokens=["ok"], answer="ok", citations=[]))
    api = make_api(
        backend,
        rate_limits={
            "per_session_per_minute": 10_000,
            "per_ip_per_minute": 10_000,
            "per_site_per_day": 100_000,
        },
    )
    api.app.state.knowledge = FakeKnowledge()
    schema = schemathesis.openapi.from_asgi("/openapi.json", api.app)
    valid = {"X-Frontdesk-Key": DEMO_KEY, "Origin": DEMO_ORIGIN, **admin_headers()}
    started = time.monotonic()
    failures: list[str] = []
    operations = 0

    def fuzz(operation: Any, authorised: bool) -> None:
        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def call(case: Any) -> None:
            headers = dict(case.headers or {})
            if authorised:
                headers.update(valid)
            response = case.call(headers=headers)
            if response.status_code >= 500:
                failures.append(
                    f"{case.method} {case.formatted_path} -> {response.status_code}: "
                    f"{response.text[:200]}"
                )
            elif response.status_code >= 400 and content_type(response).startswith(
                "application/json"
            ):
                assert set(response.json()["error"]) == {"code", "message"}

        call()

    for result in schema.get_all_operations():
        operations += 1
        for authorised in (False, True):
            fuzz(result.ok(), authorised)
        assert time.monotonic() - started < BUDGET_S, "fuzzing took too long"

    assert operations >= 12
    assert failures == []
    assert backend.calls, "authorised bodies reached the chat backend"

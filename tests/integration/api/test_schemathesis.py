"""Schemathesis over the whole OpenAPI document: no generated request may get a 5xx.

The app is the real one: the LangGraph conversation service on the local engine, the
SQLite store in a temporary folder, real knowledge ingestion for uploads. Every operation,
admin routes included, is called with generated parameters and bodies twice: once as
generated (random keys and origins: the 401/403 paths), once with valid credentials (the
site's key and allowed origin, the admin key as a bearer), so generated bodies reach the
graph and the store. Generated text includes NUL and lone surrogates, which gave 500s
before the API normalised every request string.

Bounded: a fixed number of examples per operation and mode (about 400 requests, 90 of
them real turns) and a wall-clock budget for the fuzzing; on a 2-core machine the run
takes ~15-20 s plus the service's model loading at start-up (~10 s idle, up to ~40 s
when the machine is busy). Schemathesis never generates lone surrogates (they cannot be
sent as UTF-8); tests/integration/api/test_bad_characters.py sends them.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from pathlib import Path
from typing import Any

import pytest
from api_support import ADMIN_KEY, DEMO_KEY, DEMO_ORIGIN, admin_headers, write_sites
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from real_service import service_unavailable_reason

from frontdesk.api.app import create_app
from frontdesk.runtime import build_runtime
from frontdesk.settings import Settings

schemathesis = pytest.importorskip("schemathesis")
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

REASON = service_unavailable_reason()
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(REASON is not None, reason=REASON or ""),
]

RUNS = [
    # (credentials, generation mode, examples per operation)
    (False, GenerationMode.POSITIVE, 5),  # as generated: mostly refused at the key check
    (True, GenerationMode.POSITIVE, 15),  # valid bodies that reach the graph and the store
    (True, GenerationMode.NEGATIVE, 8),  # invalid bodies and parameters past the key check
]
BUDGET_S = 60.0
"""CPU seconds of this process for the fuzzing itself (~17 s here), after the models loaded:
the app runs in this process, and CPU time does not grow when other test workers or other
jobs share the cores, as wall time does."""
NO_LIMITS = {"per_session_per_minute": 10_000, "per_ip_per_minute": 10_000}


def content_type(response: Any) -> str:
    value = response.headers.get("content-type", "")
    return str(value[0] if isinstance(value, list) and value else value)


def test_no_generated_request_gets_a_server_error(tmp_path: Path, sites_dir: Path) -> None:
    write_sites(sites_dir, {**NO_LIMITS, "per_site_per_day": 100_000})
    process = Settings(
        data_dir=tmp_path / "data",
        sites_dir=sites_dir,
        admin_api_key_hash=hashlib.sha256(ADMIN_KEY.encode()).hexdigest(),
        admin_auth_max_failures=100_000,  # generated wrong keys must not lock the test out
        dispatch_in_process=False,
    )
    runtime = build_runtime(process)
    app = create_app(process, runtime)  # no backend given: the real ChatService
    valid = {"X-Frontdesk-Key": DEMO_KEY, "Origin": DEMO_ORIGIN, **admin_headers()}
    failures: list[str] = []
    statuses: dict[str, set[int]] = {}
    try:
        with TestClient(app, raise_server_exceptions=False):  # lifespan: loads the models
            started = time.process_time()
            schema = schemathesis.openapi.from_asgi("/openapi.json", app)
            operations = [result.ok() for result in schema.get_all_operations()]
            for operation in operations:
                for authorised, mode, examples in RUNS:
                    strategy = operation.as_strategy(
                        mode,
                        # With credentials, the admin routes of a site that exists.
                        path_parameters=(
                            {"site": "demo"} if authorised and "{site}" in operation.path else None
                        ),
                    )
                    _fuzz(strategy, examples, valid if authorised else {}, failures, statuses)
                    elapsed = time.process_time() - started
                    assert elapsed < BUDGET_S, f"fuzzing took too long ({elapsed:.0f} s)"
    finally:
        runtime.close()

    assert len(operations) >= 12
    assert failures == [], "\n".join(failures)
    # The credentials worked: generated bodies reached the graph, the store and the admin.
    assert 200 in statuses["POST /v1/ask"] and 200 in statuses["POST /v1/chat"]
    assert 200 in statuses["GET /v1/admin/sites/{site}/leads"]


def _fuzz(
    strategy: Any,
    examples: int,
    credentials: dict[str, str],
    failures: list[str],
    statuses: dict[str, set[int]],
) -> None:
    @given(case=strategy)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def call(case: Any) -> None:
        headers = {**(case.headers or {}), **credentials}
        response = case.call(headers=headers)
        label = f"{case.method} {case.operation.path}"
        statuses.setdefault(label, set()).add(response.status_code)
        try:
            case.validate_response(response, checks=[not_a_server_error])
            assert response.status_code < 500
        except (Exception, BaseExceptionGroup) as exc:  # recorded, not raised: no shrinking
            failures.append(
                f"{case.method} {case.formatted_path} -> {response.status_code}: "
                f"{response.text[:300]} ({type(exc).__name__})\n  {case.as_curl_command()}"
            )
            return
        if response.status_code >= 400 and content_type(response).startswith("application/json"):
            assert set(response.json()["error"]) == {"code", "message"}, response.text

    # Negative mode on an operation with nothing to make invalid (e.g. /healthz).
    with contextlib.suppress(Unsatisfiable):
        call()

"""The app factory, health and readiness, and JSON errors."""

import pytest
from fastapi.testclient import TestClient

from frontdesk.api.app import create_app
from frontdesk.runtime import Runtime

pytestmark = pytest.mark.integration


def test_health_ready_and_demo_page(runtime: Runtime) -> None:
    with TestClient(create_app(runtime=runtime)) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json()["checks"]["migrations"] == "ok"
        page = client.get("/")
        assert page.status_code == 200
        assert "Tessellate" in page.text


def test_readyz_reports_a_schema_behind_head(runtime: Runtime) -> None:
    with runtime.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num='0000'")
    with TestClient(create_app(runtime=runtime)) as client:
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["status"] == "not_ready"


def test_unknown_route_is_a_json_error(runtime: Runtime) -> None:
    with TestClient(create_app(runtime=runtime)) as client:
        response = client.get("/nope")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"

"""The site's settings page tells its team on which pages the widget was refused, from
the stored record (any replica's), and only for their own site."""

from __future__ import annotations

import pytest
from api_support import ACME_KEY, DEMO_KEY
from console_support import Console, add_operator, sign_in

pytestmark = pytest.mark.integration

NEW_PAGE = "https://www.tessellate.example"


def _refused(console: Console, key: str, origin: str) -> None:
    response = console.client().get(
        "/v1/widget/config", params={"key": key}, headers={"Origin": origin}
    )
    assert response.status_code == 403


def test_the_settings_page_names_the_refused_origin(console_app: Console) -> None:
    add_operator(console_app.runtime, "owner@demo.test", {"demo": "owner"})
    add_operator(console_app.runtime, "owner@acme.test", {"acme": "owner"})
    _refused(console_app, DEMO_KEY, NEW_PAGE)
    _refused(console_app, ACME_KEY, "https://secret-launch.acme.example")

    demo_owner = console_app.client()
    assert sign_in(demo_owner, "owner@demo.test").status_code == 303
    page = demo_owner.get("/console/sites/demo/settings").text
    assert 'id="refused-origins"' in page
    assert f"The widget was refused on <code>{NEW_PAGE}</code>" in page
    assert "add it to <code>allowed_origins</code>" in page
    assert "secret-launch" not in page  # another tenant's pages stay theirs

    acme_owner = console_app.client()
    assert sign_in(acme_owner, "owner@acme.test").status_code == 303
    page = acme_owner.get("/console/sites/acme/settings").text
    assert "secret-launch.acme.example" in page
    assert NEW_PAGE not in page


def test_the_notice_goes_once_the_origin_is_allowed(console_app: Console) -> None:
    add_operator(console_app.runtime, "owner@demo.test", {"demo": "owner"})
    _refused(console_app, DEMO_KEY, NEW_PAGE)
    site = console_app.runtime.sites["demo"]
    site.config.widget.allowed_origins.append(NEW_PAGE)  # the file fixed and reloaded
    client = console_app.client()
    assert sign_in(client, "owner@demo.test").status_code == 303
    assert 'id="refused-origins"' not in client.get("/console/sites/demo/settings").text

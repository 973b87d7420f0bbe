"""Links the console hands out are on the configured address, never the request's Host
header (an owner copying an invitation link must not send its token to another server)."""

from __future__ import annotations

import re

import pytest
from console_support import Console, add_operator, page_csrf, sign_in

pytestmark = pytest.mark.integration

MALLORY = "mallory@demo.test"


def test_the_invite_link_ignores_a_forged_host_header(console_app: Console) -> None:
    add_operator(console_app.runtime, MALLORY, {"demo": "owner"})
    console_app.runtime.settings.public_url = "https://chat.example.com/"
    client = console_app.client()
    client.headers["Host"] = "evil.example"
    assert sign_in(client, MALLORY).status_code == 303
    csrf = page_csrf(client, "/console/sites/demo/settings")
    page = client.post(
        "/console/sites/demo/settings/invite", data={"csrf_token": csrf, "role": "agent"}
    )
    link = re.search(r'id="invite-link">([^<]+)<', page.text)
    assert link and link.group(1).startswith("https://chat.example.com/console/invite/")
    assert "evil.example" not in page.text


def test_without_a_public_url_the_link_names_the_listening_address(console_app: Console) -> None:
    add_operator(console_app.runtime, MALLORY, {"demo": "owner"})
    settings = console_app.runtime.settings
    assert settings.public_url == ""
    client = console_app.client()
    client.headers["Host"] = "evil.example"
    assert sign_in(client, MALLORY).status_code == 303
    csrf = page_csrf(client, "/console/sites/demo/settings")
    page = client.post(
        "/console/sites/demo/settings/invite", data={"csrf_token": csrf, "role": "agent"}
    )
    link = re.search(r'id="invite-link">([^<]+)<', page.text)
    assert link and link.group(1).startswith(f"http://{settings.host}:{settings.port}/console/")
    settings.host = "0.0.0.0"  # every interface: no one address to name, a relative link
    page = client.post(
        "/console/sites/demo/settings/invite", data={"csrf_token": csrf, "role": "agent"}
    )
    link = re.search(r'id="invite-link">([^<]+)<', page.text)
    assert link and link.group(1).startswith("/console/invite/")
    assert "FRONTDESK_PUBLIC_URL" in page.text and "evil.example" not in page.text


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"FRONTDESK_HOST": "0.0.0.0", "FRONTDESK_PORT": "8391"}, "http://127.0.0.1:8391"),
        ({"FRONTDESK_PORT": "8391"}, "http://127.0.0.1:8391"),
        (
            {"FRONTDESK_PORT": "8391", "FRONTDESK_PUBLIC_URL": "https://chat.example.com/"},
            "https://chat.example.com",
        ),
    ],
)
def test_operators_add_prints_an_invitation_people_can_open(
    console_app: Console, env: dict[str, str], expected: str
) -> None:
    """Printed links name the address the server is opened at: FRONTDESK_PUBLIC_URL, else
    the listening address (never 0.0.0.0, which no browser can be sent to elsewhere)."""
    from typer.testing import CliRunner

    from frontdesk.cli import app as cli_app
    from frontdesk.settings import get_settings

    settings = console_app.settings
    get_settings.cache_clear()
    full_env = {
        "FRONTDESK_DATA_DIR": str(settings.data_dir),
        "FRONTDESK_SITES_DIR": str(settings.sites_dir),
        **env,
    }
    added = CliRunner().invoke(
        cli_app,
        ["operators", "add", "new@demo.test", "--site", "demo", "--password", ""],
        env=full_env,
    )
    get_settings.cache_clear()
    assert added.exit_code == 0, added.output
    link = re.search(r"(\S+)/console/invite/\S+", added.output)
    assert link and link.group(1) == expected, added.output

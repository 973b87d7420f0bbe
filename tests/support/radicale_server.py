"""A real Radicale CalDAV server on a loopback port, with one user and one calendar.

Appointment tests book, move and cancel against it; `stop()` takes it away to test a
calendar that is down.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.ports import free_port

USER = "team"
PASSWORD = "radicale-test-password"
CALENDAR = "appointments"

_MKCALENDAR = """<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop><D:displayname>Appointments</D:displayname></D:prop></D:set>
</C:mkcalendar>"""


class RadicaleServer:
    """`python -m radicale` with htpasswd auth (plain) and a filesystem store in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def calendar_url(self) -> str:
        return f"{self.base}/{USER}/{CALENDAR}/"

    def start(self) -> RadicaleServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        users = self.folder / "users"
        users.write_text(f"{USER}:{PASSWORD}\n", encoding="utf-8")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "radicale",
                "--server-hosts",
                f"127.0.0.1:{self.port}",
                "--storage-filesystem-folder",
                str(self.folder / "collections"),
                "--auth-type",
                "htpasswd",
                "--auth-htpasswd-filename",
                str(users),
                "--auth-htpasswd-encryption",
                "plain",
                "--rights-type",
                "owner_only",
            ],
            stdout=subprocess.DEVNULL,
            stderr=(self.folder / "radicale.log").open("wb"),
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(self.base + "/.web/", timeout=0.5)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("radicale did not start") from None
                time.sleep(0.1)
        if not (self.folder / "collections" / "collection-root" / USER / CALENDAR).exists():
            created = httpx.request(
                "MKCALENDAR",
                self.calendar_url,
                content=_MKCALENDAR,
                auth=(USER, PASSWORD),
                headers={"Content-Type": "application/xml"},
                timeout=5,
            )
            created.raise_for_status()
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def __enter__(self) -> RadicaleServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

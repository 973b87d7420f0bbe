"""`frontdesk digest send SITE | show SITE`: the weekly digest of content gaps, now."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

import typer

from frontdesk.cli.common import SitesDirOption, console, fail, settings_for
from frontdesk.sites.registry import SiteConfigError

if TYPE_CHECKING:
    from frontdesk.runtime import Runtime
    from frontdesk.sites.schema import SiteConfig

digest_app = typer.Typer(help="The digest of content gaps emailed to each site's owners.")

DaysOption = Annotated[
    int | None, typer.Option("--days", min=1, max=92, help="Days covered (default: setting).")
]


@contextlib.contextmanager
def site_runtime(site_id: str, sites_dir: SitesDirOption) -> Iterator[tuple[Runtime, SiteConfig]]:
    """The runtime and SITE's config, closed afterwards; a clear error for a bad sites
    folder or an unknown site."""
    from frontdesk.runtime import build_runtime

    try:
        runtime = build_runtime(settings_for(sites_dir))
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc
    try:
        if site_id not in runtime.sites:
            raise fail(f"unknown site {site_id!r}")
        yield runtime, runtime.sites[site_id].config
    finally:
        runtime.close()


@digest_app.command("send")
def send(
    site_id: Annotated[str, typer.Argument(help="Site id.")],
    days: DaysOption = None,
    sites_dir: SitesDirOption = None,
) -> None:
    """Email SITE's digest to its owners now (the SMTP settings of the fallback email)."""
    from frontdesk.api.ingestion import open_knowledge_base
    from frontdesk.improvement.digest import DigestError, send_digest

    with site_runtime(site_id, sites_dir) as (runtime, site):
        try:
            sent = asyncio.run(
                send_digest(runtime, open_knowledge_base(runtime), site, days=days, claim=False)
            )
        except DigestError as exc:
            raise fail(f"digest not sent: {exc}") from exc
        assert sent is not None  # claim=False always sends or raises
        console.print(f"sent “{sent.subject}” to {', '.join(sent.recipients)}")


@digest_app.command("show")
def show(
    site_id: Annotated[str, typer.Argument(help="Site id.")],
    days: DaysOption = None,
    sites_dir: SitesDirOption = None,
) -> None:
    """Print SITE's digest as it would be emailed (nothing is sent)."""
    from datetime import UTC, datetime

    from frontdesk.api.ingestion import open_knowledge_base
    from frontdesk.improvement.digest import digest_figures, digest_text

    with site_runtime(site_id, sites_dir) as (runtime, site):
        figures = digest_figures(
            runtime,
            open_knowledge_base(runtime),
            site,
            days or runtime.settings.digest_days,
            datetime.now(UTC),
        )
        subject, body = digest_text(figures)
        console.print(subject, markup=False, highlight=False)
        console.print(body, markup=False, highlight=False)

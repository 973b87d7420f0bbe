"""`frontdesk operators add | list | remove | invite`: who may sign in to the console."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from frontdesk.cli.common import SitesDirOption, console, fail, settings_for, site_url
from frontdesk.settings import Settings
from frontdesk.sites.registry import SiteConfigError

if TYPE_CHECKING:
    from frontdesk.runtime import Runtime

operators_app = typer.Typer(help="Console operators and their role on each site.")

RoleOption = Annotated[
    str, typer.Option("--role", help="owner (everything), agent (work leads), viewer (read).")
]


def _runtime(sites_dir: Path | None) -> Runtime:
    from frontdesk.runtime import build_runtime

    try:
        return build_runtime(settings_for(sites_dir))
    except SiteConfigError as exc:
        raise fail(str(exc)) from exc


@operators_app.command("add")
def add(
    email: Annotated[str, typer.Argument(help="The operator's e-mail (their sign-in name).")],
    site: Annotated[str, typer.Option("--site", help="Site id the role applies to.")],
    role: RoleOption = "agent",
    password: Annotated[
        str | None,
        typer.Option(
            "--password",
            help="Set the password directly (else you are asked; empty: print an invitation).",
        ),
    ] = None,
    sites_dir: SitesDirOption = None,
) -> None:
    """Give EMAIL a role on SITE (creating the operator if new)."""
    from frontdesk.api.console_access import INVITE_LIFETIME
    from frontdesk.console.passwords import hash_password, password_problem
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import ROLES, OperatorRepository

    if role not in ROLES:
        raise fail(f"--role must be one of: {', '.join(ROLES)}")
    if "@" not in email:
        raise fail(f"{email!r} is not an e-mail address")
    runtime = _runtime(sites_dir)
    try:
        if site not in runtime.sites:
            known = ", ".join(sorted(runtime.sites)) or "none"
            raise fail(f"unknown site {site!r} (known: {known})")
        with transaction(runtime.sessions) as session:
            existing = OperatorRepository(session).by_email(email)
        if password is None and (existing is None or existing.password_hash is None):
            password = typer.prompt(
                "Password (10+ characters; empty: print an invitation link instead)",
                default="",
                hide_input=True,
                show_default=False,
            )
        hashed = None
        if password:
            problem = password_problem(password, password)
            if problem:
                raise fail(problem)
            hashed = hash_password(password)
        with transaction(runtime.sessions) as session:
            operators = OperatorRepository(session)
            if hashed is None and (existing is None or existing.password_hash is None):
                _row, token = operators.invite(site, role, INVITE_LIFETIME, email)
                console.print(f"Invitation for {email} ({role} of {site}), valid 7 days:")
                console.print(_link(runtime.settings, token), soft_wrap=True)
                if not runtime.settings.public_url.strip():
                    console.print(
                        "[dim](for a server listening there: set FRONTDESK_PUBLIC_URL, or "
                        "FRONTDESK_HOST/FRONTDESK_PORT as served, for another address)[/]",
                        soft_wrap=True,
                    )
                return
            operator = operators.ensure(email, hashed)
            operators.grant(operator, site, role)
        console.print(f"[green]✓[/] {email} is {role} of {site}")
    finally:
        runtime.close()


@operators_app.command("list")
def list_operators(sites_dir: SitesDirOption = None) -> None:
    """Every operator with their roles."""
    from frontdesk.store.operators import OperatorRepository

    runtime = _runtime(sites_dir)
    try:
        with runtime.sessions() as session:
            operators = OperatorRepository(session)
            table = Table("email", "roles", "password set", "created")
            for operator in operators.everyone():
                roles = operators.roles(operator.id)
                table.add_row(
                    operator.email,
                    ", ".join(f"{site}:{role}" for site, role in sorted(roles.items())) or "-",
                    "yes" if operator.password_hash else "no",
                    operator.created_at.strftime("%Y-%m-%d"),
                )
        console.print(table)
    finally:
        runtime.close()


@operators_app.command("remove")
def remove(
    email: Annotated[str, typer.Argument(help="The operator to remove.")],
    site: Annotated[
        str | None, typer.Option("--site", help="Only their role on this site.")
    ] = None,
    sites_dir: SitesDirOption = None,
) -> None:
    """Remove an operator (signing them out everywhere), or only their role on --site."""
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import OperatorRepository

    runtime = _runtime(sites_dir)
    try:
        with transaction(runtime.sessions) as session:
            operators = OperatorRepository(session)
            operator = operators.by_email(email)
            if operator is None:
                raise fail(f"no operator {email!r}")
            if site:
                if not operators.revoke(operator.id, site):
                    raise fail(f"{email} has no role on {site!r}")
            else:
                operators.remove(email)
        console.print(f"[green]✓[/] removed {email}" + (f" from {site}" if site else ""))
    finally:
        runtime.close()


def console_url(settings: Settings) -> str:
    return f"{site_url(settings)}/console"


def _link(settings: Settings, token: str) -> str:
    return f"{console_url(settings)}/invite/{token}"


def first_owner_link(runtime: Runtime) -> str | None:
    """A one-time link that creates the first owner (of every site), while the
    deployment has no operator at all; None once it has one. Printing a new link
    withdraws the earlier ones."""
    from frontdesk.api.console_access import INVITE_LIFETIME
    from frontdesk.store.db import transaction
    from frontdesk.store.operators import ALL_SITES, OperatorRepository

    with transaction(runtime.sessions) as session:
        operators = OperatorRepository(session)
        if operators.count():
            return None
        operators.withdraw_first_owner_invites()  # only the newest link works
        _row, token = operators.invite(ALL_SITES, "owner", INVITE_LIFETIME)
    return _link(runtime.settings, token)

"""Alembic environment: the URL and connection come from `frontdesk.store.migrate`."""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import Connection

from frontdesk.store.db import make_engine
from frontdesk.store.models import Base

config = context.config
target_metadata = Base.metadata


def _include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    # Knowledge-index tables (FTS5, pgvector) are created by hand-written revisions and
    # have no models: autogenerate must not propose dropping them.
    return not (type_ == "table" and reflected and compare_to is None)


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        include_object=_include_object,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()

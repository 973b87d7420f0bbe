"""Engines and sessions for the app store (SQLite by default, PostgreSQL in production)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, Executable, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

_Row = TypeVar("_Row")


class Repository:
    """The rows of one kind, read and written in the caller's session (its transaction)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def _insert(self, row: _Row) -> _Row:
        """`row`, added and flushed: its generated id and defaults are set."""
        self.session.add(row)
        self.session.flush()
        return row

    def _insert_if_missing(self, model: type[Any], **values: Any) -> None:
        """Insert the row unless one with the same key exists or is being inserted by
        another transaction (`ON CONFLICT DO NOTHING`: PostgreSQL waits for it to end,
        SQLite for its write lock, taken here until this transaction ends). Two requests
        that both found no row then never fail on the key: each reads the one row after."""
        statement: Executable
        if self.session.get_bind().dialect.name == "postgresql":
            statement = postgresql.insert(model).values(**values).on_conflict_do_nothing()
        else:
            statement = sqlite.insert(model).values(**values).on_conflict_do_nothing()
        self.session.execute(statement)

    def _changed(self, statement: Executable) -> int:
        """How many rows an UPDATE or DELETE changed (0 when the driver does not say)."""
        return int(getattr(self.session.execute(statement), "rowcount", 0) or 0)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers proceed while a turn is being written; foreign keys are off by default.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for `url`; for SQLite, creates the parent folder and sets pragmas."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if parsed.drivername == "postgresql":
        # psycopg 3 is the driver we ship; plain postgresql:// would ask for psycopg2.
        parsed = parsed.set(drivername="postgresql+psycopg")
    return create_engine(parsed, pool_pre_ping=True)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work commits together or not at all."""
    with factory.begin() as session:
        yield session

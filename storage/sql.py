"""Statements written once, and the small interface each backend implements.

A statement is SQL text with named ``:params`` (and ``{fragments}`` for the
few words the two dialects spell differently). SQLAlchemy compiles it once
per dialect, to SQLite's ``?`` or asyncpg's ``$n`` with the parameters'
order; after that a statement costs what a hand-written one cost: the store
hands the driver the compiled string and a tuple.

:class:`Backend` is what differs between SQLite and PostgreSQL: how a
transaction is run (SQLite's single writer and group commit, PostgreSQL's
pool), how JSON travels, and the fragments. :class:`Tx` is one transaction.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine.interfaces import Dialect as SaDialect

T = TypeVar("T")
C = TypeVar("C")
#: A row as the driver gives it: by index and by column name.
Row = Any


@dataclass(frozen=True)
class Dialect:
    """A backend's SQLAlchemy dialect and its spelling of the ``{fragments}``."""

    name: str
    compiler: SaDialect
    fragments: Mapping[str, str] = field(default_factory=dict)


class Sql:
    """One statement for both backends, compiled once per dialect."""

    __slots__ = ("_compiled", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._compiled: dict[str, tuple[str, tuple[str, ...]]] = {}

    def compiled(self, dialect: Dialect) -> tuple[str, tuple[str, ...]]:
        """The driver's SQL string and the parameter names in its order."""
        found = self._compiled.get(dialect.name)
        if found is None:
            clause = sa.text(self.text.format_map(dialect.fragments))
            compiled = clause.compile(dialect=dialect.compiler)
            found = (compiled.string, tuple(compiled.positiontup or ()))
            self._compiled[dialect.name] = found
        return found

    def bind(self, dialect: Dialect, params: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]]:
        """The driver's SQL string and its arguments for ``params``."""
        sql, names = self.compiled(dialect)
        return sql, tuple(map(params.__getitem__, names))

    def bind_many(
        self, dialect: Dialect, rows: Sequence[Mapping[str, Any]]
    ) -> tuple[str, list[tuple[Any, ...]]]:
        """The driver's SQL string and the arguments of each of ``rows``."""
        sql, names = self.compiled(dialect)
        return sql, [tuple(map(row.__getitem__, names)) for row in rows]


class Tx(Protocol):
    """Statements inside one transaction."""

    async def execute(self, sql: Sql, /, **params: Any) -> int:
        """Run a statement; how many rows it changed."""
        ...

    async def executemany(self, sql: Sql, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run a statement once per parameter set in ``rows``."""
        ...

    async def fetch(self, sql: Sql, /, **params: Any) -> list[Row]:
        """Every row a statement returns."""
        ...

    def batches(self, sql: Sql, size: int) -> AsyncIterator[list[Row]]:
        """A query's rows, ``size`` at a time (for a copy of a large table)."""
        ...


class Backend(Protocol):
    """One database: its transactions, its reads, what its dialect does differently."""

    dialect: Dialect

    async def write(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction; its result once committed."""
        ...

    async def execute(self, sql: Sql, /, **params: Any) -> int:
        """One statement as its own write transaction; rows changed."""
        ...

    async def returning(self, sql: Sql, /, **params: Any) -> list[Row]:
        """One statement with RETURNING as its own write transaction; its rows."""
        ...

    async def fetch(self, sql: Sql, /, **params: Any) -> list[Row]:
        """The rows of a read-only query (committed data)."""
        ...

    def snapshot(self) -> AbstractAsyncContextManager[Tx]:
        """A read transaction: every query in it sees the same committed state."""
        ...

    def transaction(self) -> AbstractAsyncContextManager[Tx]:
        """One write transaction of the caller's own (not batched with others)."""
        ...

    def dump_json(self, value: Any) -> Any:
        """A JSON value as the driver takes it (None stays None)."""
        ...

    def load_json(self, value: Any) -> Any:
        """A stored JSON value as Python values (None stays None)."""
        ...

    def chat_busy(self, error: Exception) -> bool:
        """Whether ``error`` is the one-open-session-per-group index refusing a row."""
        ...

    async def lock_ratings(self, tx: Tx) -> None:
        """Hold off matches finishing during a rerate (a no-op for the single writer)."""
        ...

    async def after_import(self, tx: Tx) -> None:
        """Move id counters past imported rows (a no-op where ids are the rows' max)."""
        ...

    async def close(self) -> None:
        """Finish pending work and release the connections."""
        ...

    async def ping(self, timeout: float) -> None:
        """Raise if the database cannot take a write within ``timeout`` seconds."""
        ...


class OnConnection(Generic[C]):
    """A :class:`Tx` over one driver connection ``C`` (each backend's runs its driver)."""

    __slots__ = ("_connection",)

    def __init__(self, connection: C) -> None:
        self._connection = connection


class Hooks:
    """The hooks a backend needs only where it has something to do: nothing here."""

    async def lock_ratings(self, tx: Tx) -> None:
        """Nothing: the single writer already orders every write."""

    async def after_import(self, tx: Tx) -> None:
        """Nothing: new ids follow the highest stored one."""

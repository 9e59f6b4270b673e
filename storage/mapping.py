"""Records ↔ rows, derived from the schema: a new column needs no code here.

A :class:`~storage.records.SessionRecord` field is stored in the ``sessions``
column of the same name; the column's type in :mod:`storage.schema` says how
the value travels (``Json``: through the backend's JSON codec, ``Flag``: a
bool); a column the schema does not declare is made from the field's type.
So adding a session field touches the record, the Session and one Alembic
revision (docs/storage.md, "Adding a column").
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import sqlalchemy as sa

from storage.records import SeatRecord, SessionRecord
from storage.schema import Flag, Json, sessions
from storage.sql import Backend, Row

#: sessions columns set when the session is created and never changed by a save
CREATED_ONLY = frozenset({"link"})
#: the record's fields that are columns (``id`` is the key, ``seats`` a table of its own)
SESSION_FIELDS = tuple(f.name for f in fields(SessionRecord) if f.name not in ("id", "seats"))
_COLUMNS = {name: sessions.c[name] for name in SESSION_FIELDS}
JSON_FIELDS = frozenset(name for name, column in _COLUMNS.items() if column.type is Json)
FLAG_FIELDS = frozenset(name for name, column in _COLUMNS.items() if column.type is Flag)
REAL_FIELDS = frozenset(
    name for name, column in _COLUMNS.items() if isinstance(column.type, sa.Double)
)


def insert_columns() -> tuple[str, ...]:
    """The columns a new session's row is written with."""
    return SESSION_FIELDS


def update_columns() -> tuple[str, ...]:
    """The columns a save rewrites."""
    return tuple(name for name in SESSION_FIELDS if name not in CREATED_ONLY)


def session_params(backend: Backend, record: SessionRecord) -> dict[str, Any]:
    """The row's values of ``record``, as the backend's driver takes them."""
    params: dict[str, Any] = {}
    for name in SESSION_FIELDS:
        value = getattr(record, name)
        if name == "updated" and value is None:
            value = record.created
        if value is not None:
            if name in JSON_FIELDS:
                value = backend.dump_json(value)
            elif name in REAL_FIELDS:
                value = float(value)
        params[name] = value
    return params


def session_record(backend: Backend, row: Row) -> SessionRecord:
    """The record of a ``sessions`` row that carries its seats as ``seat_rows``."""
    values: dict[str, Any] = {}
    for name in SESSION_FIELDS:
        value = row[name]
        if value is not None:
            if name in JSON_FIELDS:
                value = backend.load_json(value)
            elif name in FLAG_FIELDS:
                value = bool(value)
        values[name] = value
    seats = [SeatRecord(*seat) for seat in backend.load_json(row["seat_rows"])]
    return SessionRecord(id=row["id"], seats=seats, **values)

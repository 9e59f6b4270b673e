"""Alembic's environment: the migrations run on the connection :mod:`storage.migrate`
passes in, inside its transaction (SQLite changes tables in batch mode)."""

from __future__ import annotations

from alembic import context

from storage.schema import METADATA

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=METADATA,
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()

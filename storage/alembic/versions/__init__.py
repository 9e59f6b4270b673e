"""The Alembic revisions, oldest first (see ``docs/storage.md``, "Adding a column")."""

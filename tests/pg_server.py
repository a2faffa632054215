"""A real PostgreSQL server for the tests, started from the machine's own binaries.

:class:`PostgresServer` runs ``initdb`` into a fresh temporary folder and starts ``postgres``
there on a free port of 127.0.0.1, with its unix socket in the same folder, ``fsync`` off (a
test database need not survive a power cut), trust authentication for its one role, and a time
zone 14 hours from UTC. PostgreSQL refuses to run as root, so when the tests run as root both
run as an unprivileged user: ``postgres`` where Debian's package made one, otherwise
``nobody``; the folder is handed to that user. The server is a child of the test process and is
told by the kernel to shut down should that process die without stopping it.

The binaries are found as ``initdb`` on the ``PATH``, in ``pg_config --bindir``, or in
``/usr/lib/postgresql/<version>/bin`` (Debian's place, the newest version). Without them the
tests that need PostgreSQL fail, saying so: ``scripts/test.sh`` installs Debian's
``postgresql`` where ``initdb`` is missing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

ROLE = "shangyou"
# the sessions' time zone, far from UTC: the store's times must not depend on it
TIMEZONE = "Pacific/Kiritimati"        # UTC+14 all year
_PR_SET_PDEATHSIG = 1


def find_bindir() -> Path | None:
    """The folder of PostgreSQL's server programs (``initdb``, ``postgres``), or None."""
    found = shutil.which("initdb")
    if found:
        bindir = Path(found).resolve().parent
        if (bindir / "postgres").exists():
            return bindir
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
        bindir = Path(out.stdout.strip())
        if out.returncode == 0 and (bindir / "initdb").exists():
            return bindir
    debian = [p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").exists()]
    if debian:
        return max(debian, key=lambda p: _version_key(p.parent.name))
    return None


def _version_key(name: str) -> tuple:
    return tuple(int(x) if x.isdigit() else -1 for x in name.split("."))


def _run_as() -> pwd.struct_passwd | None:
    """The unprivileged user to run PostgreSQL as (None: as ourselves, not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and there is neither a 'postgres' nor a 'nobody' user "
                       "to run PostgreSQL as")


def _die_with_parent() -> None:      # in the child, after it became the unprivileged user
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGQUIT)   # SIGQUIT: PostgreSQL's immediate shutdown


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One PostgreSQL server in a temporary folder; :meth:`stop` removes both."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.user = _run_as()
        self.root = Path(tempfile.mkdtemp(prefix="shangyou-pg-", dir=self._temp_parent()))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self._databases = 0
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)

    def _temp_parent(self) -> str | None:
        """Where the folder goes: the usual temporary folder, unless the unprivileged user could
        not reach into it (its path has a folder closed to others: then /tmp)."""
        if self.user is None:
            return None
        parent = Path(tempfile.gettempdir()).resolve()
        if all(p.stat().st_mode & 0o001 for p in (parent, *parent.parents)):
            return str(parent)
        return "/tmp"

    def _as_user(self) -> dict:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def start(self) -> None:
        out = subprocess.run(
            [str(self.bindir / "initdb"), "-D", str(self.data), "-U", ROLE, "--auth=trust",
             "-E", "UTF8", "--no-locale", "--no-sync"],
            cwd=self.root, capture_output=True, text=True, **self._as_user())
        if out.returncode != 0:
            raise RuntimeError(f"initdb failed ({out.returncode}):\n{out.stdout}{out.stderr}")
        for _ in range(5):              # another process may take the free port first
            self.port = _free_port()
            if self._start_postgres():
                return
        raise RuntimeError(f"postgres did not start:\n{self.log.read_text()}")

    def _start_postgres(self) -> bool:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port),
                 "-k", str(self.root), "-c", "listen_addresses=127.0.0.1",
                 "-c", "fsync=off", "-c", "synchronous_commit=off",
                 "-c", "full_page_writes=off", "-c", "max_connections=100",
                 "-c", "shared_buffers=32MB", "-c", f"timezone={TIMEZONE}"],
                cwd=self.root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent, **self._as_user())
        import psycopg

        deadline = time.monotonic() + 120      # a generous bound for a loaded machine
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                psycopg.connect(host="127.0.0.1", port=self.port, user=ROLE, dbname="postgres",
                                connect_timeout=5).close()
                return True
            except psycopg.OperationalError:
                time.sleep(0.05)
        self.stop_process()
        return False

    def create_database(self, name: str) -> str:
        """A new empty database; its SQLAlchemy URL."""
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=ROLE, dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def new_database(self, prefix: str) -> str:
        """A fresh database named ``prefix`` and a counter; its SQLAlchemy URL."""
        self._databases += 1
        return self.create_database(f"{prefix}_{self._databases}")

    def url(self, dbname: str) -> str:
        return f"postgresql+psycopg://{ROLE}@127.0.0.1:{self.port}/{dbname}"

    def stop_fast(self) -> None:
        """``pg_ctl -m fast stop``: PostgreSQL ends every session (their transactions roll
        back), checkpoints and exits; the data stays for :meth:`start_again`."""
        out = subprocess.run(
            [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "120",
             "stop"], cwd=self.root, capture_output=True, text=True, **self._as_user())
        if out.returncode != 0:
            raise RuntimeError(f"pg_ctl stop failed ({out.returncode}):\n{out.stdout}"
                               f"{out.stderr}")
        assert self.proc is not None
        self.proc.wait(120)

    def start_again(self) -> None:
        """PostgreSQL again, on the same port and data, after :meth:`stop_fast`."""
        for _ in range(5):             # the port is ours; a start may still fail on a busy box
            if self._start_postgres():
                return
            time.sleep(1)
        raise RuntimeError(f"postgres did not start again:\n{self.log.read_text()}")

    def restart(self) -> None:
        """``pg_ctl -m fast restart``: :meth:`stop_fast`, then :meth:`start_again`."""
        self.stop_fast()
        self.start_again()

    def stop_process(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)   # immediate shutdown: the data is thrown away
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def stop(self) -> None:
        self.stop_process()
        shutil.rmtree(self.root, ignore_errors=True)

"""A real nginx in front of the test nodes, as ``scripts/cluster.sh`` configures it.

:class:`NginxServer` writes a configuration (one upstream of the given ports, WebSocket
upgrades, the proxy settings of ``scripts/cluster.sh``, its table affinity included: every
request of one table, ``/ws/ID`` and ``/t/ID``, goes to one node by a consistent hash of the
id and the attempt a page names after a silent node, ``?via=N``; the next node of the ring
when that one is down; the lobby's reads limited per client address, nginx answering 429
``rate_limited`` past the burst) into a fresh temporary folder and runs
the machine's own ``nginx`` in the foreground, in a process group of its own (so that a test can
kill it whole, master and workers, as a crash would) on a free port of 127.0.0.1. nginx is
found on the ``PATH`` or in ``/usr/sbin`` (Debian's ``nginx`` package); without it the tests
that need it fail, saying so: ``scripts/test.sh`` installs Debian's nginx where it is missing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

CONF = """worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {root}/tmp;
    proxy_temp_path {root}/tmp;
    fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp;
    scgi_temp_path {root}/tmp;
    map $uri $shangyou_table {{
        ~^/(?:ws|t)/(?<shangyou_id>[^/]+)$ $shangyou_id;
        default $request_id;
    }}
    upstream shangyou {{
        hash $shangyou_table$arg_via consistent;
{servers}    }}
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    map "$request_method $uri" $shangyou_lobby {{
        "~^(?:GET|HEAD) /api/(?:tables|matches)$" $binary_remote_addr;
        default "";
    }}
    limit_req_zone $shangyou_lobby zone=shangyou_lobby:10m rate=4r/s;
    server {{
        listen 127.0.0.1:{port};
        limit_req zone=shangyou_lobby burst=40 nodelay;
        limit_req_status 429;
        limit_req_log_level info;
        error_page 429 = @shangyou_rate_limited;
        location @shangyou_rate_limited {{
            default_type application/json;
            return 429 '{{"code":"rate_limited","detail":"too many lobby reads from your address; try again shortly","message":"too many lobby reads from your address; try again shortly"}}';
        }}
        location / {{
            proxy_pass http://shangyou;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_read_timeout 1h;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout;
        }}
    }}
}}
"""


def _die_with_parent() -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGTERM)        # PR_SET_PDEATHSIG: nginx stops with the tests


def find_nginx() -> Path | None:
    found = shutil.which("nginx")
    if found:
        return Path(found)
    for p in (Path("/usr/sbin/nginx"), Path("/usr/local/sbin/nginx")):
        if p.exists():
            return p
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


class NginxServer:
    """nginx proxying to ``ports`` (the nodes on 127.0.0.1); :meth:`stop` removes its
    folder."""

    def __init__(self, binary: Path, ports: list[int]):
        self.binary = binary
        self.root = Path(tempfile.mkdtemp(prefix="shangyou-nginx-"))
        (self.root / "tmp").mkdir()
        self.root.chmod(0o755)
        self.port = _free_port()
        servers = "".join(f"        server 127.0.0.1:{p} max_fails=0;\n"
                          for p in ports)
        (self.root / "nginx.conf").write_text(CONF.format(root=self.root, servers=servers,
                                                          port=self.port))
        self.proc: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start nginx (again, on the same port) and wait until it accepts connections."""
        self.proc = subprocess.Popen(
            [str(self.binary), "-p", str(self.root), "-e", str(self.root / "error.log"),
             "-c", str(self.root / "nginx.conf"), "-g", "daemon off;"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + 60      # a generous bound for a loaded machine
        while not _answers(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = (self.root / "error.log")
                raise RuntimeError("nginx did not start:\n"
                                   + (log.read_text() if log.exists() else ""))
            time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL to nginx's whole process group: its master and workers die at once."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        deadline = time.monotonic() + 60      # the workers' sockets close with them
        while _answers(self.port) and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGQUIT)      # nginx's graceful stop
                self.proc.wait(30)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)

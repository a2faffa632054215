"""``scripts/cluster.sh --tls-port P --tls-cert F --tls-key F``: real nginx serves HTTPS and WSS
with a self-signed certificate made here with ``openssl``, sends HSTS, redirects its plain port
there, and keeps ``/metrics`` to each node's own port. Real PostgreSQL, Redis, nginx and
supervisord, as the script runs them (one node, on free ports, in a temporary folder)."""

from __future__ import annotations

import http.client
import json
import shutil
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from test_cluster import free_port
from test_cluster_script import ROOT, WAIT, healthy, wait_until
from websockets.sync.client import connect

pytestmark = pytest.mark.timeout(600)


def self_signed(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True,
                   timeout=WAIT)
    return cert, key


def test_the_proxy_serves_https_and_wss_with_hsts(tmp_path):
    data = Path(tempfile.mkdtemp(prefix="shangyou-cluster-tls-"))
    data.chmod(0o755)                  # PostgreSQL's own user reaches it (as root)
    cert, key = self_signed(tmp_path)
    site, tls, node = free_port(), free_port(), free_port()
    out = open(tmp_path / "cluster.out", "w")
    proc = subprocess.Popen(
        ["bash", str(ROOT / "scripts/cluster.sh"), "--nodes", "1", "--port", str(site),
         "--node-port", str(node), "--pg-port", str(free_port()), "--redis-port",
         str(free_port()), "--tls-port", str(tls), "--tls-cert", str(cert), "--tls-key",
         str(key), "--data", str(data), "--python", sys.executable, "--", "--bot-delay", "0"],
        stdout=out, stderr=subprocess.STDOUT)
    context = ssl.create_default_context(cafile=str(cert))
    https = f"https://127.0.0.1:{tls}"
    try:
        wait_until("the cluster starts", lambda: "shangyou on 1 node" in
                   (tmp_path / "cluster.out").read_text() or proc.poll() is not None)
        assert proc.poll() is None, (tmp_path / "cluster.out").read_text()
        assert healthy(node)

        with urllib.request.urlopen(https + "/healthz", context=context, timeout=10) as r:
            assert json.loads(r.read()) == {"ok": True}
            assert r.headers["Strict-Transport-Security"] == "max-age=63072000"
        # the plain port sends everything to HTTPS, the path and query kept
        plain = http.client.HTTPConnection("127.0.0.1", site, timeout=10)
        plain.request("GET", "/t/abc?x=1", headers={"Host": f"127.0.0.1:{site}"})
        moved = plain.getresponse()
        assert moved.status == 301
        assert moved.getheader("Location") == f"{https}/t/abc?x=1"
        plain.close()
        # /metrics: not through the proxy, on the node's own port (loopback) only
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(https + "/metrics", context=context, timeout=10)
        assert refused.value.code == 404
        with urllib.request.urlopen(f"http://127.0.0.1:{node}/metrics", timeout=10) as r:
            assert b"shangyou_tables" in r.read()

        # a table made over HTTPS, joined over WSS from a page of the HTTPS origin
        req = urllib.request.Request(
            https + "/api/tables", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps({"game": "zheng-shangyou/owen", "players": 2}).encode())
        with urllib.request.urlopen(req, context=context, timeout=10) as r:
            table = json.loads(r.read())
        with connect(f"wss://127.0.0.1:{tls}/ws/{table['table_id']}", ssl=context,
                     origin=https, open_timeout=WAIT) as ws:
            ws.send(json.dumps({"type": "hello", "name": "Ann",
                                "token": table["host_token"]}))
            welcome = json.loads(ws.recv(timeout=WAIT))
            assert welcome["type"] == "welcome" and welcome["host"] is True, welcome

        # a client that does not trust the certificate is refused
        with pytest.raises(urllib.error.URLError) as untrusted:
            urllib.request.urlopen(https + "/healthz", timeout=10)
        assert isinstance(untrusted.value.reason, ssl.SSLCertVerificationError)

        stop = subprocess.run(["bash", str(ROOT / "scripts/cluster.sh"), "--stop", "--data",
                               str(data)], capture_output=True, text=True, timeout=WAIT)
        assert stop.returncode == 0, stop.stderr
        assert proc.wait(WAIT) is not None
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(WAIT)
        out.close()
        shutil.rmtree(data, ignore_errors=True)


def test_tls_needs_its_certificate_and_key(tmp_path):
    out = subprocess.run(["bash", str(ROOT / "scripts/cluster.sh"), "--tls-port", "8443",
                          "--tls-cert", str(tmp_path / "missing.pem"), "--data",
                          str(tmp_path)], capture_output=True, text=True, timeout=WAIT)
    assert out.returncode == 2
    assert "--tls-port needs --tls-cert and --tls-key" in out.stderr

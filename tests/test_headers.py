"""Every HTTP response carries the security headers (docs/security.md, *Headers*); the API's
documentation page has its own policy, allowing its one inline script by its hash."""

from __future__ import annotations

import base64
import hashlib
import re

from test_server import app, client, new_table  # noqa: F401  (fixtures)


def test_every_response_has_the_headers(client):  # noqa: F811
    tid = new_table(client)
    for path, status in (("/", 200), (f"/t/{tid}", 200), ("/static/base.css", 200),
                         ("/api/tables", 200), ("/api/matches/nope", 404), ("/healthz", 200),
                         ("/static/../app.py", 404)):
        r = client.get(path)
        assert r.status_code == status, path
        csp = r.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self';" in csp, path
        assert "frame-ancestors 'self'" in csp and "unsafe" not in csp, path
        assert r.headers["x-frame-options"] == "SAMEORIGIN"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "same-origin"
    r = client.post("/api/tables", content=b"x" * 20_000,
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "default-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "SAMEORIGIN"


def test_the_docs_page_allows_its_inline_script_by_hash(client):  # noqa: F811
    r = client.get("/api/docs")
    assert r.status_code == 200
    scripts = re.findall(r"<script>(.*?)</script>", r.text, re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    csp = r.headers["content-security-policy"]
    assert f"'sha256-{digest}'" in csp and "frame-ancestors 'self'" in csp
    assert "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";", 1)[0]
    assert int(r.headers["content-length"]) == len(r.content)

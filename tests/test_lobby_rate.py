"""The lobby's pages are rate-limited per address (``lobby_reads_per_minute_address``, 429
``rate_limited``): a client that floods ``GET /api/tables`` is refused once its bucket is empty,
and its refused requests change nothing (docs/security.md)."""

from __future__ import annotations

from test_server_host import make_client


def test_a_lobby_flood_from_one_address_is_refused(tmp_path):
    with make_client(tmp_path, lobby_reads_per_minute_address=5) as client:
        created = client.post("/api/tables", json={"game": "zheng-shangyou/pagat",
                                                   "players": 4}).json()
        pages = [client.get("/api/tables") for _ in range(5)]
        assert [r.status_code for r in pages] == [200] * 5
        assert [t["table_id"] for t in pages[0].json()["tables"]] == [created["table_id"]]
        refused = [client.get("/api/tables", params={"offset": 0, "limit": 10})
                   for _ in range(3)]
        assert [r.status_code for r in refused] == [429] * 3
        assert {r.json()["code"] for r in refused} == {"rate_limited"}
        # other routes are not this bucket's
        assert client.get("/api/presets").status_code == 200

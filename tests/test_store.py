"""The store's group commit: moves of many tables in one transaction, each caller resumed only
once its own move is stored, and a bad move failing alone."""

from __future__ import annotations

import asyncio

from shangyou.server.store import AsyncStore, Store


def _store(tmp_path, tables=4):
    st = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    for t in range(tables):
        st.create_table(f"t{t}", "zheng-shangyou/pagat", 4, {}, "greedy")
        st.start_match(f"t{t}", f"m{t}", "zheng-shangyou/pagat", 4, {}, t, [], 1)
    return st


def test_concurrent_moves_are_grouped_and_all_stored(tmp_path):
    st = _store(tmp_path)
    calls = []
    real = st.add_moves

    def spy(batch):
        calls.append(len(batch))
        real(batch)

    st.add_moves = spy
    ast = AsyncStore(st)

    async def table(t):
        for i in range(25):
            await ast.add_move(f"t{t}", f"m{t}", i, i % 4, "pass", 2 + i)

    async def main():
        await asyncio.gather(*(table(t) for t in range(4)))

    asyncio.run(main())
    ast.close()
    st2 = Store(st.url)
    for t in range(4):
        row = st2.load_table(f"t{t}")
        assert row["version"] == 26
        assert [i for i, _ in enumerate(row["match"]["moves"])] == list(range(25))
    assert sum(calls) == 100
    assert max(calls) > 1, "moves arriving together were not written together"
    assert len(calls) < 100


def test_a_bad_move_fails_alone(tmp_path):
    st = _store(tmp_path, tables=2)
    st.add_move("t0", "m0", 0, 0, "pass", 2)
    ast = AsyncStore(st)

    async def main():
        return await asyncio.gather(
            ast.add_move("t0", "m0", 0, 1, "pass", 3),     # index 0 again: refused
            ast.add_move("t1", "m1", 0, 0, "pass", 2),
            ast.add_move("t1", "m1", 1, 1, "pass", 3),
            return_exceptions=True)

    out = asyncio.run(main())
    ast.close()
    assert isinstance(out[0], Exception) and out[1] is None and out[2] is None
    st2 = Store(st.url)
    assert st2.load_table("t0")["version"] == 2
    assert len(st2.load_table("t0")["match"]["moves"]) == 1
    assert st2.load_table("t1")["version"] == 3
    assert [m[0] for m in st2.load_table("t1")["match"]["moves"]] == [0, 1]


def test_a_finished_match_is_marked_over(tmp_path):
    st = _store(tmp_path, tables=1)
    ast = AsyncStore(st)
    asyncio.run(ast.add_move("t0", "m0", 0, 0, "pass", 2, {"winner": 0}))
    ast.close()
    st2 = Store(st.url)
    assert st2.load_table("t0")["status"] == "over"
    assert st2.match("m0")["result"] == {"winner": 0}
    assert st2.finished_matches()[0]["match_id"] == "m0"


def test_a_lone_move_is_written_at_once(tmp_path):
    st = _store(tmp_path, tables=1)
    ast = AsyncStore(st)

    async def main():
        await asyncio.wait_for(ast.add_move("t0", "m0", 0, 0, "pass", 2), timeout=5)

    asyncio.run(main())
    ast.close()
    assert Store(st.url).load_table("t0")["version"] == 2

"""The streams between two nodes (shangyou.server.links), without Redis: messages are
delivered in order and once, a gap is asked for and filled, a receiver that lost the end of a
burst gets it again, and a link that cannot be repaired is reset on both sides."""

from __future__ import annotations

import orjson

from shangyou.server.links import Links


class Pair:
    """Node a sending to node b; ``wire`` is what a published, in order."""

    def __init__(self):
        self.a, self.b = Links("a"), Links("b")
        self.delivered: list = []
        self.gone: list[str] = []

    def send(self, item) -> bytes:
        return self.a.send("b", [item])

    def arrive(self, payload: bytes) -> bytes | None:
        """b receives ``payload``; b's acknowledgement when it asks for more."""
        m = orjson.loads(payload)
        deliver, ask, ended = self.b.receive(m["from"], m["stream"], m["seq"])
        if ended:
            self.gone.append(m["from"])
        if deliver:
            self.delivered += m["items"]
        return self.b.ack("a", want=True) if ask else None

    def ack(self, raw: bytes | None = None):
        """a gets b's acknowledgement (the periodic one by default): what a sends again."""
        m = orjson.loads(raw or self.b.ack("a"))
        return self.a.acked(m["from"], *m["ack"])


def test_in_order_once_and_acknowledged():
    p = Pair()
    sent = [p.send(i) for i in range(5)]
    for payload in sent + sent[1:3]:               # the last two are duplicates
        assert p.arrive(payload) is None
    assert p.delivered == [0, 1, 2, 3, 4]
    assert p.ack() == [] and not p.a.out["b"].unacked       # all acknowledged, nothing held


def test_a_gap_is_asked_for_and_filled_from_what_the_sender_holds():
    p = Pair()
    sent = [p.send(i) for i in range(6)]
    p.arrive(sent[0])
    want = p.arrive(sent[3])                       # 1 and 2 were lost: b asks at once
    assert want is not None and orjson.loads(want)["ack"][1:] == [1, True]
    assert p.arrive(sent[4]) is None               # asked already: not again at once
    again = p.ack(want)
    assert [orjson.loads(x)["seq"] for x in again] == [2, 3, 4, 5, 6]
    for payload in again + [sent[5]]:
        p.arrive(payload)
    assert p.delivered == [0, 1, 2, 3, 4, 5]
    assert p.a.resent == 5 and p.gone == []


def test_the_lost_end_of_a_burst_is_sent_again_when_acknowledgements_stall():
    p = Pair()
    sent = [p.send(i) for i in range(3)]
    p.arrive(sent[0])                              # 1 and 2 never arrive; no gap is seen
    assert p.ack() == []                           # the first acknowledgement: progress
    again = p.ack()                                # the next one shows none: send again
    assert [orjson.loads(x)["seq"] for x in again] == [2, 3]
    for payload in again:
        p.arrive(payload)
    assert p.delivered == [0, 1, 2]
    assert p.ack() == [] and p.ack() == []         # nothing held: nothing more


def test_a_receiver_that_starts_over_gets_a_new_stream_and_the_old_sockets_go():
    p = Pair()
    first = [p.send(i) for i in range(3)]
    for payload in first:
        p.arrive(payload)
    p.ack()                                        # a forgets 1..3
    p.b = Links("b")                               # b restarts: it knows no stream
    want = p.arrive(p.send(3))                     # message 4 of a stream it never saw
    assert want is not None
    assert p.ack(want) is None                     # a holds 1..3 no more: reset the link
    p.a.reset("b")
    p.delivered.clear()
    assert p.arrive(p.send("fresh")) is None       # a new stream, from 1
    assert p.delivered == ["fresh"] and p.gone == ["a"]   # b drops a's earlier sockets


def test_a_sender_holding_too_much_says_so():
    a = Links("a", max_unacked=10_000)
    for _ in range(9):
        a.send("b", ["x" * 1000])
    assert not a.too_much("b")
    a.send("b", ["x" * 1000])
    assert a.too_much("b")
    a.reset("b")
    assert not a.too_much("b") and a.resets == 1
    assert orjson.loads(a.send("b", []))["seq"] == 1          # a new stream starts at 1

"""Delivery between two nodes that survives a lost Redis subscription: numbered messages,
acknowledgements, and sending again what was missed.

Redis pub/sub delivers a message to whoever subscribes at that moment, and drops a subscriber
whose output buffer outgrows its limit (``client-output-buffer-limit pubsub``), with what the
buffer held. A node reconnects and subscribes again at once, but what was published to it
meanwhile is gone. So what one node sends another is a **stream**: each stream has a random id
and numbers its messages 1, 2, 3, ...; the sender keeps every message until the receiver
acknowledges it, and the receiver takes them in order, each once:

- a message with the next number is delivered; one already delivered is dropped; one past a
  gap is dropped too, and the receiver asks at once for everything after the last it has
  (``want``);
- each node acknowledges every stream it receives four times a lease, wanted or not; the
  sender forgets what was acknowledged, sends again everything after it when asked, and also
  when two acknowledgements in a row show no progress while it holds messages older than the
  first of them (a receiver that lost the last messages of a burst sees no gap);
- a stream the receiver does not know starts at 1: a message of a later number (the receiver
  restarted, or missed the start) is answered with ``want`` from 0; a sender that no longer
  holds what is wanted, or holds more than :data:`MAX_UNACKED` bytes unacknowledged, **resets**
  the link: it starts a new stream, and both nodes treat each other's sockets as gone (their
  clients are told ``moved`` and reconnect, with their whole state: nothing stored is lost).

Nothing here does I/O: :class:`~shangyou.server.relay.Relay` publishes what it returns.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from dataclasses import dataclass, field

import orjson

MAX_UNACKED = 256 * 2 ** 20       # bytes a sender holds for one receiver before it resets


def _new_stream() -> str:
    return secrets.token_hex(8)


@dataclass
class _Out:
    """What this node sends one other node."""
    stream: str = field(default_factory=_new_stream)
    seq: int = 0
    unacked: deque = field(default_factory=deque)     # (seq, payload, monotonic sent)
    size: int = 0
    last_got: int = -1            # the number the previous acknowledgement said
    last_ack_at: float = 0.0      # when it came


@dataclass
class _In:
    """What this node receives from one other node."""
    stream: str
    got: int = 0                  # the last number delivered
    wanted_at: float = -1.0       # when it last asked for what follows (a gap)


class Links:
    """The streams between this node and every other; see the module's text."""

    def __init__(self, node: str, max_unacked: int = MAX_UNACKED):
        self.node = node
        self.max_unacked = max_unacked
        self.out: dict[str, _Out] = {}
        self.inc: dict[str, _In] = {}
        self.resent = 0                # messages sent again
        self.resets = 0                # links reset
        self.sent = 0                  # messages sent (metrics)
        self.delivered = 0             # messages received and delivered, in order (metrics)

    # --------------------------------------------------------------------------- sending
    def send(self, node: str, items: list) -> bytes:
        """The payload of the next message to ``node`` (kept until acknowledged)."""
        o = self.out.get(node)
        if o is None:
            o = self.out[node] = _Out()
        o.seq += 1
        self.sent += 1
        payload = orjson.dumps({"from": self.node, "stream": o.stream, "seq": o.seq,
                                "items": items})
        o.unacked.append((o.seq, payload, time.monotonic()))
        o.size += len(payload)
        return payload

    def too_much(self, node: str) -> bool:
        o = self.out.get(node)
        return o is not None and o.size > self.max_unacked

    def acked(self, node: str, stream: str, got: int, want: bool) -> list[bytes] | None:
        """An acknowledgement from ``node``: the payloads to send it again (maybe none), or
        None when the link must be reset (what it wants is no longer held)."""
        o = self.out.get(node)
        if o is None or stream != o.stream:
            return []                   # of a stream reset since: the new one follows
        now = time.monotonic()
        while o.unacked and o.unacked[0][0] <= got:
            o.size -= len(o.unacked[0][1])
            o.unacked.popleft()
        stalled = got == o.last_got and bool(o.unacked) and o.unacked[0][2] < o.last_ack_at
        o.last_got, o.last_ack_at = got, now
        if not (want or stalled) or not o.unacked and got >= o.seq:
            return []
        if got > o.seq or (o.unacked and o.unacked[0][0] != got + 1) or \
                (not o.unacked and got < o.seq):
            return None
        again = []
        for i, (seq, payload, _) in enumerate(o.unacked):
            o.unacked[i] = (seq, payload, now)
            again.append(payload)
        self.resent += len(again)
        return again

    def reset(self, node: str) -> None:
        """Forget both streams with ``node``: the next message to it starts a new one."""
        self.out.pop(node, None)
        self.inc.pop(node, None)
        self.resets += 1

    # ------------------------------------------------------------------------- receiving
    def receive(self, sender: str, stream: str, seq: int) -> tuple[bool, bool, bool]:
        """A message ``seq`` of ``stream`` from ``sender``: (deliver it, ask for what follows
        the last delivered now, ``sender``'s earlier stream ended: its sockets are gone)."""
        i = self.inc.get(sender)
        ended = False
        if i is None or i.stream != stream:
            ended = i is not None
            i = self.inc[sender] = _In(stream)
        if seq == i.got + 1:
            i.got = seq
            self.delivered += 1
            i.wanted_at = -1.0
            return True, False, ended
        if seq <= i.got:
            return False, False, ended
        now = time.monotonic()          # a gap: ask once, and again after a while
        ask = i.wanted_at < 0 or now - i.wanted_at > 1.0
        if ask:
            i.wanted_at = now
        return False, ask, ended

    def ack(self, sender: str, want: bool | None = None) -> bytes | None:
        """The acknowledgement of ``sender``'s stream (``want``: ask for what follows; by
        default when a gap was seen)."""
        i = self.inc.get(sender)
        if i is None:
            return None
        if want is None:
            want = i.wanted_at >= 0
        return orjson.dumps({"from": self.node, "ack": [i.stream, i.got, bool(want)]})

    def senders(self) -> list[str]:
        return list(self.inc)

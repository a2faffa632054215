"""The search bot's review of a finished match, for its replay page (docs/protocol.md,
"Reviews"): the same search the hints use judges each decision, and a move that followed the
seat's hint is marked so (:mod:`shangyou.review`).

``GET /api/matches/{id}/review?seat=N`` answers the stored review, or starts one in the
background and answers its progress. A review's decisions are worked out one at a time in the
advice lane (:mod:`shangyou.server.budget`: apart from the bots' processes, and after any hint
that waits), with :data:`SECONDS` of CPU per decision (:mod:`shangyou.review`); it is stored
when done, so each seat of a match is reviewed once. At most ``Limits.review_jobs`` reviews run
or wait (more: :class:`~shangyou.server.budget.Busy`); one address starts at most
``Limits.reviews_per_minute_address`` a minute and asks at most
``Limits.review_requests_per_minute_address`` times (more: :class:`RateLimited`).
"""

from __future__ import annotations

import asyncio
import logging

import shangyou
from shangyou.review import THRESHOLDS, Review, family_of, review_decision

from .budget import Busy, Lane
from .limits import Buckets, Limits

log = logging.getLogger("shangyou.server")

SECONDS = 1.0              # CPU seconds per decision for the review's own worlds (the
#                            search that finds the best move has its own cap, as a hint)
WORLDS = 48                # at most this many worlds to find the best move of a decision
#                            (then review.DEFAULT_JUDGE_WORLDS fresh ones to judge the move made)


def _review_in_worker(view: dict, played: str, index: int, seed: int, seconds, worlds: int,
                      hint: str | None = None):
    import random
    return review_decision(view, played, index, random.Random(seed), seconds, worlds,
                           hint=hint)


class RateLimited(Exception):
    """This address started too many reviews in the last minute."""


class ReviewJobs:
    def __init__(self, store, lane: Lane, limits: Limits | None = None, clients=None,
                 seconds: float | None = SECONDS, worlds: int = WORLDS):
        self.store = store
        self.lane = lane
        self.limits = limits or Limits()
        self.clients = clients              # for an address's allowance factor
        self.per_address = Buckets(self.limits.reviews_per_minute_address)
        self.requests = Buckets(self.limits.review_requests_per_minute_address)
        self.seconds, self.worlds = seconds, worlds
        self.jobs: dict[tuple[str, int], dict] = {}
        self.tasks: set = set()

    def admit(self, address: str | None) -> None:
        """Count a review request of ``address`` (asked before anything is read: a poll
        costs the store two reads); :class:`RateLimited` past its rate."""
        if not self.requests.take(address or "?", self._factor(address)):
            raise RateLimited(f"at most {self.limits.review_requests_per_minute_address} "
                              "review requests a minute from one address")

    def _factor(self, address: str | None) -> int:
        return self.clients.factor(address) if self.clients is not None else 1

    async def status(self, match_id: str, seat: int, match_log: dict,
                     address: str | None = None) -> dict:
        """``{"status": "done", "review"}``, or ``{"status": "running", "done", "total"}``
        (the review starts now if it had not: :class:`Busy` when ``review_jobs`` run or wait
        already, :class:`RateLimited` past the address's rate)."""
        stored = await self.store.call("review", match_id, seat)
        if stored is not None:
            return {"status": "done", "review": stored}
        key = (match_id, seat)
        job = self.jobs.get(key)
        if job is None:
            if len(self.jobs) >= self.limits.review_jobs:
                raise Busy(f"{self.limits.review_jobs} reviews run or wait already")
            if not self.per_address.take(address or "?", self._factor(address)):
                raise RateLimited(f"at most {self.limits.reviews_per_minute_address} reviews "
                                  "a minute from one address")
            total = sum(1 for s, _ in match_log["moves"] if s == seat)
            job = self.jobs[key] = {"status": "running", "done": 0, "total": total}
            task = asyncio.create_task(self._run(key, match_log), name=f"review-{match_id}")
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        if job["status"] == "failed":
            self.jobs.pop(key, None)
            return {"status": "failed", "done": job["done"], "total": job["total"]}
        return {"status": "running", "done": job["done"], "total": job["total"]}

    async def _run(self, key: tuple[str, int], match_log: dict) -> None:
        match_id, seat = key
        job = self.jobs[key]
        try:
            options = {k: tuple(v) if isinstance(v, list) else v
                       for k, v in (match_log.get("options") or {}).items()}
            g = shangyou.new_match(match_log["game"], players=match_log["players"],
                                   seed=match_log["seed"], **options)
            decisions, skipped = [], 0
            hinted = match_log.get("hints") or {}     # moves that followed the hint
            for i, (s, text) in enumerate(match_log["moves"]):
                if s == seat:
                    d = await self.lane.run(_review_in_worker, g.view(seat), text, i, i,
                                            self.seconds, self.worlds, hinted.get(str(i)),
                                            kind="review")
                    if d is None:
                        skipped += 1
                    else:
                        decisions.append(d)
                    job["done"] += 1
                g.apply(text)
            family = family_of(match_log["game"], g.rules)
            review = Review(match_log["game"], seat, family, tuple(decisions), skipped,
                            THRESHOLDS[family]).as_dict()
            await self.store.call("save_review", match_id, seat, review)
            self.jobs.pop(key, None)
        except asyncio.CancelledError:
            self.jobs.pop(key, None)
            raise
        except Exception:
            log.exception("review of match %s seat %d failed", match_id, seat)
            job["status"] = "failed"

    def shutdown(self) -> None:
        """Cancel the running reviews (the lane's workers end with the server's)."""
        for t in list(self.tasks):
            t.cancel()

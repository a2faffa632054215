"""The search bot's review of a finished match, for its replay page (docs/protocol.md,
"Reviews").

``GET /api/matches/{id}/review?seat=N`` answers the stored review, or starts one in the
background and answers its progress. A review runs in its own worker process (one for the
whole server, apart from the bots' pool, so it never slows a live table), one decision at a
time with :data:`SECONDS` of CPU per decision (:mod:`shangyou.review`), and is stored when done,
so each seat of a match is reviewed once.
"""

from __future__ import annotations

import asyncio
import logging

import shangyou
from shangyou.review import THRESHOLDS, Review, family_of, review_decision

from .workers import BotPool

log = logging.getLogger("shangyou.server")

SECONDS = 1.0              # CPU seconds per decision
WORLDS = 48                # at most this many worlds to find the best move of a decision
#                            (then review.DEFAULT_JUDGE_WORLDS fresh ones to judge the move made)
MAX_JOBS = 4               # reviews running or waiting at once (more: refused, 429)


def _review_in_worker(view: dict, played: str, index: int, seed: int, seconds, worlds: int):
    import random
    return review_decision(view, played, index, random.Random(seed), seconds, worlds)


class Busy(Exception):
    """Too many reviews are running already."""


class ReviewJobs:
    def __init__(self, store, seconds: float | None = SECONDS, worlds: int = WORLDS):
        self.store = store
        self.seconds, self.worlds = seconds, worlds
        self.pool: BotPool | None = None
        self.jobs: dict[tuple[str, int], dict] = {}
        self.tasks: set = set()

    async def status(self, match_id: str, seat: int, match_log: dict) -> dict:
        """``{"status": "done", "review"}``, or ``{"status": "running", "done", "total"}``
        (the review starts now if it had not)."""
        stored = await self.store.call("review", match_id, seat)
        if stored is not None:
            return {"status": "done", "review": stored}
        key = (match_id, seat)
        job = self.jobs.get(key)
        if job is None:
            if len(self.jobs) >= MAX_JOBS:
                raise Busy()
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
            if self.pool is None:
                self.pool = BotPool(max_workers=1)
            options = {k: tuple(v) if isinstance(v, list) else v
                       for k, v in (match_log.get("options") or {}).items()}
            g = shangyou.new_match(match_log["game"], players=match_log["players"],
                                   seed=match_log["seed"], **options)
            decisions, skipped = [], 0
            for i, (s, text) in enumerate(match_log["moves"]):
                if s == seat:
                    d = await self.pool.run(_review_in_worker, g.view(seat), text, i, i,
                                            self.seconds, self.worlds)
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
        for t in list(self.tasks):
            t.cancel()
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

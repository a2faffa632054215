"""Small statistics for tournament tables: means with t intervals, Wilson intervals, overlaps.

>>> round(wilson(8, 10)[1], 4), round(wilson(8, 10)[2], 4)
(0.4902, 0.9433)
>>> [round(x, 3) for x in mean_ci([1.0, 2.0, 3.0, 4.0])]
[2.5, 0.446, 4.554]
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist, fmean, stdev


def _t_cdf_from_zero(t: float, df: int, steps: int = 2000) -> float:
    """P(0 <= T <= t) for Student's t: Simpson's rule on the density (t >= 0)."""
    logc = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def pdf(x):
        return math.exp(logc - (df + 1) / 2 * math.log1p(x * x / df))

    h = t / steps
    total = pdf(0.0) + pdf(t)
    for i in range(1, steps):
        total += (4 if i % 2 else 2) * pdf(i * h)
    return total * h / 3


@lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (to about 1e-9).

    Closed forms for 1 and 2 degrees of freedom; otherwise bisection on the distribution
    function (integrated numerically), which is plenty for confidence intervals.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"quantile level must be between 0 and 1, got {p}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    if p < 0.5:
        return -t_quantile(1 - p, df)
    target = p - 0.5
    lo, hi = 0.0, 1.0
    while _t_cdf_from_zero(hi, df) < target:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if _t_cdf_from_zero(mid, df) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_ci(values, level: float = 0.95) -> tuple[float, float | None, float | None]:
    """(mean, low, high): the mean and its two-sided t interval; no interval below 2 values."""
    xs = [float(v) for v in values]
    if not xs:
        raise ValueError("mean of no values")
    m = fmean(xs)
    if len(xs) < 2:
        return m, None, None
    half = t_quantile(0.5 + level / 2, len(xs) - 1) * stdev(xs) / math.sqrt(len(xs))
    return m, m - half, m + half


def wilson(successes: float, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """(rate, low, high): the Wilson score interval of a binomial proportion."""
    if n <= 0:
        raise ValueError("a rate needs at least one trial")
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes out of {n} trials")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def overlap(a: tuple, b: tuple) -> bool | None:
    """Do the intervals (.., low, high) of ``a`` and ``b`` overlap? None if either is missing."""
    a_lo, a_hi = a[-2], a[-1]
    b_lo, b_hi = b[-2], b[-1]
    if None in (a_lo, a_hi, b_lo, b_hi):
        return None
    return a_lo <= b_hi and b_lo <= a_hi

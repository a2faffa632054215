"""Small statistics for tournament tables: means with t intervals (scipy's Student t),
Wilson intervals, overlaps.

>>> round(wilson(8, 10)[1], 4), round(wilson(8, 10)[2], 4)
(0.4902, 0.9433)
>>> [round(x, 3) for x in mean_ci([1.0, 2.0, 3.0, 4.0])]
[2.5, 0.446, 4.554]
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist, fmean, stdev


@lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (scipy's)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"quantile level must be between 0 and 1, got {p}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    try:
        from scipy.stats import t
    except ModuleNotFoundError:
        raise ModuleNotFoundError("tournament intervals need scipy: "
                                  "pip install 'shangyou[tournament]'", name="scipy") from None
    return float(t.ppf(p, df))


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
    """(rate, low, high): the Wilson score interval of a binomial proportion (the closed
    form, so that shared places may count as fractions of a success; for whole counts it
    equals ``scipy.stats.binomtest(k, n).proportion_ci(level, "wilson")``, tested)."""
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

"""The statistics behind every strength claim: Wilson intervals, cluster-robust means of ratios, and
Bradley-Terry ratings on the Elo scale.

Three estimates, each with the rule it follows:

* :func:`wilson` — a 95% interval for a binomial proportion (win, draw or loss rate). Unlike the
  normal ``p ± 1.96 sqrt(p(1-p)/n)`` interval it never leaves [0, 1] and keeps its coverage near 0
  and 1, where a strong agent's loss rate lives (Wilson 1927; Brown, Cai and DasGupta 2001).
* :func:`clustered_wilson` — the same interval when the trials come in correlated clusters (the
  games of one deal, played in every seat order with the same dice): Wilson's interval on the
  effective number of trials ``n / deff``, with the design effect ``deff`` (Kish 1965) estimated from
  the spread of the cluster means.
* :func:`ratio_mean` — a mean of per-turn points ``sum(points) / sum(turns)`` with a central-limit
  interval that treats each *game* (not each turn) as the independent unit: turns of one game share
  a score situation and, under ``zilch_penalty``, a zilch streak, so they are not independent. The
  variance is the usual ratio-estimator (delta-method) one; with one turn per game it is the plain
  CLT interval of the per-turn points.
* :func:`cluster_mean` — a mean of outcomes that are not confined to [0, 1] (the luck-adjusted
  results of :mod:`agents.evaluate`, which can leave it) with Student's t interval on the cluster
  means: the clusters (deals) are the independent units, whatever happens inside one.
* :func:`bradley_terry` — ratings fitted by maximum likelihood to pairwise results, a draw counting
  as half a win for each side (Bradley and Terry 1952). ``P(i beats j) = 1 / (1 + 10 ** (-(r_i - r_j)
  / 400))``: the Elo scale, so 400 points of difference are 10 : 1 odds. Standard errors come from the
  inverse of the observed Fisher information.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["Z95", "ELO", "wilson", "clustered_wilson", "design_effect", "ratio_mean", "RatioMean", "cluster_mean",
           "ClusterMean", "t95", "bradley_terry", "Ratings", "expected_score"]

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: Elo points per natural-log unit of odds: ``400 / ln 10``.
ELO = 400.0 / math.log(10.0)


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``n`` trials (95% by default).

    ``(0.0, 1.0)`` when ``n == 0``: no games, no information. Fractional counts are accepted (a draw
    shared between two players counts as half a win when a caller wants the score rate).
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"wilson({successes!r}, {n!r}): need 0 <= successes <= n")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # Clamp the rounding dust, so 0 successes gives exactly 0 and n gives exactly 1.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def design_effect(x: np.ndarray) -> float:
    """How much clustering changes the variance of a mean of outcomes in [0, 1].

    ``x`` is ``(clusters, m)``: one row per cluster of m outcomes (the games of one deal). The design
    effect (Kish 1965) is the variance of the mean, estimated from the spread of the cluster means,
    over that of n independent 0/1 trials with the same mean, ``p (1 - p) / n``:
    ``m * var(cluster means) / (p (1 - p))``. 1 for independent trials, m when a cluster repeats one
    outcome, below 1 when the outcomes of a cluster pull against each other (common random numbers
    at work; 0 when every cluster has the same mean). 1 when undefined (p = 0 or 1, one cluster).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"design_effect needs a (clusters, m) array, got shape {x.shape}")
    d, m = x.shape
    p = float(x.mean()) if x.size else 0.0
    if d < 2 or not 0.0 < p < 1.0:
        return 1.0
    return float(m * x.mean(axis=1).var(ddof=1) / (p * (1 - p)))


def clustered_wilson(x: np.ndarray, min_deff: float = 1.0, z: float = Z95) -> tuple[float, float, float, float]:
    """``(rate, low, high, design_effect)`` of outcomes ``x`` in [0, 1] shaped ``(clusters, m)``.

    Wilson's score interval with the variance of the clustered mean: the interval of Wilson on the
    effective number of trials ``n / max(deff, min_deff)``. With the default ``min_deff = 1`` the
    interval is never narrower than Wilson's for independent trials, and wider when the clusters pull
    together. A smaller ``min_deff`` lets it narrow when they pull against each other (the share of
    wins of two agents under common random numbers); it only keeps the effective number finite.
    """
    x = np.asarray(x, dtype=np.float64)
    n, k = x.size, float(x.sum())
    deff = design_effect(x)
    f = max(deff, min_deff)
    lo, hi = wilson(k / f, n / f, z)
    return (k / n if n else math.nan, lo, hi, deff)


@dataclass(frozen=True)
class RatioMean:
    """``sum(points) / sum(turns)`` over independent clusters (games), with a 95% interval."""

    mean: float
    low: float
    high: float
    stderr: float
    turns: int
    clusters: int

    def scaled(self, factor: float) -> "RatioMean":
        """The same estimate divided by ``factor`` (e.g. the exact optimum: a ratio with its interval)."""
        return RatioMean(self.mean / factor, self.low / factor, self.high / factor, self.stderr / factor,
                         self.turns, self.clusters)

    def to_dict(self) -> dict[str, float | int]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "stderr": self.stderr,
                "turns": self.turns, "games": self.clusters}


def ratio_mean(points: Sequence[float] | np.ndarray, turns: Sequence[float] | np.ndarray,
               z: float = Z95) -> RatioMean:
    """Mean points per turn from per-game sums ``points[g]`` over ``turns[g]`` turns.

    The estimate is ``m = sum(points) / sum(turns)``; its variance is
    ``G / (G - 1) * sum((points[g] - m * turns[g]) ** 2) / sum(turns) ** 2`` over the G games with
    turns, the ratio estimator's, which stays honest when turns within a game are correlated.
    """
    p = np.asarray(points, dtype=np.float64)
    t = np.asarray(turns, dtype=np.float64)
    if p.shape != t.shape:
        raise ValueError(f"points and turns differ in shape: {p.shape} vs {t.shape}")
    keep = t > 0
    p, t = p[keep], t[keep]
    total = float(t.sum())
    g = int(keep.sum())
    if total == 0:
        return RatioMean(math.nan, math.nan, math.nan, math.nan, 0, 0)
    m = float(p.sum()) / total
    if g < 2:
        return RatioMean(m, math.nan, math.nan, math.nan, int(total), g)
    resid = p - m * t
    se = math.sqrt(g / (g - 1) * float(resid @ resid)) / total
    return RatioMean(m, m - z * se, m + z * se, se, int(total), g)


#: Student's t two-sided 95% quantiles for 3 to 9 degrees of freedom, where the expansion is too rough.
_T95_SMALL = {3: 3.182446, 4: 2.776445, 5: 2.570582, 6: 2.446912, 7: 2.364624, 8: 2.306004, 9: 2.262157}


def t95(df: float) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom (``Z95`` for infinity).

    Exact for 1 and 2 degrees of freedom (closed forms), the tabulated values (to 6 decimals) for 3
    to 9; from 10 on the Cornish-Fisher expansion in ``1 / df`` of Abramowitz and Stegun (26.7.5)
    to the fourth order, within 1e-4 (scipy is not a dependency for one quantile).
    """
    if not df >= 1:
        raise ValueError(f"t95({df!r}): at least 1 degree of freedom")
    if df == 1:
        return math.tan(0.475 * math.pi)
    if df == 2:
        return 0.95 / math.sqrt(2 * 0.975 * 0.025)
    if df < 10:
        return _T95_SMALL[int(df)]  # whole degrees of freedom here (clusters - 1)
    z = Z95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


@dataclass(frozen=True)
class ClusterMean:
    """A mean over independent clusters with its 95% interval (:func:`cluster_mean`)."""

    mean: float
    low: float
    high: float
    stderr: float
    sd: float  # standard deviation of the cluster means
    clusters: int

    def to_dict(self) -> dict[str, float | int]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "stderr": self.stderr,
                "sd": self.sd, "clusters": self.clusters}


def cluster_mean(x: np.ndarray) -> ClusterMean:
    """The mean of outcomes ``x`` shaped ``(clusters, m)`` with Student's t 95% interval over the
    cluster means.

    For outcomes that may leave [0, 1] (Wilson's interval assumes they do not) and whose clusters
    are the independent units: the standard error is the spread of the G cluster means over
    ``sqrt(G)`` and the interval uses ``t95(G - 1)``, honest however the outcomes of a cluster
    correlate. NaN bounds with fewer than 2 clusters.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"cluster_mean needs a (clusters, m) array, got shape {x.shape}")
    g = x.shape[0]
    if g == 0 or x.shape[1] == 0:
        return ClusterMean(math.nan, math.nan, math.nan, math.nan, math.nan, g)
    means = x.mean(axis=1)
    m = float(means.mean())
    if g < 2:
        return ClusterMean(m, math.nan, math.nan, math.nan, math.nan, g)
    sd = float(means.std(ddof=1))
    se = sd / math.sqrt(g)
    half = t95(g - 1) * se
    return ClusterMean(m, m - half, m + half, se, sd, g)


@dataclass(frozen=True)
class Ratings:
    """Elo-scale ratings of ``n`` agents with standard errors relative to the anchor."""

    rating: np.ndarray  # (n,)
    stderr: np.ndarray  # (n,) 0 for the anchored agent
    anchor: str  # "mean=1500" or "<index>=0"
    iterations: int


def expected_score(r_i: float, r_j: float) -> float:
    """Bradley-Terry / Elo: the expected score of a player rated ``r_i`` against one rated ``r_j``."""
    return 1.0 / (1.0 + 10.0 ** (-(r_i - r_j) / 400.0))


def bradley_terry(wins: np.ndarray, prior_draws: float = 1.0, anchor: int | None = None,
                  mean: float = 1500.0, tol: float = 1e-10, max_iter: int = 200) -> Ratings:
    """Maximum-likelihood Bradley-Terry ratings from a matrix of (fractional) wins.

    ``wins[i, j]`` is how many games i scored against j: a win counts 1, a draw 1/2 to each side,
    so ``wins[i, j] + wins[j, i]`` is the number of games between them. The log-likelihood
    ``sum_ij wins[i, j] * log sigma(r_i - r_j)`` is concave; Newton's method finds its maximum.

    ``prior_draws`` adds that many virtual drawn games to every pair that met. The plain MLE does not
    exist when an agent won every game it played (its rating would be infinite); one virtual draw
    keeps it finite and moves a rating fitted from thousands of games by a fraction of an Elo point.
    Pass 0 for the exact MLE.

    Ratings are identified up to a constant: with ``anchor`` an agent index, that agent is rated 0
    and the errors are those of the differences to it; otherwise the mean rating is ``mean``.
    """
    w = np.array(wins, dtype=np.float64)
    n = w.shape[0]
    if w.shape != (n, n):
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    if (w < 0).any():
        raise ValueError("wins must be non-negative")
    np.fill_diagonal(w, 0.0)
    games = w + w.T
    if prior_draws:
        w = w + (games > 0) * (prior_draws / 2.0)
        games = w + w.T
    r = np.zeros(n)
    it = 0
    if n > 1:
        for it in range(1, max_iter + 1):
            diff = r[:, None] - r[None, :]
            s = 1.0 / (1.0 + np.exp(-diff))  # P(i beats j)
            grad = (w - games * s).sum(axis=1)
            info = games * s * (1 - s)  # the negative Hessian, off-diagonal with a minus sign
            h = np.diag(info.sum(axis=1)) - info
            step = np.linalg.lstsq(h, grad, rcond=None)[0]
            step -= step.mean()
            # The likelihood is concave, but a full Newton step from far away can overshoot a pair with
            # one-sided results; cap the step at 2 natural-log units (about 870 Elo).
            big = np.abs(step).max()
            if big > 2.0:
                step *= 2.0 / big
            r += step
            if big < tol:
                break
    diff = r[:, None] - r[None, :]
    s = 1.0 / (1.0 + np.exp(-diff))
    info = games * s * (1 - s)
    h = np.diag(info.sum(axis=1)) - info
    cov = np.linalg.pinv(h) if n > 1 else np.zeros((1, 1))  # covariance of the sum-zero ratings
    r_elo = r * ELO
    if anchor is None:
        rating = r_elo - r_elo.mean() + mean
        se = np.sqrt(np.clip(np.diag(cov), 0, None)) * ELO
        label = f"mean={mean:g}"
    else:
        if not 0 <= anchor < n:
            raise ValueError(f"anchor {anchor!r}: an agent index from 0 to {n - 1}")
        rating = r_elo - r_elo[anchor]
        var = np.diag(cov) + cov[anchor, anchor] - 2 * cov[:, anchor]
        se = np.sqrt(np.clip(var, 0, None)) * ELO
        se[anchor] = 0.0
        label = f"{anchor}=0"
    # Agents that played nobody (an isolated row) have no information: report NaN, not a number.
    alone = games.sum(axis=1) == 0
    if n > 1 and alone.any():
        rating = rating.astype(np.float64)
        rating[alone] = np.nan
        se[alone] = np.nan
    return Ratings(rating, se, label, it)

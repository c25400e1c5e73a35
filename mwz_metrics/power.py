"""How small a difference a comparison can detect, and how many goals and trials a difference needs.

A comparison of two systems on the same goals is paired: what varies is each goal's difference
``d_g`` (the mean over the goal's paired sessions, 1/0 Success each). With ``n`` goals, a two-sided
test at level ``alpha`` has power ``power`` against a true difference of

    MDD = (z_{1 - alpha/2} + z_{power}) * sd(d_g) / sqrt(n)

(the normal approximation of the paired test; 80% power and alpha = 0.05 give 2.80 standard errors).
That is the smallest detectable difference of the comparison: a smaller observed difference is
within what chance makes of goals of this size.

Planning: with ``K`` trials per goal, a goal's mean varies by ``between + within / K``, where
``between`` is the variance of the goals' true rates and ``within`` the variance of one trial around
its goal's rate, both estimated from a pilot run (one-way analysis of variance). The goals needed to
detect ``diff`` are ``((z_a + z_b) / diff)^2 * (between + within / K)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

ALPHA = 0.05
POWER = 0.80
PLANNED_TRIALS = (1, 2, 4, 8)


def z_sum(alpha: float = ALPHA, power: float = POWER) -> float:
    """``z_{1 - alpha/2} + z_{power}`` (2.80 for the defaults)."""
    normal = NormalDist()
    return normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)


def detectable_difference(goal_differences: Sequence[float], *, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest difference (in the differences' unit) a paired test over these goals detects
    with ``power`` at ``alpha`` (NaN with fewer than two goals)."""
    n = len(goal_differences)
    if n < 2:
        return math.nan
    mean = sum(goal_differences) / n
    variance = sum((d - mean) ** 2 for d in goal_differences) / (n - 1)
    return z_sum(alpha, power) * math.sqrt(variance / n)


def variance_components(per_goal: Mapping[str, Sequence[float]]) -> tuple[float, float]:
    """(between, within): the variance of the goals' true means and of one trial around its goal's mean,
    from each goal's values (a one-way analysis of variance; ``between`` never below 0). Goals with one
    value say nothing of ``within``; with none having two, ``within`` is 0 and ``between`` the total."""
    groups = [list(v) for v in per_goal.values() if len(v)]
    if not groups:
        return 0.0, 0.0
    repeated = [g for g in groups if len(g) > 1]
    within = 0.0
    if repeated:
        squares = sum(sum((x - sum(g) / len(g)) ** 2 for x in g) for g in repeated)
        within = squares / sum(len(g) - 1 for g in repeated)
    means = [sum(g) / len(g) for g in groups]
    if len(means) < 2:
        return 0.0, within
    grand = sum(means) / len(means)
    spread = sum((m - grand) ** 2 for m in means) / (len(means) - 1)
    typical = sum(len(g) for g in groups) / len(groups)
    return max(0.0, spread - within / typical), within


def goals_needed(
    difference: float, between: float, within: float, trials: int, *, alpha: float = ALPHA, power: float = POWER
) -> int | None:
    """Goals needed to detect ``difference`` with ``trials`` trials per goal (None for a difference of 0
    or a pilot without variance: it gives nothing to plan from)."""
    variance = between + within / trials
    if difference <= 0 or variance <= 0:
        return None
    return max(2, math.ceil((z_sum(alpha, power) / difference) ** 2 * variance))


def plan(
    difference: float,
    between: float,
    within: float,
    *,
    trials: Sequence[int] = PLANNED_TRIALS,
    alpha: float = ALPHA,
    power: float = POWER,
) -> list[dict[str, int | None]]:
    """For each number of trials per goal: the goals needed and the sessions that makes."""
    out = []
    for k in trials:
        goals = goals_needed(difference, between, within, k, alpha=alpha, power=power)
        out.append({"trials": k, "goals": goals, "sessions": None if goals is None else goals * k})
    return out

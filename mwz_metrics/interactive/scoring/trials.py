"""Figures over trials: pass^k, goals solved in every trial and in none, intervals that resample goals.

A run of ``mwz interact --trials K`` holds K sessions per goal. Success, Inform and the act figures
stay means over all sessions; besides them:

- **pass^k** (tau-bench's definition, Yao et al. 2024): for each goal with ``c`` successful sessions
  out of ``n``, ``C(c, k) / C(n, k)`` (the chance that k trials drawn without replacement all
  succeed; 0 when ``c < k``), averaged over the goals with ``n >= k``, in percent. pass^1 is the mean
  Success when every goal has the same number of sessions; pass^k never rises with k.
- the share of goals **solved in every trial** (``c == n``) and **in none** (``c == 0``).
- every interval resamples **goals**, each goal's trials kept together (a goal's sessions are not
  independent draws), in the order the sessions are given (a file's readers give them in goal order:
  :func:`mwz_metrics.interactive.harness.sessions.in_goal_order`).

**Robustness** (:func:`robustness`): a system played by several users (the default user and the profiles
of ``mwz interact --profiles all``) on the same goals, seeds and trials. The **worst-profile** Success is
the lowest Success over the users, the default user counted among them (a profile that helps the system
cannot hide the default user's figure); the **mean** is the mean over the same users, each weighing the
same. Both are over the sessions every user has (paired by goal, and by trial where the runs have
trials), their intervals resample goals once for all users (each goal's trials together) and take, in
each resample, the min and the mean over the users' Success; the difference to the default user is
paired the same way (its interval and sacrebleu's p-value from the same resamples). The minimum of
resampled figures leans low: the worst user's interval is a lower, conservative one, as a worst case.

Sessions that ended for an **infrastructure** reason (:data:`INFRASTRUCTURE`) are counted apart; by
default they stay in every figure as failures (the system's availability is part of what is
measured), ``exclude_infra`` drops them (and the signature says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from math import comb
from typing import Any

import numpy as np

from mwz_metrics import bootstrap
from mwz_metrics.interactive.protocol import INFRASTRUCTURE_ENDS as INFRASTRUCTURE

DEFINITION = "pass^k = mean over goals of C(c,k)/C(n,k), c of a goal's n sessions successful (tau-bench)"


def goal_of(session: Mapping[str, Any]) -> str:
    """The goal (test dialogue) a session pursued; its id in a run of one trial."""
    return str((session.get("goal") or {}).get("dialogue_id", session["id"]))


def trial_of(session: Mapping[str, Any]) -> int:
    """A session's trial (0 in a run of one trial per goal)."""
    return int(session.get("trial") or 0)


def infrastructure_ends(sessions: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many sessions ended for each infrastructure reason (none listed that did not occur)."""
    counts = {reason: 0 for reason in INFRASTRUCTURE}
    for session in sessions:
        reason = (session.get("end") or {}).get("reason")
        if reason in counts:
            counts[reason] += 1
    return {reason: count for reason, count in counts.items() if count}


def is_infrastructure(session: Mapping[str, Any]) -> bool:
    """Whether a session ended for an infrastructure reason."""
    return (session.get("end") or {}).get("reason") in INFRASTRUCTURE


def groups(sessions: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """The positions of each goal's sessions, goals in the order they first appear."""
    out: dict[str, list[int]] = {}
    for index, session in enumerate(sessions):
        out.setdefault(goal_of(session), []).append(index)
    return list(out.values())


def pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """tau-bench's pass^k in percent: ``counts`` holds each goal's (n sessions, c successful)."""
    terms = [comb(c, k) / comb(n, k) for n, c in counts if n >= k]
    return 100.0 * sum(terms) / len(terms) if terms else None


class GoalResampler:
    """Bootstrap weights over sessions that resample goals: a drawn goal brings all its sessions.

    Where every goal has one session it draws exactly what a bootstrap over sessions draws (the
    weights of :func:`mwz_metrics.bootstrap.resample_weights`), so a run of one trial keeps its intervals.
    """

    def __init__(self, session_groups: Sequence[Sequence[int]], resamples: int, seed: int) -> None:
        self.groups = [list(g) for g in session_groups]
        self.sessions = sum(len(g) for g in self.groups)
        self.resamples, self.seed = resamples, seed
        self.clustered = any(len(g) > 1 for g in self.groups)
        self._goal = np.zeros(self.sessions, dtype=np.int64)
        for number, group in enumerate(self.groups):
            self._goal[group] = number

    def weights(self, mask: Sequence[bool] | None = None, minimum: int = 1) -> np.ndarray | None:
        """``resamples x sessions`` weights over the sessions in ``mask`` (all by default); None without
        resamples or with fewer than ``minimum`` of them."""
        chosen = np.ones(self.sessions, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
        count = int(chosen.sum())
        if self.resamples <= 0 or count < minimum or count == 0:
            return None
        if not self.clustered:  # one session per goal: resample the chosen sessions themselves
            return bootstrap.resample_weights(count, self.resamples, self.seed)
        goal_weights = bootstrap.resample_weights(len(self.groups), self.resamples, self.seed)
        return goal_weights[:, self._goal[chosen]]

    def goal_weights(self) -> np.ndarray | None:
        """``resamples x goals`` weights (for per-goal figures such as pass^k)."""
        if self.resamples <= 0 or not self.groups:
            return None
        return bootstrap.resample_weights(len(self.groups), self.resamples, self.seed)


def outcomes_by_goal(
    per_session: Sequence[Mapping[str, Any]], metric: str = "success", keys: Set[str] | None = None
) -> dict[str, list[float]]:
    """Each goal's outcomes of ``metric`` (1/0), from the scored sessions (``per_session``; those in
    ``keys`` where given), in goal order."""
    from mwz_metrics.interactive.protocol import parse_session_id

    out: dict[str, list[float]] = {}
    for record in per_session:
        if record.get(metric) is not None and (keys is None or record["id"] in keys):
            out.setdefault(parse_session_id(record["id"])[0], []).append(float(record[metric]))
    return out


def per_goal_counts(
    sessions: Sequence[Mapping[str, Any]], per_session: Sequence[Mapping[str, Any]]
) -> list[tuple[int, int]]:
    """Each goal's (sessions that count for Success, successful ones), goals in order of appearance."""
    out = []
    for group in groups(sessions):
        counted = [per_session[i]["success"] for i in group if per_session[i]["success"] is not None]
        out.append((len(counted), int(sum(1 for v in counted if v == 1.0))))
    return out


def figure_rows(figures: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """The figures of :func:`trial_figures` as (label, value, 95% interval or None), in the order every
    report shows them: pass^k for each k, then the goals solved in every trial and in none."""
    ci = figures.get("ci95") or {}
    rows = [(f"pass^{k}", value, ci.get(f"pass_hat_{k}")) for k, value in figures["pass_hat_k"].items()]
    rows.append(("solved every trial", figures["all_trials"], ci.get("all_trials")))
    rows.append(("solved no trial", figures["no_trial"], ci.get("no_trial")))
    return rows


def trial_figures(
    sessions: Sequence[Mapping[str, Any]],
    per_session: Sequence[Mapping[str, Any]],
    *,
    trials: int,
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    """pass^k for k = 1..``trials``, the goals solved in every trial and in none, with goal-resampled
    intervals (see the module docstring)."""
    counts = per_goal_counts(sessions, per_session)
    scored = [(n, c) for n, c in counts if n]
    out: dict[str, Any] = {
        "trials": trials,
        "goals": len(counts),
        "definition": DEFINITION,
        "pass_hat_k": {str(k): pass_hat_k(scored, k) for k in range(1, trials + 1)},
        "all_trials": 100.0 * sum(1 for n, c in scored if c == n) / len(scored) if scored else None,
        "no_trial": 100.0 * sum(1 for _n, c in scored if c == 0) / len(scored) if scored else None,
    }
    resampler = GoalResampler([[i] for i in range(len(scored))], resamples, seed)
    weights = resampler.goal_weights()
    ci: dict[str, Any] = {}
    if weights is not None and len(scored) >= 2:
        total = np.maximum(weights.sum(axis=1), 1)
        for k in range(1, trials + 1):
            terms = np.array([comb(c, k) / comb(n, k) if n >= k else np.nan for n, c in scored])
            present = ~np.isnan(terms)
            if present.any():
                used = weights[:, present]
                samples = 100.0 * (used @ terms[present]) / np.maximum(used.sum(axis=1), 1)
                ci[f"pass_hat_{k}"] = list(bootstrap.confidence_interval(samples))
        for key, hit in (("all_trials", [c == n for n, c in scored]), ("no_trial", [c == 0 for _n, c in scored])):
            samples = 100.0 * (weights @ np.asarray(hit, dtype=np.float64)) / total
            ci[key] = list(bootstrap.confidence_interval(samples))
    out["ci95"] = ci
    return out


ROBUSTNESS_DEFINITION = (
    "worst: the lowest Success over the users, the default user among them; mean: their mean, each user "
    "weighing the same; over the sessions every user has, paired by goal (and trial); intervals resample goals "
    "once for all users"
)


def _user_goal_matrix(
    per_user: Mapping[str, Sequence[Mapping[str, Any]]],
) -> tuple[list[str], np.ndarray, str, int]:
    """The goals every user has, each user's Success (0..1) per goal over the sessions all users have
    (``users x goals``; a goal of several trials: the mean of its paired trials), what the sessions are
    paired by, and how many sessions of each user the pairing holds."""
    from mwz_metrics.interactive.protocol import parse_session_id

    outcomes = [
        {str(r["id"]): float(r["success"]) for r in records if r.get("success") is not None}
        for records in per_user.values()
    ]
    keys = set.intersection(*(set(found) for found in outcomes)) if outcomes else set()
    with_trials = bool(keys) and all(any(parse_session_id(k)[1] is not None for k in found) for found in outcomes)
    by_goal = [_by_goal(found, keys if with_trials else None) for found in outcomes]
    goals = [g for g in (by_goal[0] if by_goal else {}) if all(g in other for other in by_goal[1:])]
    matrix = np.array([[np.mean(found[g]) for g in goals] for found in by_goal], dtype=np.float64)
    sessions = sum(len(by_goal[0][g]) for g in goals) if by_goal else 0
    return goals, matrix.reshape(len(by_goal), len(goals)), "goal and trial" if with_trials else "goal", sessions


def _by_goal(outcomes: Mapping[str, float], keys: set[str] | None) -> dict[str, list[float]]:
    """Each goal's outcomes among ``outcomes`` (session id -> 1/0), of the sessions in ``keys`` (all by default)."""
    from mwz_metrics.interactive.protocol import parse_session_id

    out: dict[str, list[float]] = {}
    for key, value in outcomes.items():
        if keys is None or key in keys:
            out.setdefault(parse_session_id(key)[0], []).append(value)
    return out


def robustness(
    per_user: Mapping[str, Sequence[Mapping[str, Any]]], *, resamples: int, seed: int, default: str = "default"
) -> dict[str, Any] | None:
    """The worst-user and mean Success over the users of ``per_user`` (user -> the scored sessions of its
    run, ``per_session``; ``default`` among them, the first by convention), with goal-clustered intervals
    and the paired difference to the default user (see the module docstring); None without a goal all
    users share. ``worst_share``: in how many resamples (a share) each user was the worst (a tie counts
    for each user in it)."""
    users = list(per_user)
    if default not in per_user or len(users) < 2:
        raise ValueError(f"robustness needs the {default!r} user and at least one other")
    goals, matrix, paired_by, sessions = _user_goal_matrix(per_user)
    if not goals:
        return None
    success = 100.0 * matrix.mean(axis=1)
    at = users.index(default)
    worst_value = float(success.min())
    out: dict[str, Any] = {
        "definition": ROBUSTNESS_DEFINITION,
        "users": users,
        "default": default,
        "paired_by": paired_by,
        "goals": len(goals),
        "sessions": sessions,
        "success": {user: float(value) for user, value in zip(users, success)},
        "worst": {
            "value": worst_value,
            "users": [u for u, v in zip(users, success) if v == worst_value],
            "against_default": {"difference": worst_value - float(success[at])},
        },
        "mean": {
            "value": float(success.mean()),
            "against_default": {"difference": float(success.mean() - success[at])},
        },
        "resamples": resamples,
        "seed": seed,
    }
    if resamples <= 0 or len(goals) < 2:
        return out
    weights = bootstrap.resample_weights(len(goals), resamples, seed)
    samples = 100.0 * (weights @ matrix.T) / np.maximum(weights.sum(axis=1), 1)[:, None]  # resamples x users
    for key, figure in (("worst", samples.min(axis=1)), ("mean", samples.mean(axis=1))):
        entry = out[key]
        entry["ci95"] = list(bootstrap.confidence_interval(figure))
        against = entry["against_default"]
        deltas = figure - samples[:, at]
        against["ci95"] = list(bootstrap.confidence_interval(deltas))
        against["p_value"] = bootstrap.p_value(figure, samples[:, at], against["difference"])
    lowest = samples == samples.min(axis=1, keepdims=True)  # a tie: each user at the minimum
    out["worst_share"] = {user: float(lowest[:, i].mean()) for i, user in enumerate(users)}
    return out


def robustness_samples(
    per_user: Mapping[str, Sequence[Mapping[str, Any]]], goals: Sequence[str], weights: np.ndarray
) -> dict[str, np.ndarray]:
    """The worst and mean Success over the users in each resample of ``goals`` (``weights``: resamples x
    goals), for a paired comparison of two systems' robustness on the goals both have."""
    mine, matrix, _paired_by, _sessions = _user_goal_matrix(per_user)
    where = {goal: i for i, goal in enumerate(mine)}
    columns = [where[g] for g in goals]
    samples = 100.0 * (weights @ matrix[:, columns].T) / np.maximum(weights.sum(axis=1), 1)[:, None]
    return {"worst": samples.min(axis=1), "mean": samples.mean(axis=1)}


def robustness_goals(per_user: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[str]:
    """The goals every user of ``per_user`` has (in the first user's order)."""
    return _user_goal_matrix(per_user)[0]

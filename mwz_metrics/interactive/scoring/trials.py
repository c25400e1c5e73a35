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

Sessions that ended for an **infrastructure** reason (:data:`INFRASTRUCTURE`) are counted apart; by
default they stay in every figure as failures (the system's availability is part of what is
measured), ``exclude_infra`` drops them (and the signature says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def outcomes_by_goal(per_session: Sequence[Mapping[str, Any]], metric: str = "success") -> dict[str, list[float]]:
    """Each goal's outcomes of ``metric`` (1/0), from the scored sessions (``per_session``), in goal order."""
    from mwz_metrics.interactive.protocol import parse_session_id

    out: dict[str, list[float]] = {}
    for record in per_session:
        if record.get(metric) is not None:
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

"""What a coherence result reports beside its score: bootstrap CIs, per-domain scores, the worst turns.

The bootstrap resamples whole sessions (seeded, the same resamples for a system
and gold, as :mod:`mwz_metrics.comparison.bootstrap` does for the other metrics);
a corpus score is the mean over the pairs of the resampled sessions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mwz_metrics.bootstrap import confidence_interval, p_value, ratio, resample_weights
from mwz_metrics.records.turns import spoken

RESAMPLES = 1000
SEED = 0


def _sums(per_pair: Mapping[str, Sequence[float]], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    sums = np.array([float(np.sum(per_pair[n])) for n in names])
    counts = np.array([float(len(per_pair[n])) for n in names])
    return sums, counts


def scorer_of(per_pair: Mapping[str, Sequence[float]], names: Sequence[str]):
    """The bootstrap score function (weights -> pair-mean scores, 0-100) over sessions ``names``."""
    return ratio(*_sums(per_pair, names))


def _samples(per_pair: Mapping[str, Sequence[float]], names: Sequence[str], weights: np.ndarray) -> np.ndarray:
    return scorer_of(per_pair, names)(weights)


def bootstrap(
    per_pair: Mapping[str, Sequence[float]], *, resamples: int = RESAMPLES, seed: int = SEED
) -> dict[str, float]:
    """95% percentile interval of the pair-mean score over resampled sessions."""
    names = sorted(n for n, p in per_pair.items() if len(p))
    if not names:
        return {"low": float("nan"), "high": float("nan"), "resamples": resamples, "seed": seed}
    low, high = confidence_interval(_samples(per_pair, names, resample_weights(len(names), resamples, seed)))
    return {"low": low, "high": high, "resamples": resamples, "seed": seed}


def paired_difference(
    system: Mapping[str, Sequence[float]],
    reference: Mapping[str, Sequence[float]],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> dict[str, float]:
    """``reference - system`` on the sessions both have: value, 95% CI and paired-bootstrap p."""
    names = sorted(n for n in system if n in reference and len(system[n]) and len(reference[n]))
    if not names:
        return {"difference": float("nan"), "low": float("nan"), "high": float("nan"), "p_value": float("nan")}
    weights = resample_weights(len(names), resamples, seed)
    ones = np.ones((1, len(names)))
    ref_samples, sys_samples = _samples(reference, names, weights), _samples(system, names, weights)
    observed = float((_samples(reference, names, ones) - _samples(system, names, ones))[0])
    low, high = confidence_interval(ref_samples - sys_samples)
    return {
        "difference": observed,
        "low": low,
        "high": high,
        "p_value": p_value(ref_samples, sys_samples, observed),
        "sessions": len(names),
    }


def per_domain(per_pair: Mapping[str, Sequence[float]], domains: Mapping[str, frozenset[str]]) -> dict[str, Any]:
    """Pair-mean score (0-100) and session count per domain; a multi-domain session counts for each."""
    grouped: dict[str, list[str]] = {}
    for name, values in per_pair.items():
        if not len(values):
            continue
        for domain in sorted(domains.get(name, frozenset())) or ["unknown"]:
            grouped.setdefault(domain, []).append(name)
    out = {}
    for domain, names in sorted(grouped.items()):
        sums, counts = _sums(per_pair, names)
        out[domain] = {"coherence": float(100.0 * sums.sum() / counts.sum()), "sessions": len(names)}
    return out


def _logit(probability: float) -> float:
    """log(p / (1 - p)), finite at the ends of float precision."""
    p = min(max(probability, 1e-300), 1.0 - 1e-16)
    return math.log(p) - math.log1p(-p)


def least_coherent(
    sessions: Mapping[str, Sequence[Mapping[str, str]]], per_pair: Mapping[str, Sequence[float]], n: int = 20
) -> list[dict[str, Any]]:
    """The ``n`` least coherent pairs with their context (the turn before the pair), lowest first."""
    rows = []
    for name, values in per_pair.items():
        turns = sessions[name]
        for index, probability in enumerate(values):
            rows.append((float(probability), name, index))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    out = []
    for probability, name, index in rows[:n]:
        turns = sessions[name]
        out.append(
            {
                "session": name,
                "turn": index + 1,
                "probability": round(100.0 * probability, 2),
                # pairs under 0.005% all print 0.00: the model's logit is what orders them
                "logit": round(_logit(probability), 2),
                "context": turns[index - 1]["text"] if index > 0 else None,
                "first": spoken(turns[index]),
                "second": spoken(turns[index + 1]),
            }
        )
    return out

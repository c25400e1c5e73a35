"""Paired bootstrap over dialogues: confidence intervals and p-values against a baseline.

Whole dialogues are resampled (with replacement, the same resamples for every system, from a
seeded generator), as sacrebleu's paired bootstrap resamples sentences. A rate is the mean of
per-dialogue outcomes over the resample; BLEU is recomputed from the per-dialogue sums of
sacrebleu's sufficient statistics (n-gram matches and totals, lengths), so the full sample
gives exactly the corpus BLEU. The p-value is sacrebleu's: the share of resampled differences
that lie at least as far from their mean as the observed difference (with +1 smoothing), so
two identical systems get p = 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

ScoreOf = Callable[[np.ndarray], np.ndarray]  # weights (resamples x dialogues) -> scores


def resample_weights(dialogues: int, resamples: int, seed: int) -> np.ndarray:
    """How often each dialogue is drawn in each resample: ``resamples x dialogues`` counts."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, dialogues, size=(resamples, dialogues))
    weights = np.zeros((resamples, dialogues), dtype=np.int64)
    rows = np.repeat(np.arange(resamples), dialogues)
    np.add.at(weights, (rows, draws.ravel()), 1)
    return weights


def rate(outcomes: Sequence[float]) -> ScoreOf:
    """A percentage of per-dialogue outcomes (1/0; NaN where the dialogue does not count)."""
    values = np.asarray(outcomes, dtype=np.float64)
    counted = ~np.isnan(values)
    filled = np.where(counted, values, 0.0)

    def score(weights: np.ndarray) -> np.ndarray:
        total = weights @ counted.astype(np.float64)
        return 100.0 * (weights @ filled) / np.maximum(total, 1.0)

    return score


def ratio(sums: Sequence[float] | np.ndarray, counts: Sequence[float] | np.ndarray) -> ScoreOf:
    """A percentage of per-dialogue sums over per-dialogue counts (e.g. P(coherent) summed over a
    session's pairs, and its number of pairs): the mean over the resampled dialogues' items."""
    numerator = np.asarray(sums, dtype=np.float64)
    denominator = np.asarray(counts, dtype=np.float64)

    def score(weights: np.ndarray) -> np.ndarray:
        return 100.0 * (weights @ numerator) / np.maximum(weights @ denominator, 1.0)

    return score


def bleu(statistics: np.ndarray, compute: Callable[[list[int]], float]) -> ScoreOf:
    """BLEU from per-dialogue sacrebleu statistics (``dialogues x stats``), summed per resample."""
    stats = np.asarray(statistics, dtype=np.int64)

    def score(weights: np.ndarray) -> np.ndarray:
        summed = weights @ stats
        return np.array([compute([int(x) for x in row]) for row in summed])

    return score


def confidence_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap samples."""
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def p_value(system: np.ndarray, baseline: np.ndarray, observed: float) -> float:
    """sacrebleu's paired-bootstrap p-value of the observed difference ``system - baseline``."""
    deltas = system - baseline
    extreme = np.abs(deltas - deltas.mean()) >= abs(observed)
    return float((extreme.sum() + 1) / (len(deltas) + 1))


def paired(
    scorers: Mapping[str, ScoreOf], dialogues: int, *, resamples: int = 1000, seed: int = 0
) -> dict[str, np.ndarray]:
    """Bootstrap samples of every system's score, all on the same resamples."""
    weights = resample_weights(dialogues, resamples, seed)
    return {name: scorer(weights) for name, scorer in scorers.items()}

"""Bootstrap over dialogues: confidence intervals and p-values against a baseline.

Whole dialogues are resampled (with replacement, from a seeded generator), as sacrebleu's paired
bootstrap resamples sentences: a system's interval over its own dialogues, a p-value over the
dialogues it shares with the baseline (the same resamples for both). A rate is the mean of
per-dialogue outcomes over the resample; BLEU is recomputed from the per-dialogue sums of
sacrebleu's sufficient statistics (n-gram matches and totals, lengths), so the full sample
gives exactly the corpus BLEU. The p-value is sacrebleu's: the share of resampled differences
that lie at least as far from their mean as the observed difference (with +1 smoothing), so
two identical systems get p = 1.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

ScoreOf = Callable[[np.ndarray], np.ndarray]  # weights (resamples x dialogues) -> scores


@functools.lru_cache(maxsize=4)  # a comparison asks for the same 1000 x 1000 over and over (8 MB each)
def resample_weights(dialogues: int, resamples: int, seed: int) -> np.ndarray:
    """How often each dialogue is drawn in each resample: ``resamples x dialogues`` counts (read-only:
    the same array serves every caller with the same arguments)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, dialogues, size=(resamples, dialogues))
    cells = (draws + (np.arange(resamples, dtype=np.int64) * dialogues)[:, None]).ravel()  # row-major cell index
    weights = np.bincount(cells, minlength=resamples * dialogues).astype(np.int64, copy=False)
    weights = weights.reshape(resamples, dialogues)
    weights.flags.writeable = False
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


@dataclasses.dataclass(frozen=True)
class DialogueScores:
    """One system's figure for one metric, as the bootstrap needs it: what each dialogue contributes
    (``values``) and how a score is made of a set of them (``make(values, ids) -> ScoreOf``).

    Every metric that ``mwz compare`` shows with an interval comes through this one interface:
    rates (:func:`rates`), BLEU (:func:`bleu_scores`) and means of per-item scores such as coherence
    and fluency (:func:`means`). An interval resamples the system's *own* dialogues; a p-value
    against a baseline pairs the dialogues both have.
    """

    values: Mapping[str, Any]
    make: Callable[[Mapping[str, Any], Sequence[str]], ScoreOf]

    @property
    def dialogues(self) -> list[str]:
        """The dialogues this figure is made of, sorted."""
        return sorted(self.values)

    def score_of(self, ids: Sequence[str]) -> ScoreOf:
        """The score function over the dialogues ``ids``."""
        return self.make(self.values, ids)

    def exact(self, ids: Sequence[str] | None = None) -> float:
        """The figure over ``ids`` (default: all its dialogues), each counted once."""
        ids = self.dialogues if ids is None else list(ids)
        return float(self.score_of(ids)(np.ones((1, len(ids)), dtype=np.int64))[0])


def rates(outcomes: Mapping[str, float | None]) -> DialogueScores:
    """A percentage of per-dialogue outcomes (1/0; None where the dialogue does not count)."""
    values = {k: float("nan") if v is None else float(v) for k, v in outcomes.items()}
    return DialogueScores(values, _rate_of)


def bleu_scores(statistics: Mapping[str, Sequence[int]], compute: Callable[[list[int]], float]) -> DialogueScores:
    """BLEU from per-dialogue sacrebleu statistics (``compute`` a module-level function, so that the
    figure crosses to another process)."""
    return DialogueScores(dict(statistics), functools.partial(_bleu_of, compute=compute))


def means(items: Mapping[str, Sequence[float]], scale: float = 1.0) -> DialogueScores:
    """The mean of per-item scores (a dialogue's items: its responses, its turn pairs), times ``scale``."""
    sums = {k: (float(sum(v)), float(len(v))) for k, v in items.items() if len(v)}
    return DialogueScores(sums, functools.partial(_mean_of, scale=scale))


# The score makers are module-level functions (partials), never lambdas: a DialogueScores pickles,
# so a figure scored in a worker process reaches the comparison whole.
def _rate_of(values: Mapping[str, float], ids: Sequence[str]) -> ScoreOf:
    return rate([values[i] for i in ids])


def _bleu_of(
    values: Mapping[str, Sequence[int]], ids: Sequence[str], *, compute: Callable[[list[int]], float]
) -> ScoreOf:
    return bleu(np.array([values[i] for i in ids], dtype=np.int64).reshape(len(ids), -1), compute)


def _mean_of(values: Mapping[str, tuple[float, float]], ids: Sequence[str], *, scale: float) -> ScoreOf:
    numerator = np.array([values[i][0] for i in ids])
    denominator = np.array([values[i][1] for i in ids])

    def score(weights: np.ndarray) -> np.ndarray:
        return scale * (weights @ numerator) / np.maximum(weights @ denominator, 1.0)

    return score


def interval(scores: DialogueScores, *, resamples: int, seed: int, level: float = 0.95) -> tuple[float, float] | None:
    """The percentile interval of the figure over its own dialogues (None without resamples)."""
    ids = scores.dialogues
    if resamples <= 0 or not ids:
        return None
    samples = scores.score_of(ids)(resample_weights(len(ids), resamples, seed))
    return confidence_interval(samples, level)


def paired_p_value(
    system: DialogueScores, baseline: DialogueScores, *, resamples: int, seed: int
) -> tuple[float, int] | None:
    """sacrebleu's paired p-value over the dialogues both have, and how many those are."""
    common = sorted(set(system.values) & set(baseline.values))
    if resamples <= 0 or not common:
        return None
    weights = resample_weights(len(common), resamples, seed)
    first, second = system.score_of(common), baseline.score_of(common)
    observed = system.exact(common) - baseline.exact(common)
    return p_value(first(weights), second(weights), observed), len(common)

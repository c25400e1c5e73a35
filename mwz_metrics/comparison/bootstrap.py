"""The bootstrap's old address: :mod:`mwz_metrics.bootstrap` (``DialogueScores``, which ``docs/comparing.md`` names here, lives there)."""

from mwz_metrics.bootstrap import (  # noqa: F401
    DialogueScores,
    bleu,
    bleu_scores,
    confidence_interval,
    interval,
    means,
    p_value,
    paired_p_value,
    rate,
    rates,
    ratio,
    resample_weights,
)

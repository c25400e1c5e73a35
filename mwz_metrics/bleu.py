"""Corpus BLEU of normalized responses against each style's normalized references."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def bleu(
    hypotheses: Mapping[str, Sequence[str]], references: Mapping[str, Mapping[str, Sequence[str]]]
) -> tuple[dict[str, float], str]:
    """One sacrebleu corpus BLEU per style, hypotheses aligned turn by turn.

    ``hypotheses``: dialogue key -> normalized responses; ``references``: style ->
    dialogue key -> normalized references. Returns the scores and sacrebleu's
    signature.
    """
    from sacrebleu.metrics import BLEU  # imported when used: keeps evaluate.load fast

    keys = list(hypotheses)
    flat_hypotheses = [h for key in keys for h in hypotheses[key]]
    metric = BLEU()
    scores = {}
    for style, per_dialogue in references.items():
        flat_references = []
        for key in keys:
            reference = per_dialogue[key]
            flat_references.extend(reference[: len(hypotheses[key])])
        scores[style] = metric.corpus_score(flat_hypotheses, [flat_references]).score
    return scores, str(metric.get_signature())

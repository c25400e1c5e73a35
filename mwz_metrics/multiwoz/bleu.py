"""Corpus BLEU of normalized responses against each style's normalized references."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence

# sacrebleu scorers with reference statistics pre-computed, per reference corpus:
# the references are the same for every system, only the hypotheses change.
_SCORERS: OrderedDict[tuple, object] = OrderedDict()
_MAX_SCORERS = 8


def _scorer(references: list[str]):
    from sacrebleu.metrics import BLEU  # imported when used: keeps evaluate.load fast

    key = (len(references), hash(tuple(references)))
    scorer = _SCORERS.get(key)
    if scorer is None:
        scorer = BLEU(references=[references])
        _SCORERS[key] = scorer
        while len(_SCORERS) > _MAX_SCORERS:
            _SCORERS.popitem(last=False)
    else:
        _SCORERS.move_to_end(key)
    return scorer


def bleu(
    hypotheses: Mapping[str, Sequence[str]], references: Mapping[str, Mapping[str, Sequence[str]]]
) -> tuple[dict[str, float], str]:
    """One sacrebleu corpus BLEU per style, hypotheses aligned turn by turn.

    ``hypotheses``: dialogue key -> normalized responses; ``references``: style ->
    dialogue key -> normalized references. Returns the scores and sacrebleu's
    signature (default BLEU: 13a tokenization, exponential smoothing).
    """
    keys = list(hypotheses)
    flat_hypotheses = [h for key in keys for h in hypotheses[key]]
    scores = {}
    signature = ""
    for style, per_dialogue in references.items():
        flat_references = [r for key in keys for r in per_dialogue[key][: len(hypotheses[key])]]
        scorer = _scorer(flat_references)
        scores[style] = scorer.corpus_score(flat_hypotheses, None).score
        signature = str(scorer.get_signature())
    return scores, signature

"""Lexical richness of MultiWOZ responses (mwzeval)."""

import evaluate

from mwz_metrics.multiwoz import hf_modules

_DESCRIPTION = """\
Lexical richness of the normalized responses as mwzeval measures it: unigram
entropy, conditional bigram entropy, average response length, MSTTR-50 (mean
segmental type-token ratio over windows of 50 tokens) and the numbers of distinct
uni-, bi- and trigrams. Needs no reference data.
"""

_KWARGS_DESCRIPTION = (
    hf_modules.INPUTS
    + """
Returns:
    ``richness``: ``entropy``, ``cond_entropy`` (bits, >= 0), ``avg_lengths``
    (tokens), ``msttr`` (0-1), ``num_unigrams``, ``num_bigrams``, ``num_trigrams``;
    ``warnings`` and ``signature``.
Examples:
    >>> import mwz_metrics, evaluate
    >>> richness = evaluate.load("mwz_richness")
    >>> result = richness.compute(predictions={"sng0073": [{"response": "i have [value_count] trains for you."}]})
    >>> result["richness"]["num_unigrams"], result["richness"]["avg_lengths"]
    (6, 6.0)
"""
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MwzRichness(evaluate.Metric):
    compute = hf_modules.direct_compute
    add = hf_modules.unsupported_add
    add_batch = hf_modules.unsupported_add

    def _info(self):
        return hf_modules.info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def _compute(self, *, predictions, references=None):
        result = hf_modules.run(predictions, references, bleu=False, success=False, richness=True)
        return {key: result[key] for key in ("richness", "warnings", "signature")}

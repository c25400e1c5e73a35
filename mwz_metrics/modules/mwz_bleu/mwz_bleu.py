"""BLEU of delexicalized MultiWOZ responses, one score per delexicalization style."""

import evaluate

from mwz_metrics.multiwoz import hf_modules

_DESCRIPTION = """\
SacreBLEU corpus BLEU of normalized, delexicalized responses against the MultiWOZ
test references, one score per registered delexicalization style that builds
references (``mwz22``: MultiWOZ 2.2 spans, as mwzeval). Placeholders of every
registered style are mapped onto one ontology first (``[value_name]`` and
``[restaurant_name]`` both become ``NAME``), so systems using different
vocabularies are scored alike.
"""

_KWARGS_DESCRIPTION = (
    hf_modules.INPUTS
    + """
    styles: the styles to score against (default: all that build references).
Returns:
    ``bleu``: ``{style: BLEU}`` (0-100); ``sacrebleu``: sacrebleu's signature;
    ``coverage``, ``warnings``, ``signature``.
Examples:
    >>> import mwz_metrics, evaluate
    >>> bleu = evaluate.load("mwz_bleu")
    >>> result = bleu.compute(predictions={"pmul4398": ["there are [choice] restaurants."]})  # doctest: +SKIP
"""
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MwzBleu(evaluate.Metric):
    compute = hf_modules.direct_compute
    add = hf_modules.unsupported_add
    add_batch = hf_modules.unsupported_add

    def _info(self):
        return hf_modules.info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def _compute(self, *, predictions, references=None, styles=None):
        result = hf_modules.run(predictions, references, bleu=True, success=False, richness=False, styles=styles)
        return {
            "bleu": result["bleu"],
            "sacrebleu": result["signature"]["sacrebleu"],
            **{key: result[key] for key in ("coverage", "warnings", "signature")},
        }

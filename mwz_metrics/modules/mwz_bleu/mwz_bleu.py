"""BLEU of delexicalized MultiWOZ responses, one score per delexicalization style."""

import evaluate

from mwz_metrics.multiwoz import hf_modules
from mwz_metrics.settings import BleuConfig, described

_DESCRIPTION = """\
SacreBLEU corpus BLEU of normalized, delexicalized responses against the MultiWOZ
test references, one score per delexicalization style (Nekvinda & Dusek 2021,
Table 4): ``mwz22`` (built from the MultiWOZ 2.2 span annotations, as mwzeval) and
``damd``, ``uniconv``, ``hdsa``, ``lava``, ``augpt`` (mwzeval's reference files,
each made by that system's own preprocessing). A style whose file is not at hand
offline is reported in ``warnings``. Placeholders of every registered style are
mapped onto one ontology first (``[value_name]`` and ``[restaurant_name]`` both
become ``NAME``), so systems using different vocabularies are scored alike.

Also accepts ``evaluate``'s flat convention: a list of responses with one or
several references each (normalized on both sides like mwzeval); ``add`` and
``add_batch`` work for that form.
"""

_KWARGS_DESCRIPTION = (
    hf_modules.INPUTS
    + """
    Flat form: ``predictions`` a list of response strings and ``references`` one
        reference string, or a list of reference strings, per response.
    references (dialogue form, dict predictions): your own reference files,
        ``{name: path or {dialogue_id: [reference, ...]}}`` in mwzeval's format,
        scored as extra styles (a registered style's name replaces that style).
"""
    + described(BleuConfig)
    + """Returns:
    ``bleu``: ``{style: BLEU}`` (0-100), or for the flat form one BLEU;
    ``sacrebleu``: sacrebleu's signature; ``coverage``, ``warnings``, ``signature``.
Examples:
    >>> import mwz_metrics, evaluate
    >>> bleu = evaluate.load("mwz_bleu")
    >>> hypotheses, references = ["there are [value_count] trains today"], ["there are 5 trains today"]
    >>> flat = bleu.compute(predictions=hypotheses, references=references)
    >>> round(flat["bleu"], 2)
    30.21
    >>> turns = [{"response": "i have train [train_id] that would suit you."}]  # PMUL3520's one system turn
    >>> result = bleu.compute(predictions={"pmul3520": turns}, styles=["mwz22"])
    >>> round(result["bleu"]["mwz22"], 6), [w["kind"] for w in result["warnings"]]
    (100.0, ['partial_test_set'])
"""
)


def _bleu(predictions, references, options):
    if hf_modules.is_flat(predictions):
        from mwz_metrics.multiwoz.bleu import flat_bleu

        scores, warnings = flat_bleu(predictions, references)
        return {**scores, "warnings": warnings}
    reference_files = None
    if isinstance(references, dict):
        reference_files, references = references, None
    result = hf_modules.run(
        predictions, references, bleu=True, success=False, richness=False, reference_files=reference_files, **options
    )
    return {
        "bleu": result["bleu"],
        "sacrebleu": result["signature"]["sacrebleu"],
        **{key: result[key] for key in ("coverage", "warnings", "signature")},
    }


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MwzBleu(evaluate.Metric):
    """MultiWOZ BLEU per delexicalization style, or flat BLEU of response lists."""

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Whole dialogues are scored at once; flat responses go through ``evaluate``'s batches."""
        if predictions is None or hf_modules.is_flat(predictions):
            if predictions is None:
                return evaluate.Metric.compute(self, **kwargs)
            return evaluate.Metric.compute(self, predictions=predictions, references=references, **kwargs)
        return hf_modules.direct_compute(self, predictions=predictions, references=references, **kwargs)

    def _info(self):
        return hf_modules.info(_DESCRIPTION, _KWARGS_DESCRIPTION, features=hf_modules.FLAT_FEATURES)

    # predictions, references and BLEU's options (mwz_metrics.settings.BleuConfig)
    _compute = hf_modules.config_compute(BleuConfig, _bleu)

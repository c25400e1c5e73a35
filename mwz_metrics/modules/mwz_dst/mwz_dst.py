"""Dialogue state tracking on MultiWOZ: joint accuracy and slot F1 (mwzeval's dst)."""

import evaluate

from mwz_metrics.multiwoz import hf_modules

_DESCRIPTION = """\
Joint goal accuracy (every slot of the turn's state present and matching) and
slot precision, recall and F1 of predicted dialogue states against the MultiWOZ
2.2 gold states, values compared by fuzzy partial ratio > 95, as mwzeval's
``dst`` option.
"""

_KWARGS_DESCRIPTION = (
    hf_modules.INPUTS
    + """
    Every turn must carry a ``state``.
Returns:
    ``dst``: ``joint_accuracy`` and ``slot_f1`` in percent (0-100),
    ``slot_precision`` and ``slot_recall`` (0-1); ``coverage``, ``warnings``,
    ``signature``.
Examples:
    >>> import mwz_metrics, evaluate
    >>> dst = evaluate.load("mwz_dst")
    >>> state = {"train": {"destination": "cambridge", "leaveat": "10:15", "departure": "broxbourne"}}
    >>> result = dst.compute(predictions={"pmul3520": [{"response": "", "state": state}]})
    >>> round(result["dst"]["joint_accuracy"], 6), round(result["dst"]["slot_f1"], 6)
    (100.0, 100.0)
"""
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MwzDst(evaluate.Metric):
    compute = hf_modules.direct_compute
    add = hf_modules.unsupported_add
    add_batch = hf_modules.unsupported_add

    def _info(self):
        return hf_modules.info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def _compute(self, *, predictions, references=None, chain="mwzeval"):
        result = hf_modules.run(
            predictions, references, bleu=False, success=False, richness=False, dst=True, chain=chain
        )
        return {key: result[key] for key in ("dst", "coverage", "warnings", "signature")}

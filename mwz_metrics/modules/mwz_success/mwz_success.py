"""Inform and Success rates of MultiWOZ responses (mwzeval, Nekvinda & Dusek 2021)."""

import evaluate

from mwz_metrics.multiwoz import hf_modules
from mwz_metrics.settings import SuccessConfig, described

_DESCRIPTION = """\
Inform: whether the venues a system offers match the user's goal; Success: Inform
and every requested attribute (phone, address, postcode, reference, train id) was
provided. Computed on the MultiWOZ test set exactly as mwzeval does, with the
system's predicted dialogue states (or the MultiWOZ 2.2 gold states when the
predictions have none, or when ``gold_states=True``; the result says which).
"""

_KWARGS_DESCRIPTION = (
    hf_modules.INPUTS
    + "\n"
    + described(SuccessConfig, "gold_states")
    + """    per_dialogue: also return each dialogue's inform/success and active domains.
    chain: the value-normalizer chain: ``mwzeval`` (mwzeval @7f19ee0, default) or
        ``mwzeval-2023`` (mwzeval @1d03eb4).
"""
    + described(SuccessConfig, "matching", "name_constraints", "active_domains", "optimistic")
    + """Returns:
    ``success``: ``{"inform": {domain: rate}, "success": {domain: rate}, ...}`` in
    percent (0-100), rounded to one decimal as mwzeval, with ``total``; ``exact``
    holds unrounded rates. Also ``coverage``, ``warnings`` and ``signature``.
Examples:
    >>> import mwz_metrics, evaluate
    >>> success = evaluate.load("mwz_success")
    >>> result = success.compute(predictions={"sng0073": [
    ...     {"response": "what time do you want to leave?", "state": {"taxi": {"departure": "saint john's college"}}},
    ...     {"response": "booked! a [taxi_type] will pick you up, contact number [taxi_phone].",
    ...      "state": {"taxi": {"departure": "saint john's college", "leaveAt": "17:15"}}}]})
    >>> result["success"]["inform"]["total"], result["success"]["success"]["total"]
    (100.0, 100.0)
    >>> [w["kind"] for w in result["warnings"]]  # 2 of its 4 turns, 1 of 1000 dialogues
    ['fewer_turns_than_reference', 'partial_test_set']
"""
)


def _shape(result, per_dialogue):
    return {key: result[key] for key in ("success", "coverage", "warnings", "signature")}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MwzSuccess(evaluate.Metric):
    compute = hf_modules.direct_compute
    add = hf_modules.unsupported_add
    add_batch = hf_modules.unsupported_add

    def _info(self):
        return hf_modules.info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    # predictions, references, per_dialogue, chain and Inform/Success's options (mwz_metrics.settings.SuccessConfig)
    _compute = hf_modules.success_compute(_shape)

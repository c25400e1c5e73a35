"""Inform rate of MultiWOZ responses (mwzeval, Nekvinda & Dusek 2021)."""

import evaluate

from mwz_metrics.multiwoz import hf_modules
from mwz_metrics.settings import SuccessConfig, described

_DESCRIPTION = """\
Inform: whether the venues a system offers (the database entries matching its
dialogue state whenever it mentions a venue name or train id) are all among those
matching the user's goal, per domain and for the whole dialogue, as mwzeval
computes it. ``mwz_success`` gives Inform together with Success.
"""

_KWARGS_DESCRIPTION = (
    hf_modules.INPUTS
    + "\n"
    + described(SuccessConfig, "gold_states")
    + """    per_dialogue: also return each dialogue's inform and active domains.
    chain: the value-normalizer chain: ``mwzeval`` (mwzeval @7f19ee0, default) or
        ``mwzeval-2023`` (mwzeval @1d03eb4).
"""
    + described(SuccessConfig, "matching", "name_constraints", "active_domains", "optimistic")
    + """Returns:
    ``inform``: ``{domain: rate}`` in percent (0-100), rounded to one decimal as
    mwzeval, with ``total``; ``exact``: unrounded; ``coverage``, ``warnings``,
    ``signature``.
Examples:
    >>> import mwz_metrics, evaluate
    >>> inform = evaluate.load("mwz_inform")
    >>> result = inform.compute(predictions={"sng0073": [
    ...     {"response": "a [taxi_type] will pick you up.", "state": {"taxi": {"leaveAt": "17:15"}}}]})
    >>> result["inform"]
    {'taxi': 100.0, 'total': 100.0}
"""
)


def _shape(result, per_dialogue):
    success = result["success"]
    out = {"inform": success["inform"], "exact": success["exact"]["inform"]}
    if per_dialogue:
        out["per_dialogue"] = {
            k: {"inform": v["inform"], "active_domains": v["active_domains"]}
            for k, v in success["per_dialogue"].items()
        }
    out.update({key: result[key] for key in ("coverage", "warnings", "signature")})
    return out


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MwzInform(evaluate.Metric):
    compute = hf_modules.direct_compute
    add = hf_modules.unsupported_add
    add_batch = hf_modules.unsupported_add

    def _info(self):
        return hf_modules.info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    # predictions, references, per_dialogue, chain and Inform/Success's options (mwz_metrics.settings.SuccessConfig)
    _compute = hf_modules.success_compute(_shape)

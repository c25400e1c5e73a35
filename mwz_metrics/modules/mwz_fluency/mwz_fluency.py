"""Sentence fluency (Cheng et al., 2022): each response's Sent-Score, a system's mean (lower is better)."""

import json

import datasets
import evaluate

from mwz_metrics.fluency.api import score_gold, score_predictions, shared_model
from mwz_plugins.errors import InputError

_CITATION = """\\
@inproceedings{cheng-etal-2022-multiwoz,
  title={Is {MultiWOZ} a Solved Task? An Interactive {TOD} Evaluation Framework with User Simulator},
  author={Cheng, Qinyuan and Li, Linyang and Quan, Guofeng and Gao, Feng and Mou, Xiaofeng and Qiu, Xipeng},
  booktitle={Findings of EMNLP 2022},
  year={2022}
}
"""

_DESCRIPTION = """\\
Sentence fluency: a response's Sent-Score is its mean token cross-entropy (nats per token) under a
language model of MultiWOZ 2.1 validation system turns (by default a 4-gram Kneser-Ney model counted
from them, no torch; any Hugging Face causal LM with `model=`). A system scores the mean over its
responses, with a bootstrap 95% interval over dialogues and per-domain means. Placeholders of every
style read alike. Lower is more fluent. See mwz_metrics/fluency/MODEL_CARD.md for the probes.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: mwzeval predictions, {dialogue id: [{"response": str, "active_domains"?: [str]}, ...]}.
    gold: score the MultiWOZ 2.1 test system turns instead (predictions left out).
    model: None (the default n-gram model) or a Hugging Face causal LM name or path (needs torch).
    explain: list this many least fluent responses (`least_fluent`).
Returns:
    dict with `fluency` (mean Sent-Score over responses), `ci95`, `responses`, `dialogues`,
    `per_domain`, `per_dialogue`, `per_response` and `signature`.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("mwz_fluency")
    >>> result = metric.compute(predictions={"sng0073": [{"response": "i have [value_count] trains for you ."}]})
    >>> result["responses"]
    1
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MwzFluency(evaluate.Metric):
    def _info(self):
        # One (id, turns) item per dialogue, as JSON text.
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2210.14529"],
        )

    def compute(self, *, predictions=None, gold=False, model=None, explain=0, **kwargs):
        """Score predictions or (``gold=True``) the test system turns; see the inputs description."""
        if gold:
            if predictions is not None:
                raise InputError("gold=True scores the test system turns: leave predictions out")
            return score_gold(model=shared_model(model), explain=explain)
        if predictions is None or not hasattr(predictions, "items"):
            raise InputError("give predictions as {dialogue id: [{'response': ...}, ...]}, or gold=True")
        if not predictions:
            raise InputError("predictions hold no dialogue")
        items = [json.dumps([name, turns]) for name, turns in predictions.items()]
        return super().compute(predictions=items, model=model, explain=explain, **kwargs)

    def _compute(self, predictions, model=None, explain=0):
        data = dict(json.loads(item) for item in predictions)
        return score_predictions(data, model=shared_model(model), explain=explain)

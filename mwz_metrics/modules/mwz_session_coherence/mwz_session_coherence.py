"""Session coherence of dialogues (Cheng et al., 2022): mean P(coherent) over adjacent turn pairs."""

import json

import datasets
import evaluate

from mwz_metrics.coherence.api import looks_like_sessions, score_gold, score_predictions, score_sessions
from mwz_plugins.errors import InputError

_CITATION = """\
@inproceedings{cheng-etal-2022-multiwoz,
  title={Is {MultiWOZ} a Solved Task? An Interactive {TOD} Evaluation Framework with User Simulator},
  author={Cheng, Qinyuan and Li, Linyang and Quan, Guofeng and Gao, Feng and Mou, Xiaofeng and Qiu, Xipeng},
  booktitle={Findings of EMNLP 2022},
  year={2022}
}
"""

_DESCRIPTION = """\
Session-level coherence (0-100): a cross-encoder (all-MiniLM-L6-v2's bottom layers reading both turns
together, with a small trained delta shipped with mwz-eval, see its MODEL_CARD.md) gives P(coherent) for every adjacent
pair of turns; a session scores the mean over its pairs. Predictions in mwzeval's format are scored in
the traditional setting (each predicted response between the gold user turns of the MultiWOZ 2.1
test set); full sessions are scored as given. Needs the `coherence` extra (torch, transformers).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: either mwzeval predictions, {dialogue id: [{"response": str, ...}, ...]} with one
        entry per system turn, or full sessions, {session id: [{"speaker": "user"|"system",
        "text": str}, ...]} (simulator or interactive evaluation).
    setting: "auto" (default: sessions when turns carry "speaker"), "traditional" or "sessions".
    gold: score the gold test sessions instead (predictions left out).
    delexicalized: for predictions and gold; None (default) detects placeholders in the predictions,
        and then the gold system turns are delexicalized too; gold alone defaults to False.
    with_gold: also score gold on the same dialogues in the same form (`gold_coherence`).
    on_mismatch: "error" (default) or "skip" dialogues whose predicted turn count differs from gold.
    explain: list this many least coherent pairs with their context (`least_coherent`).
Returns:
    dict with `coherence` (mean over all pairs), `coherence_per_session` (mean of session scores),
    `sessions` (id -> score), `n_sessions`, `n_pairs`, `ci95` (bootstrap over sessions),
    `per_domain` (traditional setting), `pair_probabilities` and `signature`; with `with_gold`
    also `gold_coherence` and `gold_minus_system` (paired bootstrap: difference, CI, p-value).
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("mwz_session_coherence")
    >>> sessions = {"a": [{"speaker": "user", "text": "i need a cheap hotel ."},
    ...                   {"speaker": "system", "text": "what area would you like ?"}]}
    >>> result = metric.compute(predictions=sessions)
    >>> result["n_pairs"]
    1
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MwzSessionCoherence(evaluate.Metric):
    def _info(self):
        # One (id, turns) item per dialogue, as JSON text: turns vary in shape.
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            reference_urls=["https://arxiv.org/abs/2210.14529"],
        )

    def compute(
        self,
        *,
        predictions=None,
        setting="auto",
        gold=False,
        delexicalized=None,
        with_gold=False,
        on_mismatch="error",
        explain=0,
        **kwargs,
    ):
        """Score predictions, sessions or (``gold=True``) the gold test sessions; see the inputs description."""
        if gold:
            if predictions is not None:
                raise InputError("gold=True scores the gold test sessions: leave predictions out")
            return score_gold(delexicalized=bool(delexicalized), explain=explain)
        if predictions is None:
            raise InputError("give predictions (mwzeval format or full sessions), or gold=True")
        if setting not in ("auto", "traditional", "sessions"):
            raise InputError(f"setting must be 'auto', 'traditional' or 'sessions', got {setting!r}")
        if not hasattr(predictions, "items"):
            raise InputError(f"predictions must map dialogue ids to turns, got {type(predictions).__name__}")
        if not predictions:
            raise InputError("predictions hold no dialogue")
        if setting == "auto":
            setting = "sessions" if looks_like_sessions(predictions) else "traditional"
        items = [json.dumps([name, turns]) for name, turns in predictions.items()]
        return super().compute(
            predictions=items,
            setting=setting,
            delexicalized=delexicalized,
            with_gold=with_gold,
            on_mismatch=on_mismatch,
            explain=explain,
            **kwargs,
        )

    def _compute(
        self, predictions, setting="traditional", delexicalized=None, with_gold=False, on_mismatch="error", explain=0
    ):
        data = dict(json.loads(item) for item in predictions)
        if setting == "sessions":
            return score_sessions(data, explain=explain)
        return score_predictions(
            data, delexicalized=delexicalized, with_gold=with_gold, on_mismatch=on_mismatch, explain=explain
        )

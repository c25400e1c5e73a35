"""DSTC9 Track 1 scores (detection, selection, generation), identical to the official scorer."""

import json

import datasets
import evaluate

from mwz_datasets.dstc9_files import load_split
from mwz_metrics.dstc9 import score, score_split

_CITATION = """\
@article{kim2020domain,
  title={Beyond Domain APIs: Task-oriented Conversational Modeling with Unstructured Knowledge Access},
  author={Seokhwan Kim and Mihail Eric and Karthik Gopalakrishnan and Behnam Hedayatnia and Yang Liu
          and Dilek Hakkani-Tur},
  journal={arXiv preprint arXiv:2006.03533},
  year={2020}
}
"""

_DESCRIPTION = """\
DSTC9 Track 1 scores exactly as the official scripts/scores.py computes them: detection
precision/recall/F1; selection MRR@5, R@1, R@5 and generation BLEU-1..4 (nltk 3.5), METEOR
(nltk 3.5, WordNet 3.0), ROUGE-1/2/L (rouge 1.0.0), summed over true-positive detections and
reported as F1 of (sum / predicted targets, sum / true targets). Also per `source` subset.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: the system output (an entry): one dict per instance with `target` and, when
        true, `knowledge` (domain, entity_id, doc_id) and `response`.
    references: the labels, one dict per instance; leave out to use the labels of `split`.
    split: "train", "val" or "test" (default "test" when `references` is left out): its labels,
        official output schema and knowledge snippets are used to validate and score.
    by_source: also score each `source` subset of the labels (default True).
Returns:
    dict with `detection`, `selection`, `generation` (the official shape), `by_source`,
    `counts`, `warnings` and `signature`.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("dstc9_track1")
    >>> labels = [{"target": True, "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_id": 2}],
    ...            "response": "Yes, the hotel has free parking."}, {"target": False}]
    >>> entry = [{"target": True, "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_id": 2}],
    ...           "response": "Yes, parking is free at the hotel."}, {"target": False}]
    >>> result = metric.compute(predictions=entry, references=labels)
    >>> result["detection"], result["selection"]["r@1"]
    ({'prec': 1.0, 'rec': 1.0, 'f1': 1.0}, 1.0)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DSTC9Track1(evaluate.Metric):
    def _info(self):
        # Instances travel as JSON text: their knowledge lists vary in shape.
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
            reference_urls=["https://github.com/alexa/alexa-with-dstc9-track1-dataset"],
        )

    def compute(self, *, predictions=None, references=None, split=None, by_source=True, **kwargs):
        """Score an entry (see the module's inputs description)."""
        if predictions is None:
            return super().compute(references=references, split=split, by_source=by_source, **kwargs)
        from_split = references is None
        if from_split:
            split = split or "test"
            references = load_split(split).labels
        return super().compute(
            predictions=[json.dumps(p) for p in predictions],
            references=[json.dumps(r) for r in references],
            split=split,
            by_source=by_source,
            from_split=from_split,
            **kwargs,
        )

    def _compute(self, predictions, references, split=None, by_source=True, from_split=False):
        entry = [json.loads(p) for p in predictions]
        if from_split:
            return score_split(entry, split, by_source=by_source)
        labels = [json.loads(r) for r in references]
        if split is not None:  # explicit labels, validated with the split's schema and knowledge
            data = load_split(split)
            return score(entry, labels, knowledge=data.knowledge, schema=data.schema, by_source=by_source)
        return score(entry, labels, by_source=by_source)

"""mwzeval's four metrics in the metric protocol (:mod:`mwz_metrics.metric`): ``success``, ``bleu``,
``richness`` and ``dst``, registered by the built-in plugin like any contributor's metric.

They form one group: asked together, one :class:`~.evaluator.Evaluator` pass reads and normalizes
the responses once and scores each (mwzeval computes them so), and they share that pass's
coverage, warnings and signature. Each gives its figures as results of their own (Inform and
Success; BLEU per style; richness's seven; joint accuracy and slot F1) with what each dialogue
contributes where a comparison asks for it (``settings["dialogue_scores"]``).

Options (``--metric success:matching=intersection``) override the command's settings: ``success``
takes the fields of :class:`~mwz_metrics.settings.SuccessConfig`, ``bleu`` those of
:class:`~mwz_metrics.settings.BleuConfig` (``styles=damd+mwz22``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.metric_types import Group, GroupScoring, MetricInputs, MetricResult, Presentation
from mwz_metrics.settings import BleuConfig, SuccessConfig, typed

logger = logging.getLogger(__name__)

RICHNESS_KEYS = ("entropy", "cond_entropy", "msttr", "avg_lengths", "num_unigrams", "num_bigrams", "num_trigrams")
DST_KEYS = ("joint_accuracy", "slot_f1")
PARTS = ("bleu", "success", "richness", "dst")  # mwzeval's sections, in its order


@dataclasses.dataclass(frozen=True)
class NoOptions:
    """A metric that takes no options."""


# Each metric's config: its options, declared once (mwz_metrics.settings).
_OPTIONS: dict[str, type] = {"success": SuccessConfig, "bleu": BleuConfig, "richness": NoOptions, "dst": NoOptions}
# What the evaluator takes from the settings: the metrics' options and these (the rest are the commands' own).
_EVALUATOR_SETTINGS = (
    *(f.name for config in (SuccessConfig, BleuConfig) for f in dataclasses.fields(config)),
    "chain",
    "reference_files",
    "per_dialogue",
    "bleu_per_dialogue",
    "delexicalize",
)


class MwzevalMetric:
    """One of mwzeval's metrics; the first of its group to score scores the group's others in the same
    pass (through the :class:`~mwz_metrics.metric.GroupScoring` its members receive)."""

    forks = True  # pure Python and numpy: a comparison may score systems in forked workers

    def __init__(self, name: str, options: Mapping[str, Any]) -> None:
        self.name = name
        self.options = dict(options)
        self.presentation = Presentation(lines=functools.partial(_lines_of, name))

    def score(self, inputs: MetricInputs, group: GroupScoring | None = None) -> MetricResult:
        """This metric's result: from the group's pass (made by the first member to score), or, without a
        group, from a pass of its own."""
        if group is None:
            group = Group("mwzeval", [self]).scoring()
        if self.name not in group.results:
            _score_group(group, inputs)
        return group.results[self.name]


def _make(name: str, options: Mapping[str, str]) -> MwzevalMetric:
    parsed: Any = typed(_OPTIONS[name], options, name)
    given = {f.name: getattr(parsed, f.name) for f in dataclasses.fields(parsed) if getattr(parsed, f.name) is not None}
    return MwzevalMetric(name, given)


def make_success(**options: str) -> MwzevalMetric:
    """The ``success`` metric: Inform and Success rates, per domain (mwzeval)."""
    return _make("success", options)


def make_bleu(**options: str) -> MwzevalMetric:
    """The ``bleu`` metric: BLEU of the normalized responses per delexicalization style (mwzeval)."""
    return _make("bleu", options)


def make_richness(**options: str) -> MwzevalMetric:
    """The ``richness`` metric: lexical richness of the responses (mwzeval)."""
    return _make("richness", options)


def make_dst(**options: str) -> MwzevalMetric:
    """The ``dst`` metric: joint accuracy and slot F1 of the predicted states (mwzeval)."""
    return _make("dst", options)


def _where() -> tuple[str, ...]:
    """Where the data comes from besides ``data_dir`` (a changed mirror or cache is another test set)."""
    from mwz_datasets import sources

    return (os.environ.get(sources.MIRROR_ENV, ""), os.environ.get(sources.CACHE_ENV, ""))


def _evaluator(cache: dict[str, Any], parts: Sequence[str], settings: Mapping[str, Any], data_dir: str | None) -> Any:
    """The :class:`~.evaluator.Evaluator` of ``parts`` under ``settings``, made once per ``cache``, on
    the test set ``settings["test_set"]`` gives (``mwz evaluate --oracle`` scores the one it built)
    or one test set per chain, styles and data source."""
    from mwz_metrics.multiwoz.evaluator import Evaluator
    from mwz_metrics.multiwoz.testset import TestSet

    options = {k: settings[k] for k in _EVALUATOR_SETTINGS if settings.get(k) is not None}
    where = [str(data_dir) if data_dir else None, _where(), id(settings.get("test_set"))]
    key = json.dumps([sorted(parts), options, where], sort_keys=True, default=str)
    if key not in cache:
        chain, styles = options.get("chain", "mwzeval"), options.get("styles")
        shared = settings.get("test_set")
        if shared is None:
            test_key = json.dumps(["test set", chain, styles, where], default=str)
            if test_key not in cache:
                cache[test_key] = TestSet(chain=chain, styles=styles, data_dir=data_dir)
            shared = cache[test_key]
        flags: dict[str, Any] = {part: part in parts for part in PARTS}
        cache[key] = Evaluator(**flags, testset=shared, data_dir=data_dir, **options)
    return cache[key]


def _score_group(group: GroupScoring, inputs: MetricInputs) -> None:
    """One evaluator pass over ``inputs`` for every metric of the group asked, each its own result; the
    evaluators and test sets stay in the group's cache as long as the command holds the metrics (every
    system of a comparison), so the references and memoized queries stay warm."""
    metrics = [m for m in group.members if isinstance(m, MwzevalMetric)]
    settings = inputs.settings.given()
    for metric in metrics:
        settings.update(metric.options)
    if settings.get("styles") is not None:
        settings["styles"] = list(settings["styles"])
    parts = [part for part in PARTS if part in {m.name for m in metrics}]
    scorer = _evaluator(group.cache, parts, settings, inputs.data_dir)
    predictions: Any = inputs.predictions if inputs.predictions is not None else inputs.source
    if predictions is None:
        raise InputError("no predictions to score")
    truth = inputs.truth(scorer.testset) if callable(inputs.truth) else inputs.truth
    result = scorer.evaluate(predictions, sessions=truth)
    logger.info("mwzeval's %s: %s", "+".join(parts), ", ".join(f"{k} {v:.2f}s" for k, v in scorer.timings.items()))
    statistics = _bleu_statistics(scorer) if "bleu" in parts and settings.get("dialogue_scores") else {}
    group.shared = result
    group.responses = scorer.last_delexicalized  # the other metrics read the same responses
    for metric in metrics:
        group.results[metric.name] = _RESULTS[metric.name](result, statistics)


def _lines_of(name: str, result: MetricResult) -> list[str]:
    return _lines(name, result.report)


def _lines(name: str, section: Mapping[str, Any]) -> list[str]:
    """A section of ``mwz evaluate``'s table, as mwzeval's own script prints it."""
    lines = [f"====== {name.upper()} ======"]
    if name == "success":
        domains = sorted(set(section["inform"]) - {"total"}) + ["total"]
        lines.append(f"{'':15}{'inform':>10}{'success':>10}")
        for domain in domains:
            lines.append(f"{domain:15}{section['inform'].get(domain, 0):>10}{section['success'].get(domain, 0):>10}")
        lines.append(f"(states: {section['states']}; active domains: {section['active_domains']})")
    else:
        for key, value in section.items():
            shown = f"{value:.4f}" if isinstance(value, float) else value
            lines.append(f"{key:15}{shown}")
    return [*lines, ""]


def _success(result: Mapping[str, Any], _statistics: Mapping) -> MetricResult:
    section = result["success"]
    outcomes = section.get("per_dialogue") or {}
    if outcomes:  # numpy (through the bootstrap) only where each dialogue's contribution is asked for
        from mwz_metrics import bootstrap
    figures = []
    for name in ("inform", "success"):
        # counted as mwzeval's rates count (success_lib.aggregate): a dialogue counts when either
        # dict has a "total", and a missing outcome is a failure
        counted = {
            k: float(o[name].get("total", 0)) if "total" in o["inform"] or "total" in o["success"] else None
            for k, o in outcomes.items()
        }
        figures.append(
            MetricResult(
                name,
                section[name].get("total"),
                scores=bootstrap.rates(counted) if outcomes else None,
                per_domain=dict(section[name]),
            )
        )
    columns: dict[str, dict[str, Any]] = {}
    if outcomes:
        columns = {
            "inform": {k: o["inform"].get("total", "") for k, o in outcomes.items()},
            "success": {k: o["success"].get("total", "") for k, o in outcomes.items()},
            "active_domains": {
                k: " ".join(sorted({d for t in o["active_domains"] for d in t})) for k, o in outcomes.items()
            },
        }
    return MetricResult("success", section["success"].get("total"), report=section, figures=figures, columns=columns)


def _bleu(result: Mapping[str, Any], statistics: Mapping[str, Mapping[str, list[int]]]) -> MetricResult:
    from mwz_metrics import bootstrap

    by_domain = (result.get("bleu_details") or {}).get("per_domain") or {}
    figures = [
        MetricResult(
            f"bleu:{style}",
            value,
            scores=bootstrap.bleu_scores(statistics[style], bleu_of_statistics) if style in statistics else None,
            per_domain=dict(by_domain.get(style, {})),
        )
        for style, value in result["bleu"].items()
    ]
    columns = {
        f"bleu:{style}": {k: bleu_of_statistics(stats) for k, stats in by_dialogue.items()}
        for style, by_dialogue in statistics.items()
    }
    return MetricResult("bleu", None, report=result["bleu"], figures=figures, columns=columns)


def _keyed(name: str, keys: Sequence[str]) -> Callable[[Mapping[str, Any], Mapping], MetricResult]:
    def build(result: Mapping[str, Any], _statistics: Mapping) -> MetricResult:
        section = result[name]
        figures = [MetricResult(f"{name}:{key}", section[key]) for key in keys]
        return MetricResult(name, None, report=section, figures=figures)

    return build


_RESULTS: dict[str, Callable[[Mapping[str, Any], Mapping], MetricResult]] = {
    "success": _success,
    "bleu": _bleu,
    "richness": _keyed("richness", RICHNESS_KEYS),
    "dst": _keyed("dst", DST_KEYS),
}


def bleu_of_statistics(stats: list[int]) -> float:
    """BLEU of summed sacrebleu statistics (the process's scorer: the same for every style)."""
    from mwz_metrics.multiwoz.bleu import score_of, scorer

    return score_of(scorer(), [stats])


def _bleu_statistics(scorer: Any) -> dict[str, dict[str, list[int]]]:
    """Per style, each dialogue's summed sacrebleu statistics in the last evaluation."""
    import numpy as np

    from mwz_metrics.multiwoz.bleu import segment_statistics

    hypotheses, references = scorer.last_bleu_inputs
    order = list(hypotheses)
    flat_hyps = [h for key in order for h in hypotheses[key]]
    out = {}
    for style, per_dialogue in references.items():
        flat_refs = [r for key in order for r in per_dialogue[key][: len(hypotheses[key])]]
        _scorer, segments = segment_statistics(flat_refs, flat_hyps)
        matrix = np.asarray(segments, dtype=np.int64)
        # per-dialogue sums: cumulative sums differenced at the dialogue boundaries
        ends = np.cumsum([len(hypotheses[key]) for key in order])
        cumulative = np.vstack([np.zeros((1, matrix.shape[1]), dtype=np.int64), np.cumsum(matrix, axis=0)])
        sums = cumulative[ends] - cumulative[np.concatenate([[0], ends[:-1]])]
        out[style] = {key: [int(x) for x in row] for key, row in zip(order, sums)}
    return out

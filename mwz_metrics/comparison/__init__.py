"""Compare systems as papers do: one process, shared references, significance, tables, a plot.

>>> from mwz_metrics.comparison import compare
>>> table = compare({"ubar": "ubar.json", "mttod": "mttod.json"}, baseline="ubar")  # doctest: +SKIP
>>> table.rows[0]  # doctest: +SKIP
{'system': 'ubar', 'metric': 'inform', 'domain': 'total', 'value': 83.4, ...}

Every system is scored by one :class:`~mwz_metrics.multiwoz.evaluator.Evaluator`, so the
references, goals, database and memoized queries are loaded once; each system's numbers are
exactly those of ``mwz evaluate`` with the same options. Inform, Success and BLEU get a 95%
confidence interval from a paired bootstrap over dialogues (:mod:`.bootstrap`) and, against a
baseline, a p-value.
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mwz_metrics.comparison import bootstrap
from mwz_metrics.multiwoz.inputs import InputError
from mwz_plugins.progress import progress

logger = logging.getLogger(__name__)

RICHNESS_KEYS = ("entropy", "cond_entropy", "msttr", "avg_lengths", "num_unigrams", "num_bigrams", "num_trigrams")

__all__ = ["Comparison", "compare", "published_systems", "resolve_inputs"]


@dataclasses.dataclass
class Comparison:
    """A tidy table: one row per system, metric and domain, with intervals and p-values."""

    systems: list[str]
    rows: list[dict[str, Any]]
    signature: dict[str, Any]
    baseline: str | None = None
    per_dialogue: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    results: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict, repr=False)
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)

    def value(self, system: str, metric: str, domain: str = "total") -> Any:
        """The value of one cell (KeyError when absent)."""
        for row in self.rows:
            if (row["system"], row["metric"], row["domain"]) == (system, metric, domain):
                return row["value"]
        raise KeyError((system, metric, domain))

    def columns(self) -> list[str]:
        """The metrics of the wide table (totals), in display order."""
        seen: list[str] = []
        for row in self.rows:
            if row["domain"] == "total" and row["metric"] not in seen:
                seen.append(row["metric"])
        return seen

    def render(self, fmt: str = "table") -> str:
        """The comparison as text: ``table``, ``markdown``, ``latex``, ``csv``, ``json`` or ``html``."""
        from mwz_metrics.comparison import formats

        return formats.render(self, fmt)

    def as_json(self) -> dict[str, Any]:
        """JSON form: systems, rows, baseline, bootstrap settings and the signature."""
        return {
            "systems": self.systems,
            "baseline": self.baseline,
            "bootstrap": self.settings,
            "rows": self.rows,
            "signature": self.signature,
        }


def published_systems(data_dir: str | None = None) -> dict[str, Path]:
    """mwzeval's published predictions (pinned, verified; ``MWZ_MIRROR`` and the cache apply)."""
    from mwz_datasets import catalog, sources

    pinned = catalog.published_predictions()
    resolved = sources.resolve(list(pinned.values()), data_dir=data_dir)
    return {system: resolved[source.path].path for system, source in pinned.items()}


def resolve_inputs(specs: list[str]) -> dict[str, Path]:
    """``name=path``, a file (named by its stem) or a folder (every ``*.json`` predictions file and
    ``*.jsonl`` session file of ``mwz interact`` in it) -> name: path."""
    systems: dict[str, Path] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if sep and name and not Path(spec).exists():
            paths = {name: Path(path)}
        else:
            target = Path(spec)
            if target.is_dir():
                found = sorted([*target.glob("*.json"), *target.glob("*.jsonl")])
                paths = {p.stem: p for p in found}
                if not paths:
                    raise InputError(f"{target}: no *.json predictions (or *.jsonl sessions) in this folder")
            else:
                paths = {target.stem: target}
        for system, file in paths.items():
            if not file.is_file():
                raise InputError(f"{file}: no such predictions file (system {system})")
            if system in systems:
                raise InputError(f"system name {system!r} given twice ({systems[system]} and {file}); use name=path")
            systems[system] = file
    return systems


_WORKER: dict[str, Any] = {}  # the evaluator a forked worker inherits


def _score_one(evaluator: Any, name: str, predictions: Any, bleu: bool) -> tuple[str, tuple[dict, dict, list]]:
    """One system's result, its per-dialogue BLEU statistics per style and its dialogue keys."""
    logger.info("scoring %s", name)
    try:
        result = evaluator.evaluate(str(predictions) if isinstance(predictions, Path) else predictions)
    except InputError as error:
        raise InputError(f"system {name}: {error}") from None
    by_style: dict[str, dict[str, list[int]]] = {}
    keys: list[str] = []
    if bleu:
        hypotheses, _ = evaluator.last_bleu_inputs
        keys = list(hypotheses)
        by_style = {style: by_dialogue for style, (by_dialogue, _score) in _bleu_statistics(evaluator).items()}
    return name, (result, by_style, keys)


def _worker(item: tuple[str, Any, bool]) -> tuple[str, tuple[dict, dict, list]]:
    name, predictions, bleu = item
    return _score_one(_WORKER["evaluator"], name, predictions, bleu)


def default_jobs(systems: int) -> int:
    """Worker processes for ``systems`` systems: one per CPU, at most one per system after the first."""
    return max(1, min(os.cpu_count() or 1, systems - 1))


def _score_all(evaluator: Any, systems: Mapping[str, Any], *, bleu: bool, jobs: int | None):
    """(name, scored) for every system, in order. The first system is scored here, which loads the
    references, goals, database and BLEU reference statistics once; with ``jobs`` > 1 the others are
    scored by forked workers that inherit all of it (results are the same numbers as in one process)."""
    items = list(systems.items())
    if not items:
        return
    yield _score_one(evaluator, items[0][0], items[0][1], bleu)
    rest = [(name, predictions, bleu) for name, predictions in items[1:]]
    jobs = default_jobs(len(items)) if jobs is None else jobs
    if jobs <= 1 or len(rest) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        for item in rest:
            yield _score_one(evaluator, *item)
        return
    _WORKER["evaluator"] = evaluator
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(rest))) as pool:
            yield from pool.imap(_worker, rest)
    finally:
        _WORKER.clear()


def _bleu_of_statistics(stats: list[int]) -> float:
    """BLEU of summed sacrebleu statistics (the process's scorer: the same for every style)."""
    from mwz_metrics.multiwoz.bleu import score_of, scorer

    return score_of(scorer(), [stats])


def _bleu_statistics(evaluator: Any) -> dict[str, tuple[dict[str, list[int]], Any]]:
    """Per-dialogue sacrebleu statistics of the last evaluation and the score function, per style."""
    from mwz_metrics.multiwoz.bleu import score_of, segment_statistics

    hypotheses, references = evaluator.last_bleu_inputs
    order = list(hypotheses)
    flat_hyps = [h for key in order for h in hypotheses[key]]
    out = {}
    for style, per_dialogue in references.items():
        flat_refs = [r for key in order for r in per_dialogue[key][: len(hypotheses[key])]]
        scorer, segments = segment_statistics(flat_refs, flat_hyps)
        matrix = np.asarray(segments, dtype=np.int64)
        # per-dialogue sums: cumulative sums differenced at the dialogue boundaries
        ends = np.cumsum([len(hypotheses[key]) for key in order])
        cumulative = np.vstack([np.zeros((1, matrix.shape[1]), dtype=np.int64), np.cumsum(matrix, axis=0)])
        sums = cumulative[ends] - cumulative[np.concatenate([[0], ends[:-1]])]
        by_dialogue = {key: [int(x) for x in row] for key, row in zip(order, sums)}
        out[style] = (by_dialogue, lambda stats, s=scorer: score_of(s, [stats]))
    return out


def _coherence(systems: Mapping[str, Any], data_dir: str | None) -> dict[str, dict[str, Any]]:
    """Session coherence of every system (traditional setting, mismatched dialogues skipped), one
    model and pair memo for all; needs the ``coherence`` extra."""
    import json

    from mwz_metrics.coherence import api

    scorer = api.shared_scorer()
    out = {}
    for name, predictions in progress(systems.items(), "coherence", total=len(systems)):
        if isinstance(predictions, (str, Path)):
            with open(predictions, encoding="utf-8") as f:
                predictions = json.load(f)
        try:
            out[name] = api.score_predictions(
                predictions, scorer=scorer, on_mismatch="skip", data_dir=data_dir, description=f"coherence ({name})"
            )
        except ValueError as error:
            raise InputError(f"system {name}: {error}") from None
    return out


def _coherence_samples(
    scored: Mapping[str, Mapping[str, Any]], resamples: int, seed: int
) -> tuple[dict[tuple[str, str], np.ndarray], int]:
    """Bootstrap samples of each system's coherence over the sessions every system has (its own
    resamples: a system may skip a dialogue for a turn-count mismatch that others score)."""
    from mwz_metrics.coherence.report import scorer_of

    per_pair = {name: result["pair_probabilities"] for name, result in scored.items()}
    common = sorted(set.intersection(*({k for k, v in p.items() if len(v)} for p in per_pair.values())))
    if not common or resamples <= 0:
        return {}, len(common)
    weights = bootstrap.resample_weights(len(common), resamples, seed)
    return {(name, "coherence"): scorer_of(pairs, common)(weights) for name, pairs in per_pair.items()}, len(common)


@dataclasses.dataclass
class _Static:
    """What scoring the static (predictions-file) systems gives the comparison."""

    results: dict[str, dict[str, Any]]
    statistics: dict[str, dict[str, tuple[dict[str, list[int]], Any]]]
    keys_of: dict[str, list[str]]


def _split_interactive(systems: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(static, interactive): session files of ``mwz interact`` apart from predictions."""
    from mwz_metrics.interactive.sessions import looks_like_session_file

    interactive = {n: p for n, p in systems.items() if isinstance(p, (str, Path)) and looks_like_session_file(p)}
    return {n: p for n, p in systems.items() if n not in interactive}, interactive


def _score_static(
    systems: Mapping[str, Any], evaluator: Any, *, bleu: bool, success: bool, jobs: int | None
) -> _Static:
    """Every static system's result, per-dialogue BLEU statistics and scored dialogues."""
    results: dict[str, dict[str, Any]] = {}
    statistics: dict[str, dict[str, tuple[dict[str, list[int]], Any]]] = {}
    keys_of: dict[str, list[str]] = {}
    for name, (result, by_style, keys) in progress(
        _score_all(evaluator, systems, bleu=bleu, jobs=jobs), "scoring systems", total=len(systems)
    ):
        results[name] = result
        keys_of[name] = list(result["success"]["per_dialogue"]) if success else []
        if bleu:
            keys_of[name] = keys_of[name] or keys
            statistics[name] = {style: (by_dialogue, _bleu_of_statistics) for style, by_dialogue in by_style.items()}
    return _Static(results, statistics, keys_of)


def _static_samples(
    static: _Static, names: list[str], common: list[str], *, success: bool, bleu: bool, resamples: int, seed: int
) -> dict[tuple[str, str], Any]:
    """Bootstrap samples of each static system's Inform, Success and BLEU over ``common`` dialogues."""
    if not common or resamples <= 0:
        return {}
    scorers: dict[tuple[str, str], bootstrap.ScoreOf] = {}
    for name in names:
        result = static.results[name]
        if success:
            outcomes = result["success"]["per_dialogue"]
            for metric in ("inform", "success"):
                # counted as mwzeval's rates count (success_lib.aggregate): a dialogue counts when
                # either dict has a "total", and a missing outcome is a failure
                values = [
                    float(outcomes[k][metric].get("total", 0))
                    if "total" in outcomes[k]["inform"] or "total" in outcomes[k]["success"]
                    else float("nan")
                    for k in common
                ]
                scorers[(name, metric)] = bootstrap.rate(values)
        if bleu:
            for style, (by_dialogue, compute) in static.statistics[name].items():
                matrix = np.array([by_dialogue[k] for k in common], dtype=np.int64)
                scorers[(name, f"bleu:{style}")] = bootstrap.bleu(matrix, compute)
    weights = bootstrap.resample_weights(len(common), resamples, seed)
    return {key: scorer(weights) for key, scorer in scorers.items()}


def _static_rows(
    static: _Static,
    coherent: Mapping[str, Mapping[str, Any]],
    samples: Mapping[tuple[str, str], Any],
    names: list[str],
    baseline: str | None,
    *,
    success: bool,
    bleu: bool,
    richness: bool,
    dst: bool,
) -> list[dict[str, Any]]:
    """The tidy rows of the static systems: value, interval and p-value against the baseline."""
    rows: list[dict[str, Any]] = []
    for name in names:
        result = static.results[name]

        def add(metric: str, domain: str, value: Any, name: str = name) -> None:
            row: dict[str, Any] = {"system": name, "metric": metric, "domain": domain, "value": value}
            if domain == "total" and (name, metric) in samples:
                row["ci_low"], row["ci_high"] = bootstrap.confidence_interval(samples[(name, metric)])
                if baseline is not None and name != baseline and (baseline, metric) in samples:
                    source = coherent if metric == "coherence" else static.results
                    observed = _exact(source[name], metric) - _exact(source[baseline], metric)
                    row["p_value"] = bootstrap.p_value(samples[(name, metric)], samples[(baseline, metric)], observed)
            rows.append(row)

        if success:
            for metric in ("inform", "success"):
                for domain, value in result["success"][metric].items():
                    add(metric, domain, value)
        if bleu:
            for style, value in result["bleu"].items():
                add(f"bleu:{style}", "total", value)
                for domain, by_domain in result.get("bleu_details", {}).get("per_domain", {}).get(style, {}).items():
                    add(f"bleu:{style}", domain, by_domain)
        if richness:
            for key in RICHNESS_KEYS:
                add(f"richness:{key}", "total", result["richness"][key])
        if dst:
            for key in ("joint_accuracy", "slot_f1"):
                add(f"dst:{key}", "total", result["dst"][key])
        if coherent:
            add("coherence", "total", coherent[name]["coherence"])
            for domain, block in coherent[name].get("per_domain", {}).items():
                add("coherence", domain, block["coherence"])
    return rows


def _dialogue_rows(
    static: _Static, coherent: Mapping[str, Mapping[str, Any]], names: list[str], *, success: bool, bleu: bool
) -> list[dict[str, Any]]:
    """Per static system and dialogue: Inform, Success, active domains, BLEU per style, coherence."""
    dialogue_rows: list[dict[str, Any]] = []
    for name in names:
        result = static.results[name]
        outcomes = result["success"]["per_dialogue"] if success else {}
        for key in sorted(static.keys_of[name]):
            row: dict[str, Any] = {"system": name, "dialogue": key}
            if success:
                row["inform"] = outcomes[key]["inform"].get("total", "")
                row["success"] = outcomes[key]["success"].get("total", "")
                row["active_domains"] = " ".join(sorted({d for t in outcomes[key]["active_domains"] for d in t}))
            if bleu:
                for style, (by_dialogue, compute) in static.statistics[name].items():
                    row[f"bleu:{style}"] = compute(by_dialogue[key])
            if coherent:
                row["coherence"] = coherent[name]["sessions"].get(key, "")
            dialogue_rows.append(row)
    return dialogue_rows


# Interactive figures shown beside the static ones (their own sessions' intervals).
INTERACTIVE_KEYS = ("turns", "complete", "book_rate", "inform_f1")


def _score_interactive(
    systems: Mapping[str, Any],
    *,
    richness: bool,
    coherence: bool,
    resamples: int,
    seed: int,
    data_dir: str | None,
    fluency: bool = False,
    fluency_model: str | None = None,
) -> dict[str, dict[str, Any]]:
    """Each session file scored as ``mwz interact`` scores it (one shared context)."""
    from mwz_metrics.interactive import api
    from mwz_metrics.interactive.context import InteractiveContext

    context = InteractiveContext(data_dir=data_dir)
    out = {}
    for name, path in progress(systems.items(), "scoring interactive runs", total=len(systems)):
        try:
            config, sessions = api.load_session_file(path)
            out[name] = api.score(
                sessions,
                config,
                context=context,
                richness=richness,
                coherence=coherence,
                resamples=resamples,
                seed=seed,
            )
        except ValueError as error:
            raise InputError(f"system {name}: {error}") from None
        out[name]["run"] = config
    return out


def _fluency(
    systems: Mapping[str, Any],
    model_name: str | None,
    baseline: str | None,
    *,
    resamples: int,
    seed: int,
    data_dir: str | None,
) -> dict[str, dict[str, Any]]:
    """Sent-Score of every static system (one model): its rows, interval over its own dialogues and,
    against the baseline, a paired-bootstrap p-value over the dialogues both have."""
    from mwz_metrics.fluency import api

    model = api.shared_model(model_name, data_dir=data_dir)
    scored: dict[str, dict[str, Any]] = {}
    for name, predictions in progress(systems.items(), "fluency", total=len(systems)):
        source = str(predictions) if isinstance(predictions, Path) else predictions
        try:
            scored[name] = api.score_predictions(source, model=model, resamples=resamples, seed=seed, data_dir=data_dir)
        except ValueError as error:
            raise InputError(f"system {name}: {error}") from None
    out = {}
    for name, result in scored.items():
        row: dict[str, Any] = {"system": name, "metric": "fluency", "domain": "total", "value": result["fluency"]}
        if result["ci95"]:
            row["ci_low"], row["ci_high"] = result["ci95"]
        if baseline is not None and baseline in scored and name != baseline and resamples > 0:
            row["p_value"] = _paired_fluency_p(
                result["per_response"], scored[baseline]["per_response"], resamples, seed
            )
        rows = [row] + [
            {"system": name, "metric": "fluency", "domain": d, "value": v["fluency"]}
            for d, v in (result.get("per_domain") or {}).items()
        ]
        out[name] = {"rows": rows, "signature": result["signature"], "fluency": result["fluency"]}
    return out


def _paired_fluency_p(
    system: Mapping[str, list[float]], baseline: Mapping[str, list[float]], resamples: int, seed: int
) -> float:
    """sacrebleu's paired-bootstrap p-value of the Sent-Score difference over the dialogues both have."""
    common = sorted(k for k in system if k in baseline and system[k] and baseline[k])
    if not common:
        return float("nan")
    weights = bootstrap.resample_weights(len(common), resamples, seed)

    def samples(scores: Mapping[str, list[float]]) -> tuple[np.ndarray, float]:
        sums = np.array([sum(scores[k]) for k in common])
        counts = np.array([len(scores[k]) for k in common], dtype=np.float64)
        return (weights @ sums) / np.maximum(weights @ counts, 1.0), float(sums.sum() / counts.sum())

    (system_samples, system_value), (baseline_samples, baseline_value) = samples(system), samples(baseline)
    return bootstrap.p_value(system_samples, baseline_samples, system_value - baseline_value)


def _interactive_rows(
    results: Mapping[str, Mapping[str, Any]], *, success: bool, richness: bool
) -> list[dict[str, Any]]:
    """Rows of interactive runs: Inform/Success by domain, the interactive figures, richness, coherence."""
    rows: list[dict[str, Any]] = []
    for name, result in results.items():
        ci = result.get("ci95", {})

        def add(metric: str, domain: str, value: Any, interval: Any = None, name: str = name) -> None:
            row: dict[str, Any] = {"system": name, "metric": metric, "domain": domain, "value": value}
            if interval:
                row["ci_low"], row["ci_high"] = interval
            rows.append(row)

        if success:
            for metric in ("inform", "success"):
                for domain, value in result[f"{metric}_by_domain"].items():
                    add(metric, domain, value, ci.get(metric) if domain == "total" else None)
        for key in INTERACTIVE_KEYS:
            if result.get(key) is not None:
                add(f"interactive:{key}", "total", result[key], ci.get(key))
        if richness and result.get("richness"):
            for key in RICHNESS_KEYS:
                add(f"richness:{key}", "total", result["richness"][key])
        if result.get("coherence") is not None:
            interval = ci.get("coherence")
            add("coherence", "total", result["coherence"], interval and [interval[0], interval[1]])
        if result.get("fluency") is not None:
            add("fluency", "total", result["fluency"], ci.get("fluency"))
    return rows


def compare(
    systems: Mapping[str, str | Path | Mapping[str, Any]],
    *,
    bleu: bool = True,
    success: bool = True,
    richness: bool = True,
    dst: bool = False,
    coherence: bool = False,
    fluency: bool = False,
    fluency_model: str | None = None,
    baseline: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    per_dialogue: bool = False,
    evaluator_options: Mapping[str, Any] | None = None,
    jobs: int | None = None,
) -> Comparison:
    """Score every system with one shared evaluator and compare them (see the module docstring).

    ``systems``: name -> predictions (a path or mwzeval's mapping), or the session file of an
    ``mwz interact`` run (its sessions scored as that command scores them, with intervals over
    its own sessions and no p-value). ``evaluator_options``: what
    :class:`~mwz_metrics.multiwoz.evaluator.Evaluator` takes beside the metrics (``styles``,
    ``chain``, ``reference_files``, Success variants, ``data_dir``...). ``jobs``: worker processes
    (default one per CPU; 1 scores everything in this process); the numbers do not depend on it.
    ``coherence``: also session coherence (``mwz coherence``'s numbers, with its own bootstrap over
    the sessions every system has; needs the ``coherence`` extra). ``fluency``: also Sent-Score
    (``mwz fluency``'s numbers, the default model or ``fluency_model``; each system's interval over
    its own dialogues, p-values over the dialogues it shares with the baseline).
    """
    from mwz_metrics.multiwoz.evaluator import Evaluator

    if not systems:
        raise InputError("nothing to compare: give at least one system")
    if baseline is not None and baseline not in systems:
        raise InputError(f"baseline {baseline!r} is not among the systems {sorted(systems)}")
    static_systems, interactive_systems = _split_interactive(systems)
    if baseline is not None and baseline in interactive_systems:
        raise InputError(f"baseline {baseline!r} is an interactive run: p-values pair test dialogues of static systems")
    options = dict(evaluator_options or {})
    names = list(static_systems)
    static = _Static({}, {}, {})
    coherent: dict[str, dict[str, Any]] = {}
    samples: dict[tuple[str, str], Any] = {}
    common: list[str] = []
    coherence_dialogues = 0
    if static_systems:
        evaluator = Evaluator(
            bleu=bleu,
            success=success,
            richness=richness,
            dst=dst,
            per_dialogue=True,
            bleu_per_dialogue=False,  # per-dialogue BLEU comes from the segment statistics
            **options,
        )
        static = _score_static(static_systems, evaluator, bleu=bleu, success=success, jobs=jobs)
        coherent = _coherence(static_systems, options.get("data_dir")) if coherence else {}
        if any(static.keys_of.values()):
            common = sorted(set.intersection(*(set(static.keys_of[n]) for n in names)))
        samples = _static_samples(static, names, common, success=success, bleu=bleu, resamples=resamples, seed=seed)
        if coherent:
            coherence_samples, coherence_dialogues = _coherence_samples(coherent, resamples, seed)
            samples.update(coherence_samples)
    interactive = (
        _score_interactive(
            interactive_systems,
            richness=richness,
            coherence=coherence,
            fluency=fluency or bool(fluency_model),
            fluency_model=fluency_model,
            resamples=resamples,
            seed=seed,
            data_dir=options.get("data_dir"),
        )
        if interactive_systems
        else {}
    )
    fluent = (
        _fluency(
            static_systems, fluency_model, baseline, resamples=resamples, seed=seed, data_dir=options.get("data_dir")
        )
        if (fluency or fluency_model) and static_systems
        else {}
    )
    flags = {"success": success, "bleu": bleu}
    rows = _static_rows(static, coherent, samples, names, baseline, richness=richness, dst=dst, **flags)
    rows += _interactive_rows(interactive, success=success, richness=richness)
    rows += [row for result in fluent.values() for row in result["rows"]]
    rows.sort(key=lambda row: list(systems).index(row["system"]))  # the order the user gave (stable)
    return Comparison(
        systems=list(systems),
        rows=rows,
        signature=_combined_signature(static.results, coherent, interactive, fluent),
        baseline=baseline,
        per_dialogue=_dialogue_rows(static, coherent, names, **flags) if per_dialogue else [],
        results={**static.results, **interactive},
        settings={
            "resamples": resamples,
            "seed": seed,
            "dialogues": len(common),
            "level": 0.95,
            **({"coherence_dialogues": coherence_dialogues} if coherent else {}),
            **({"interactive": {n: _run_label(r["run"]) for n, r in interactive.items()}} if interactive else {}),
        },
    )


def _run_label(config: Mapping[str, Any]) -> str:
    """``agenda -> oracle`` for an interactive run."""
    system = config.get("system") or {}
    name = system.get("name") or system.get("file") or system.get("url") or system.get("factory")
    return f"{(config.get('simulator') or {}).get('name')} -> {name}"


def _combined_signature(
    results: Mapping[str, Mapping[str, Any]],
    coherent: Mapping[str, Mapping[str, Any]],
    interactive: Mapping[str, Mapping[str, Any]],
    fluent: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The signature of the table: one line when every system shares it, else every distinct line."""
    lines = {r["signature"]["line"] for r in results.values()}
    lines |= {r["signature"]["line"] for r in list(coherent.values())[:1]}  # one model for all systems
    lines |= {r["signature"]["line"] for r in list((fluent or {}).values())[:1]}
    lines |= {r["signature"]["line"] for r in interactive.values()}
    first = next(iter(results.values()), None) or next(iter(interactive.values()))
    signature = dict(first["signature"])
    if len(lines) > 1:  # systems with and without states, say: name every line
        signature["line"] = " ; ".join(sorted(lines))
    return signature


def _exact(result: Mapping[str, Any], metric: str) -> float:
    """The unrounded full-sample value the bootstrap resamples around."""
    if metric in ("inform", "success"):
        return float(result["success"]["exact"][metric]["total"])
    if metric == "coherence":
        return float(result["coherence"])
    return float(result["bleu"][metric.split(":", 1)[1]])

"""Compare systems as papers do: one process, shared references, significance, tables, a plot.

>>> from mwz_metrics.comparison import compare
>>> table = compare({"ubar": "ubar.json", "mttod": "mttod.json"}, baseline="ubar")  # doctest: +SKIP
>>> table.rows[0]  # doctest: +SKIP
{'system': 'ubar', 'metric': 'inform', 'domain': 'total', 'value': 83.4, ...}

Every system is scored by one :class:`~mwz_metrics.multiwoz.evaluator.Evaluator`, so the
references, goals, database and memoized queries are loaded once; each system's numbers are
exactly those of ``mwz evaluate`` with the same options. Every figure with an interval reaches the
bootstrap through one interface (:class:`.bootstrap.DialogueScores`): its interval resamples the
system's own dialogues, its p-value against a baseline the dialogues both have.
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

from mwz_metrics import bootstrap
from mwz_metrics.comparison.table import Comparison
from mwz_metrics.inputs import InputError, read_json
from mwz_plugins.progress import progress

logger = logging.getLogger(__name__)

RICHNESS_KEYS = ("entropy", "cond_entropy", "msttr", "avg_lengths", "num_unigrams", "num_bigrams", "num_trigrams")

__all__ = ["compare"]


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


def _restrict_to_common(systems: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every system's predictions on the dialogues all of them have (``--common-dialogues``)."""
    from mwz_datasets.multiwoz_raw import evaluation_key

    loaded: dict[str, dict[str, Any]] = {}
    for name, predictions in systems.items():
        if isinstance(predictions, (str, Path)):
            try:
                predictions = read_json(predictions, "predictions")
            except InputError as error:
                raise InputError(f"system {name}: {error}") from None
        if not isinstance(predictions, Mapping):
            raise InputError(f"system {name}: predictions must map dialogue ids to turns")
        loaded[name] = dict(predictions)
    common = set.intersection(*({evaluation_key(str(k)) for k in p} for p in loaded.values()))
    if not common:
        raise InputError("--common-dialogues: the systems share no dialogue")
    logger.info("restricting every system to the %d dialogues all have", len(common))
    return {n: {k: v for k, v in p.items() if evaluation_key(str(k)) in common} for n, p in loaded.items()}


def _static_figures(
    static: _Static, coherent: Mapping[str, Mapping[str, Any]], names: list[str], *, success: bool, bleu: bool
) -> dict[tuple[str, str], bootstrap.DialogueScores]:
    """Per static system and metric, its per-dialogue figures (the one interface of :mod:`.bootstrap`)."""
    figures: dict[tuple[str, str], bootstrap.DialogueScores] = {}
    for name in names:
        result = static.results[name]
        if success:
            outcomes = result["success"]["per_dialogue"]
            for metric in ("inform", "success"):
                # counted as mwzeval's rates count (success_lib.aggregate): a dialogue counts when
                # either dict has a "total", and a missing outcome is a failure
                figures[(name, metric)] = bootstrap.rates(
                    {
                        k: float(o[metric].get("total", 0))
                        if "total" in o["inform"] or "total" in o["success"]
                        else None
                        for k, o in outcomes.items()
                    }
                )
        if bleu:
            for style, (by_dialogue, compute) in static.statistics[name].items():
                figures[(name, f"bleu:{style}")] = bootstrap.bleu_scores(by_dialogue, compute)
        if name in coherent:
            pairs = coherent[name]["pair_probabilities"]
            figures[(name, "coherence")] = bootstrap.means(pairs, scale=100.0)  # dialogues without pairs left out
    return figures


def _bootstrap(
    figures: Mapping[tuple[str, str], bootstrap.DialogueScores], baseline: str | None, *, resamples: int, seed: int
) -> dict[tuple[str, str], dict[str, Any]]:
    """Each figure's interval over its own dialogues, and its p-value against the baseline's same metric
    over the dialogues both have (``paired_dialogues`` where those differ from its own)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for (name, metric), figure in figures.items():
        entry: dict[str, Any] = {}
        interval = bootstrap.interval(figure, resamples=resamples, seed=seed)
        if interval is not None:
            entry["ci_low"], entry["ci_high"] = interval
        other = figures.get((baseline, metric)) if baseline is not None and name != baseline else None
        paired = bootstrap.paired_p_value(figure, other, resamples=resamples, seed=seed) if other else None
        if paired is not None:
            entry["p_value"], common = paired
            if common != len(figure.dialogues):
                entry["paired_dialogues"] = common
        out[(name, metric)] = entry
    return out


def _static_rows(
    static: _Static,
    coherent: Mapping[str, Mapping[str, Any]],
    stats: Mapping[tuple[str, str], Mapping[str, Any]],
    names: list[str],
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
            if domain == "total" and (name, metric) in stats:
                row.update(stats[(name, metric)])
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
                fluency=fluency,
                fluency_model=fluency_model,
                resamples=resamples,
                seed=seed,
            )
        except ValueError as error:
            raise InputError(f"system {name}: {error}") from None
        out[name]["run"] = config
    return out


def _fluency(
    systems: Mapping[str, Any], model_name: str | None, *, resamples: int, seed: int, data_dir: str | None
) -> dict[str, dict[str, Any]]:
    """Sent-Score of every static system, one model for all (``mwz fluency``'s numbers)."""
    from mwz_metrics.fluency import api

    model = api.shared_model(model_name, data_dir=data_dir)
    scored: dict[str, dict[str, Any]] = {}
    for name, predictions in progress(systems.items(), "fluency", total=len(systems)):
        source = str(predictions) if isinstance(predictions, Path) else predictions
        try:
            scored[name] = api.score_predictions(source, model=model, resamples=resamples, seed=seed, data_dir=data_dir)
        except ValueError as error:
            raise InputError(f"system {name}: {error}") from None
    return scored


def _fluency_rows(
    scored: Mapping[str, Mapping[str, Any]], stats: Mapping[tuple[str, str], Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Fluency rows: the total with its interval and p-value, then the per-domain means."""
    rows = []
    for name, result in scored.items():
        row = {"system": name, "metric": "fluency", "domain": "total", "value": result["fluency"]}
        row.update(stats.get((name, "fluency"), {}))
        rows.append(row)
        rows += [
            {"system": name, "metric": "fluency", "domain": d, "value": v["fluency"]}
            for d, v in (result.get("per_domain") or {}).items()
        ]
    return rows


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
    common_dialogues: bool = False,
) -> Comparison:
    """Score every system with one shared evaluator and compare them (see the module docstring).

    ``systems``: name -> predictions (a path or mwzeval's mapping), or the session file of an
    ``mwz interact`` run (its sessions scored as that command scores them, with intervals over
    its own sessions and no p-value). ``evaluator_options``: what
    :class:`~mwz_metrics.multiwoz.evaluator.Evaluator` takes beside the metrics (``styles``,
    ``chain``, ``reference_files``, Success variants, ``data_dir``...). ``jobs``: worker processes
    (default one per CPU; 1 scores everything in this process); the numbers do not depend on it.
    ``coherence``: also session coherence (``mwz coherence``'s numbers; the ``coherence`` extra).
    ``fluency``: also Sent-Score (``mwz fluency``'s numbers, the default model or ``fluency_model``).
    Every interval is a bootstrap over the system's own dialogues, around the figure beside it; a
    p-value against ``baseline`` pairs the dialogues both have (``paired_dialogues`` in the row where
    those are fewer). ``common_dialogues`` first restricts every static system to the dialogues all
    of them have, so every figure and interval is over the same dialogues (the signature says so).
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
    if common_dialogues:
        static_systems = _restrict_to_common(static_systems)
    names = list(static_systems)
    static = _Static({}, {}, {})
    coherent: dict[str, dict[str, Any]] = {}
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
    fluent = (
        _fluency(static_systems, fluency_model, resamples=resamples, seed=seed, data_dir=options.get("data_dir"))
        if (fluency or fluency_model) and static_systems
        else {}
    )
    figures = _static_figures(static, coherent, names, success=success, bleu=bleu)
    figures.update({(n, "fluency"): bootstrap.means(r["per_response"]) for n, r in fluent.items()})
    stats = _bootstrap(figures, baseline, resamples=resamples, seed=seed)
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
    flags = {"success": success, "bleu": bleu}
    rows = _static_rows(static, coherent, stats, names, richness=richness, dst=dst, **flags)
    rows += _fluency_rows(fluent, stats)
    rows += _interactive_rows(interactive, success=success, richness=richness)
    rows.sort(key=lambda row: list(systems).index(row["system"]))  # the order the user gave (stable)
    dialogues_of = {
        n: len(static.keys_of[n]) or (static.results[n].get("coverage") or {}).get("dialogues", 0) for n in names
    }
    dialogues_of.update({n: r["sessions"] for n, r in interactive.items()})
    signature = _combined_signature(static.results, coherent, interactive, fluent)
    if common_dialogues:
        from mwz_metrics.signature import with_options

        signature = with_options(signature, common_dialogues=len(next(iter(static.keys_of.values()), [])))
    return Comparison(
        systems=list(systems),
        rows=rows,
        signature=signature,
        baseline=baseline,
        per_dialogue=_dialogue_rows(static, coherent, names, **flags) if per_dialogue else [],
        results={**static.results, **interactive},
        settings={
            "resamples": resamples,
            "seed": seed,
            "level": 0.95,
            "dialogues_of": dialogues_of,
            "common_dialogues": bool(common_dialogues),
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
    """The signature of the table: one line when every system shares it, else every distinct line;
    ``systems_of`` names the systems each line covers."""
    covers: dict[str, list[str]] = {}
    for group in (results, interactive, coherent, fluent or {}):
        for name, result in group.items():
            covers.setdefault(result["signature"]["line"], []).append(name)
    first = next(iter(results.values()), None) or next(iter(interactive.values()))
    signature = dict(first["signature"])
    if len(covers) > 1:  # systems with and without states, say: name every line
        signature["line"] = " ; ".join(sorted(covers))
    signature["systems_of"] = {line: systems for line, systems in sorted(covers.items())}
    return signature

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
from collections.abc import Mapping, Sequence
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


def _score_metrics(
    loaded: list, systems: Mapping[str, Any], *, resamples: int, seed: int, data_dir: str | None
) -> dict[str, dict[str, Any]]:
    """Each static system's registered metrics of dialogues (:mod:`mwz_metrics.metric`), each metric
    loaded once for every system (one model, one memo)."""
    from mwz_metrics import metric

    out: dict[str, dict[str, Any]] = {}
    for name, predictions in progress(systems.items(), "metrics", total=len(systems)):
        try:
            data = read_json(predictions, "predictions") if isinstance(predictions, (str, Path)) else predictions
            inputs = metric.MetricInputs(
                predictions=data, data_dir=data_dir, resamples=resamples, seed=seed, label=name
            )
            out[name] = metric.score(loaded, inputs)
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
    static: _Static, measured: Mapping[str, Mapping[str, Any]], names: list[str], *, success: bool, bleu: bool
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
        for metric, result in measured.get(name, {}).items():
            if result.scores is not None:
                figures[(name, metric)] = result.scores
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
    measured: Mapping[str, Mapping[str, Any]],
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
        for metric, result in measured.get(name, {}).items():  # the registered metrics asked for
            add(metric, "total", result.value)
            for domain, value in result.per_domain.items():
                add(metric, domain, value)
    return rows


def _dialogue_rows(
    static: _Static, measured: Mapping[str, Mapping[str, Any]], names: list[str], *, success: bool, bleu: bool
) -> list[dict[str, Any]]:
    """Per static system and dialogue: Inform, Success, active domains, BLEU per style, and the
    registered metrics that give a value per dialogue."""
    dialogue_rows: list[dict[str, Any]] = []
    for name in names:
        result = static.results[name]
        outcomes = result["success"]["per_dialogue"] if success else {}
        # the dialogues mwzeval's metrics scored, else those a registered metric gives a value for
        keys = static.keys_of[name] or {k for r in measured.get(name, {}).values() for k in r.per_dialogue}
        for key in sorted(keys):
            row: dict[str, Any] = {"system": name, "dialogue": key}
            if success:
                row["inform"] = outcomes[key]["inform"].get("total", "")
                row["success"] = outcomes[key]["success"].get("total", "")
                row["active_domains"] = " ".join(sorted({d for t in outcomes[key]["active_domains"] for d in t}))
            if bleu:
                for style, (by_dialogue, compute) in static.statistics[name].items():
                    row[f"bleu:{style}"] = compute(by_dialogue[key])
            for metric, result in measured.get(name, {}).items():
                if result.per_dialogue:
                    row[metric] = result.per_dialogue.get(key, "")
            dialogue_rows.append(row)
    return dialogue_rows


# Interactive figures shown beside the static ones (their own sessions' intervals).
INTERACTIVE_KEYS = ("turns", "complete", "book_rate", "inform_f1")


def _score_interactive(
    systems: Mapping[str, Any],
    *,
    richness: bool,
    metrics: list,
    resamples: int,
    seed: int,
    data_dir: str | None,
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
                sessions, config, context=context, richness=richness, metrics=metrics, resamples=resamples, seed=seed
            )
        except ValueError as error:
            raise InputError(f"system {name}: {error}") from None
        out[name]["run"] = config
    return out


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
        for metric in result.get("metrics") or {}:  # the registered metrics asked for
            add(metric, "total", result[metric], ci.get(metric))
    return rows


def compare(
    systems: Mapping[str, str | Path | Mapping[str, Any]],
    *,
    bleu: bool = True,
    success: bool = True,
    richness: bool = True,
    dst: bool = False,
    metrics: Sequence[Any] = (),
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
    ``metrics``: registered metrics of dialogues to add beside mwzeval's (names or
    :class:`~mwz_metrics.metric.MetricRequest`: ``["coherence", "fluency"]``), each loaded once for
    every system. Every interval is a bootstrap over the system's own dialogues, around the figure
    beside it; a p-value against ``baseline`` pairs the dialogues both have (``paired_dialogues`` in
    the row where those are fewer). ``common_dialogues`` first restricts every static system to the
    dialogues all of them have, so every figure and interval is over the same dialogues (the
    signature says so).
    """
    static_systems, interactive_systems = _checked(systems, baseline)
    options = dict(evaluator_options or {})
    if common_dialogues:
        static_systems = _restrict_to_common(static_systems)
    requests, loaded = _load_metrics(metrics)
    flags = {"success": success, "bleu": bleu}
    names = list(static_systems)
    static = _Static({}, {}, {})
    measured: dict[str, dict[str, Any]] = {}
    if static_systems:
        evaluator = _evaluator(options, richness=richness, dst=dst, **flags)
        static = _score_static(static_systems, evaluator, jobs=jobs, **flags)
        data_dir = options.get("data_dir")
        measured = _score_metrics(loaded, static_systems, resamples=resamples, seed=seed, data_dir=data_dir)
    stats = _bootstrap(_static_figures(static, measured, names, **flags), baseline, resamples=resamples, seed=seed)
    interactive = (
        _score_interactive(
            interactive_systems,
            richness=richness,
            metrics=requests,
            resamples=resamples,
            seed=seed,
            data_dir=options.get("data_dir"),
        )
        if interactive_systems
        else {}
    )
    rows = _static_rows(static, measured, stats, names, richness=richness, dst=dst, **flags)
    rows += _interactive_rows(interactive, success=success, richness=richness)
    rows.sort(key=lambda row: list(systems).index(row["system"]))  # the order the user gave (stable)
    return Comparison(
        systems=list(systems),
        rows=rows,
        signature=_signature(static, measured, interactive, common_dialogues),
        baseline=baseline,
        per_dialogue=_dialogue_rows(static, measured, names, **flags) if per_dialogue else [],
        results={**static.results, **interactive},
        settings=_settings(static, measured, interactive, names, resamples, seed, common_dialogues),
    )


def _checked(systems: Mapping[str, Any], baseline: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(static, interactive) systems, refusing an empty comparison and a baseline that cannot pair."""
    if not systems:
        raise InputError("nothing to compare: give at least one system")
    if baseline is not None and baseline not in systems:
        raise InputError(f"baseline {baseline!r} is not among the systems {sorted(systems)}")
    static_systems, interactive_systems = _split_interactive(systems)
    if baseline is not None and baseline in interactive_systems:
        raise InputError(f"baseline {baseline!r} is an interactive run: p-values pair test dialogues of static systems")
    return static_systems, interactive_systems


def _load_metrics(metrics: Sequence[Any]) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """The registered metrics asked for: their requests, and each loaded once (metric, entry)."""
    from mwz_metrics import metric

    requests = [metric.MetricRequest.parse(m) if isinstance(m, str) else m for m in metrics]
    return requests, metric.load_all(requests)


def _evaluator(options: Mapping[str, Any], *, bleu: bool, success: bool, richness: bool, dst: bool) -> Any:
    """The one evaluator of the static systems (mwzeval's metrics)."""
    from mwz_metrics.multiwoz.evaluator import Evaluator

    # per-dialogue BLEU comes from the segment statistics
    return Evaluator(
        bleu=bleu, success=success, richness=richness, dst=dst, per_dialogue=True, bleu_per_dialogue=False, **options
    )


def _signature(
    static: _Static, measured: Mapping[str, Mapping[str, Any]], interactive: Mapping[str, Any], common: bool
) -> dict[str, Any]:
    """The table's signature: a registered metric with a signature line of its own (coherence's model)
    adds that line for the systems it scored, another one its name and version to theirs;
    ``--common-dialogues`` says how many dialogues every system was scored on."""
    from mwz_metrics import metric

    signed = {}
    for name, result in static.results.items():
        signature = result["signature"]
        for scored in measured.get(name, {}).values():
            if not scored.signature.get("line"):
                signature = metric.signed(signature, scored)
        signed[name] = {"signature": signature}
    lines = {
        name: [r.signature["line"] for r in results.values() if r.signature.get("line")]
        for name, results in measured.items()
    }
    signature = _combined_signature(signed, interactive, lines)
    if common:
        from mwz_metrics.signature import with_options

        signature = with_options(signature, common_dialogues=len(next(iter(static.keys_of.values()), [])))
    return signature


def _settings(
    static: _Static,
    measured: Mapping[str, Mapping[str, Any]],
    interactive: Mapping[str, Mapping[str, Any]],
    names: list[str],
    resamples: int,
    seed: int,
    common: bool,
) -> dict[str, Any]:
    """What the renderings say of the table: the bootstrap, each system's dialogues, the registered metrics."""
    from mwz_metrics import metric

    dialogues_of = {
        n: len(static.keys_of[n]) or (static.results[n].get("coverage") or {}).get("dialogues", 0) for n in names
    }
    dialogues_of.update({n: r["sessions"] for n, r in interactive.items()})
    shown = {m: metric.describe(r) for results in measured.values() for m, r in results.items()}
    for result in interactive.values():
        shown.update(result.get("metrics") or {})
    return {
        "resamples": resamples,
        "seed": seed,
        "level": 0.95,
        "dialogues_of": dialogues_of,
        "common_dialogues": bool(common),
        **({"metrics": shown} if shown else {}),
        **({"interactive": {n: _run_label(r["run"]) for n, r in interactive.items()}} if interactive else {}),
    }


def _run_label(config: Mapping[str, Any]) -> str:
    """``agenda -> oracle`` for an interactive run."""
    system = config.get("system") or {}
    name = system.get("name") or system.get("file") or system.get("url") or system.get("factory")
    return f"{(config.get('simulator') or {}).get('name')} -> {name}"


def _combined_signature(
    results: Mapping[str, Mapping[str, Any]],
    interactive: Mapping[str, Mapping[str, Any]],
    metric_lines: Mapping[str, list[str]],
) -> dict[str, Any]:
    """The signature of the table: one line when every system shares it, else every distinct line
    (the registered metrics' own lines among them); ``systems_of`` names the systems each line covers."""
    covers: dict[str, list[str]] = {}
    for group in (results, interactive):
        for name, result in group.items():
            covers.setdefault(result["signature"]["line"], []).append(name)
    for name, lines in metric_lines.items():
        for line in lines:
            covers.setdefault(line, []).append(name)
    first = next(iter(results.values()), None) or next(iter(interactive.values()))
    signature = dict(first["signature"])
    if len(covers) > 1:  # systems with and without states, say: name every line
        signature["line"] = " ; ".join(sorted(covers))
    signature["systems_of"] = {line: systems for line, systems in sorted(covers.items())}
    return signature

"""Compare systems as papers do: one process, shared references, significance, tables, a plot.

>>> from mwz_metrics.comparison import compare
>>> table = compare({"ubar": "ubar.json", "mttod": "mttod.json"}, baseline="ubar")  # doctest: +SKIP
>>> table.rows[0]  # doctest: +SKIP
{'system': 'ubar', 'metric': 'inform', 'domain': 'total', 'value': 83.4, ...}

Every system is scored by the same registered metrics (:mod:`mwz_metrics.metric`), each loaded
once, so the references, goals, database, memoized queries and models are loaded once; each
system's numbers are exactly those of ``mwz evaluate`` with the same options. Every figure with an
interval reaches the bootstrap through one interface (:class:`.bootstrap.DialogueScores`): its
interval resamples the system's own dialogues, its p-value against a baseline the dialogues both
have.
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
from mwz_metrics.settings import EvaluationSettings, typed
from mwz_plugins.progress import progress

logger = logging.getLogger(__name__)

__all__ = ["compare"]


_WORKER: dict[str, Any] = {}  # what a forked worker inherits: the metrics and their settings


@dataclasses.dataclass(frozen=True)
class _Scoring:
    """How every static system is scored: the loaded metrics and the settings they all share."""

    loaded: dict[str, Any]  # the metrics by key (mwz_metrics.metric.load_all)
    settings: EvaluationSettings
    data_dir: str | None
    resamples: int
    seed: int
    shown: dict[str, Any]  # how tables show each, by key (mwz_metrics.metric.presentations)

    def inputs(self, name: str, predictions: Any) -> Any:
        """One system's :class:`~mwz_metrics.metric.MetricInputs` (a file is read where a metric needs it)."""
        from mwz_metrics.metric import MetricInputs

        if isinstance(predictions, (str, Path)):
            source, predictions = str(predictions), None
        else:
            source = None
        return MetricInputs(
            predictions=predictions,
            source=source,
            data_dir=self.data_dir,
            resamples=self.resamples,
            seed=self.seed,
            label=name,
            settings=self.settings,
        )


def _score_one(
    scoring: _Scoring, loaded: Mapping[str, Any], name: str, predictions: Any, known: Mapping[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """One system's results of ``loaded`` (an input error names the system); ``known``: its results of
    other metrics, whose rewritten responses these read too."""
    from mwz_metrics import metric

    logger.info("scoring %s", name)
    try:
        return name, metric.score(loaded, scoring.inputs(name, predictions), earlier=known)
    except InputError as error:
        raise InputError(f"system {name}: {error}") from None


def _worker(item: tuple[str, Any]) -> tuple[str, dict[str, Any]]:
    return _score_one(_WORKER["scoring"], _WORKER["loaded"], *item)


def default_jobs(systems: int) -> int:
    """Worker processes for ``systems`` systems: one per CPU, at most one per system after the first."""
    return max(1, min(os.cpu_count() or 1, systems - 1))


def _score_all(scoring: _Scoring, loaded: Mapping[str, Any], systems: Mapping[str, Any], *, jobs: int | None):
    """(name, results) for every system, in order. The first system is scored here, which loads the
    references, goals, database and BLEU reference statistics once; with ``jobs`` > 1 the others are
    scored by forked workers that inherit all of it (the same numbers as in one process)."""
    items = list(systems.items())
    if not items:
        return
    yield _score_one(scoring, loaded, *items[0])
    rest = items[1:]
    jobs = default_jobs(len(items)) if jobs is None else jobs
    if jobs <= 1 or len(rest) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        for item in rest:
            yield _score_one(scoring, loaded, *item)
        return
    _WORKER.update(scoring=scoring, loaded=loaded)
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(rest))) as pool:
            yield from pool.imap(_worker, rest)
    finally:
        _WORKER.clear()


def _score_static(scoring: _Scoring, systems: Mapping[str, Any], *, jobs: int | None) -> dict[str, dict[str, Any]]:
    """Every static system's metric results, in the registry's order. Metrics that may run in a forked
    worker (``forks``: mwzeval's) are scored in parallel over the systems; the others (a model with
    threads of its own) one system after another in this process, each loaded once for all."""
    forking = {key: m for key, m in scoring.loaded.items() if getattr(m, "forks", False)}
    staying = {key: m for key, m in scoring.loaded.items() if not getattr(m, "forks", False)}
    measured: dict[str, dict[str, Any]] = {name: {} for name in systems}
    if forking:
        scored = _score_all(scoring, forking, systems, jobs=jobs)
        for name, results in progress(scored, "scoring systems", total=len(systems)):
            measured[name].update(results)
    if staying:
        for name, predictions in progress(systems.items(), "metrics", total=len(systems)):
            measured[name].update(_score_one(scoring, staying, name, predictions, measured[name])[1])
    order = list(scoring.loaded)
    return {name: {m: results[m] for m in order} for name, results in measured.items()}


def _split_interactive(systems: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(static, interactive): the runs of ``mwz interact`` (a session file, or its ``--predictions``
    export: the sessions it holds) as (configuration, sessions), apart from predictions."""
    from mwz_metrics.interactive.harness import api

    static, interactive = {}, {}
    for name, given in systems.items():
        try:
            run = api.load_sessions(given) if isinstance(given, (str, Path)) else None
        except InputError as error:
            raise InputError(f"system {name}: {error}") from None
        if run is None:
            static[name] = given
        else:
            interactive[name] = run
    return static, interactive


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


def _dialogues(results: Mapping[str, Any]) -> set[str]:
    """The dialogues a system's metrics give per-dialogue values for."""
    return {key for result in results.values() for column in result.dialogue_columns().values() for key in column}


def _static_figures(measured: Mapping[str, Mapping[str, Any]]) -> dict[tuple[str, str], bootstrap.DialogueScores]:
    """Per static system and figure, what each dialogue contributes (the one interface of :mod:`.bootstrap`)."""
    figures: dict[tuple[str, str], bootstrap.DialogueScores] = {}
    for name, results in measured.items():
        for result in results.values():
            for figure in result.each_figure():
                if figure.scores is not None:
                    figures[(name, figure.name)] = figure.scores
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
    measured: Mapping[str, Mapping[str, Any]], stats: Mapping[tuple[str, str], Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The tidy rows of the static systems: every figure by domain, its interval and p-value on the total."""
    rows: list[dict[str, Any]] = []
    for name, results in measured.items():
        for result in results.values():
            for figure in result.each_figure():
                for domain, value in figure.domain_values().items():
                    row: dict[str, Any] = {"system": name, "metric": figure.name, "domain": domain, "value": value}
                    if domain == "total" and (name, figure.name) in stats:
                        row.update(stats[(name, figure.name)])
                    rows.append(row)
    return rows


def _dialogue_rows(measured: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per static system and dialogue, every metric's per-dialogue columns (Inform, Success, active
    domains, BLEU per style, the registered metrics that give a value per dialogue)."""
    dialogue_rows: list[dict[str, Any]] = []
    for name, results in measured.items():
        columns = {c: values for result in results.values() for c, values in result.dialogue_columns().items()}
        for key in sorted(_dialogues(results)):
            row: dict[str, Any] = {"system": name, "dialogue": key}
            row.update({column: values.get(key, "") for column, values in columns.items()})
            dialogue_rows.append(row)
    return dialogue_rows


# Interactive figures shown beside the static ones (their own sessions' intervals).
INTERACTIVE_KEYS = ("turns", "complete", "book_rate", "inform_f1")


def _score_interactive(
    systems: Mapping[str, tuple[dict[str, Any], list[dict[str, Any]]]],
    *,
    richness: bool,
    metrics: list,
    resamples: int,
    seed: int,
    data_dir: str | None,
    delexicalize: str = "auto",
    exclude_infra: bool = False,
    context: Any = None,
) -> dict[str, dict[str, Any]]:
    """Each run's sessions scored as ``mwz interact`` scores them (one shared context)."""
    if not systems:
        return {}
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.harness.context import InteractiveContext

    context = context or InteractiveContext(data_dir=data_dir)
    out = {}
    for name, (config, sessions) in progress(systems.items(), "scoring interactive runs", total=len(systems)):
        try:
            out[name] = api.score(
                api.in_goal_order(sessions, context),  # whatever order -j wrote them in
                config,
                context=context,
                richness=richness,
                metrics=metrics,
                resamples=resamples,
                seed=seed,
                scorable_only=True,
                delexicalize=delexicalize,
                exclude_infra=exclude_infra,
            )
        except InputError as error:
            raise InputError(f"system {name}: {error}") from None
        out[name]["run"] = config
    return out


def _interactive_rows(
    results: Mapping[str, Mapping[str, Any]], *, success: bool, richness: bool, bleu: bool = False
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
        for style, value in (result.get("bleu") or {}).items() if bleu else ():  # a replay run's: it has references
            add(f"bleu:{style}", "total", value, ci.get(f"bleu:{style}"))
        for key in INTERACTIVE_KEYS:
            if result.get(key) is not None:
                add(f"interactive:{key}", "total", result[key], ci.get(key))
        if richness and result.get("richness"):
            from mwz_metrics.multiwoz.richness import RICHNESS_KEYS

            for key in RICHNESS_KEYS:
                add(f"richness:{key}", "total", result["richness"][key])
        for metric in result.get("metrics") or {}:  # the registered metrics asked for
            add(metric, "total", result[metric], ci.get(metric))
    return rows


def paired_runs(
    run: Mapping[str, Any], base: Mapping[str, Any], *, resamples: int, seed: int, plan_difference: float | None
) -> dict[str, Any]:
    """One interactive run against the baseline run: paired by goal, and by trial where both have trials
    (the same trial of a goal meets the same simulated user); each metric's difference and its paired
    bootstrap p-value resampling goals; for Success the smallest difference this size detects
    (:mod:`mwz_metrics.power`) and, with ``plan_difference``, the goals x trials that difference needs."""
    from mwz_metrics import power
    from mwz_metrics.interactive.protocol import parse_session_id
    from mwz_metrics.interactive.scoring.trials import outcomes_by_goal

    ids = [{r["id"] for r in result["per_session"]} for result in (run, base)]
    with_trials = all(any(parse_session_id(i)[1] is not None for i in group) for group in ids)
    keys = ids[0] & ids[1] if with_trials else None
    out: dict[str, Any] = {"paired_by": "goal and trial" if with_trials else "goal"}
    for metric in ("success", "inform"):
        mine, theirs = (outcomes_by_goal(result["per_session"], metric, keys) for result in (run, base))
        goals = [g for g in mine if g in theirs]  # goal order: the run's
        if not goals:
            continue
        a = np.array([np.mean(mine[g]) for g in goals])
        b = np.array([np.mean(theirs[g]) for g in goals])
        entry: dict[str, Any] = {"difference": 100.0 * float(a.mean() - b.mean()), "goals": len(goals)}
        if resamples > 0 and len(goals) > 1:
            weights = bootstrap.resample_weights(len(goals), resamples, seed)
            total = weights.sum(axis=1)
            entry["p_value"] = bootstrap.p_value(
                (weights @ a) / total, (weights @ b) / total, float(a.mean() - b.mean())
            )
        if metric == "success":
            entry["detectable"] = 100.0 * power.detectable_difference(list(a - b))
            entry["below_detectable"] = bool(abs(entry["difference"]) < entry["detectable"])
            if plan_difference is not None:
                differences = (  # by trial where both runs have trials, else each goal's mean difference
                    _trial_differences(run, base, keys)
                    if keys is not None
                    else {g: [float(d)] for g, d in zip(goals, a - b)}
                )
                between, within = power.variance_components(differences)
                entry["plan"] = {
                    "difference": plan_difference,
                    "needs": power.plan(plan_difference / 100.0, between, within),
                }
        out[metric] = entry
    return out


def _trial_differences(run: Mapping[str, Any], base: Mapping[str, Any], keys: set[str]) -> dict[str, list[float]]:
    """Per goal, the Success differences of its paired sessions (``keys``: the same goal and trial in both)."""
    from mwz_metrics.interactive.protocol import parse_session_id

    outcome = [{r["id"]: r["success"] for r in result["per_session"]} for result in (run, base)]
    out: dict[str, list[float]] = {}
    for key in sorted(keys):
        first, second = outcome[0].get(key), outcome[1].get(key)
        if first is not None and second is not None:
            out.setdefault(parse_session_id(key)[0], []).append(float(first) - float(second))
    return out


def _interactive_pairs(
    interactive: Mapping[str, Mapping[str, Any]],
    baseline: str | None,
    *,
    resamples: int,
    seed: int,
    plan_difference: float | None = None,
) -> dict[str, dict[str, Any]]:
    """Every interactive run against the baseline run (``baseline`` if it is one, else the first run)."""
    names = list(interactive)
    base = baseline if baseline in interactive else (names[0] if names else None)
    if base is None:
        return {}
    return {
        name: {"baseline": base}
        | paired_runs(
            interactive[name], interactive[base], resamples=resamples, seed=seed, plan_difference=plan_difference
        )
        for name in names
        if name != base
    }


# A run with profiles (mwz interact --profiles): the columns of its robustness (docs/trials.md, Robustness is a figure).
ROBUSTNESS_KEYS = ("worst", "mean", "worst_vs_default")


def _profile_runs(systems: Mapping[str, Any], names: Sequence[str]) -> dict[str, dict[str, Path]]:
    """The interactive runs given as the default user's session file with its profiles' files beside it:
    run -> profile -> file (:func:`.inputs.profile_runs`)."""
    from mwz_metrics.comparison.inputs import profile_runs

    found = {}
    for name in names:
        given = systems[name]
        runs = profile_runs(given) if isinstance(given, (str, Path)) else {}
        if runs:
            logger.info("%s: a run with profiles (%s)", name, ", ".join(runs))
            found[name] = runs
    return found


def _score_profiles(
    profiles: Mapping[str, Mapping[str, Path]],
    interactive: Mapping[str, dict[str, Any]],
    *,
    context: Any,
    seed: int,
    delexicalize: str,
    exclude_infra: bool,
) -> dict[str, dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]]:
    """Each run with profiles: user -> (its run's configuration, its scored sessions), the default user's
    first (its sessions as the comparison scored them; each profile's scored for Success alone)."""
    from mwz_metrics.interactive.harness import api

    out: dict[str, dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]] = {}
    items = [(name, user, path) for name, runs in profiles.items() for user, path in runs.items()]
    for name, user, path in progress(items, "scoring the runs' profiles", total=len(items)):
        default = interactive[name]
        users = out.setdefault(name, {"default": (default["run"], default["per_session"])})
        try:
            loaded = api.load_sessions(path)
            if loaded is None:
                raise InputError(f"{path}: not a session file")
            config, sessions = loaded
            result = api.score(
                api.in_goal_order(sessions, context),
                config,
                context=context,
                richness=False,
                resamples=0,
                seed=seed,
                scorable_only=True,
                delexicalize=delexicalize,
                exclude_infra=exclude_infra,
            )
        except InputError as error:
            raise InputError(f"system {name}, profile {user}: {error}") from None
        users[user] = (config, result["per_session"])
    return out


def _robustness(
    users: Mapping[str, Mapping[str, tuple[dict[str, Any], list[dict[str, Any]]]]],
    interactive: Mapping[str, dict[str, Any]],
    base: str | None,
    *,
    resamples: int,
    seed: int,
) -> dict[str, dict[str, Any]]:
    """Each run with profiles: its robustness (:func:`~mwz_metrics.interactive.scoring.trials.robustness`,
    the profile set in ``profiles``), and against the ``base`` run with the same users, the paired p-value
    of its worst and mean Success (``against``: resampling the goals both runs have); the run's signature
    names its profile set."""
    from mwz_metrics.comparison.inputs import profile_set, profiles_signature
    from mwz_metrics.interactive.scoring import trials

    out: dict[str, dict[str, Any]] = {}
    for name, runs in users.items():
        found = trials.robustness({u: r[1] for u, r in runs.items()}, resamples=resamples, seed=seed)
        if found is None:
            continue
        configs = {u: r[0] for u, r in runs.items()}
        out[name] = {**found, "profiles": profile_set(configs)}
        interactive[name]["signature"] = profiles_signature(interactive[name]["signature"], configs)
    if base in out and resamples > 0:
        theirs = {u: r[1] for u, r in users[base].items()}
        for name in out:
            if name != base and list(users[name]) == list(theirs):
                against = _robustness_against({u: r[1] for u, r in users[name].items()}, theirs, resamples, seed)
                if against:
                    out[name]["against"] = {"baseline": base, **against}
    return out


def _robustness_against(
    mine: Mapping[str, list[dict[str, Any]]], theirs: Mapping[str, list[dict[str, Any]]], resamples: int, seed: int
) -> dict[str, Any] | None:
    """The worst and mean Success of two runs with the same users, paired over the goals both have: each
    difference and its paired bootstrap p-value (both runs resampled with the same goals)."""
    from mwz_metrics.interactive.scoring import trials

    shared = set(trials.robustness_goals(theirs))
    goals = [g for g in trials.robustness_goals(mine) if g in shared]
    if len(goals) < 2:
        return None
    weights = bootstrap.resample_weights(len(goals), resamples, seed)
    whole = np.ones((1, len(goals)), dtype=np.int64)
    a, b = trials.robustness_samples(mine, goals, weights), trials.robustness_samples(theirs, goals, weights)
    a1, b1 = trials.robustness_samples(mine, goals, whole), trials.robustness_samples(theirs, goals, whole)
    out: dict[str, Any] = {"goals": len(goals)}
    for key in ("worst", "mean"):
        observed = float(a1[key][0] - b1[key][0])
        out[key] = {"difference": observed, "p_value": bootstrap.p_value(a[key], b[key], observed)}
    return out


def _robustness_rows(robust: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows of the runs with profiles: the worst user's Success, the mean over the users (each with its
    interval, and its p-value against the baseline run with the same users) and the worst user's difference
    to the default user (its paired interval)."""
    rows: list[dict[str, Any]] = []
    for name, found in robust.items():
        for key in ROBUSTNESS_KEYS:
            figure = found["worst"]["against_default"] if key == "worst_vs_default" else found[key]
            value = figure["difference"] if key == "worst_vs_default" else figure["value"]
            row: dict[str, Any] = {"system": name, "metric": f"robustness:{key}", "domain": "total", "value": value}
            if figure.get("ci95"):
                row["ci_low"], row["ci_high"] = figure["ci95"]
            against = (found.get("against") or {}).get(key)
            if against is not None:
                row["p_value"] = against["p_value"]
            rows.append(row)
    return rows


def _with_pairs(rows: list[dict[str, Any]], pairs: Mapping[str, Mapping[str, Any]]) -> None:
    """The p-values (and Success's detectable difference) into the runs' total rows."""
    for row in rows:
        paired = (pairs.get(row["system"]) or {}).get(row["metric"])
        if paired is None or row["domain"] != "total":
            continue
        if "p_value" in paired:
            row["p_value"] = paired["p_value"]
        if "detectable" in paired:
            row["detectable"] = paired["detectable"]
            row["below_detectable"] = paired["below_detectable"]


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
    evaluator_options: EvaluationSettings | Mapping[str, Any] | None = None,
    jobs: int | None = None,
    common_dialogues: bool = False,
    exclude_infra: bool = False,
    plan_difference: float | None = None,
) -> Comparison:
    """Score every system with the same metrics and compare them (see the module docstring).

    ``systems``: name -> predictions (a path or mwzeval's mapping), or the session file of an
    ``mwz interact`` run or its ``--predictions`` export (its sessions scored as that command scores
    them, with intervals over its own goals, paired with the baseline run). ``metrics``: registered metrics (names or
    :class:`~mwz_metrics.metric.MetricRequest`: ``["coherence", "fluency"]``), each loaded once for
    every system; ``bleu``, ``success``, ``richness`` and ``dst`` are spellings of mwzeval's four.
    ``evaluator_options``: the settings every metric reads (``styles``, ``chain``,
    ``reference_files``, Success variants, ``data_dir``...). ``jobs``: worker processes (default one
    per CPU; 1 scores everything in this process); the numbers do not depend on it. Every interval
    is a bootstrap over the system's own dialogues, around the figure beside it; a p-value against
    ``baseline`` pairs the dialogues both have (``paired_dialogues`` in the row where those are
    fewer). ``common_dialogues`` first restricts every static system to the dialogues all of them
    have, so every figure and interval is over the same dialogues (the signature says so).
    """
    static_systems, interactive_systems = _checked(systems, baseline)
    if common_dialogues:
        static_systems = _restrict_to_common(static_systems)
    spelled = {"mwz_success": success, "mwz_bleu": bleu, "mwz_richness": richness, "mwz_dst": dst}
    requests = _requests(metrics, spelled)
    scoring = _scoring(requests, evaluator_options, resamples=resamples, seed=seed)
    measured = _score_static(scoring, static_systems, jobs=jobs) if static_systems else {}
    stats = _bootstrap(_static_figures(measured), baseline, resamples=resamples, seed=seed)
    asked = _keys(requests)
    context = _context(scoring.data_dir) if interactive_systems else None
    interactive = _score_interactive(
        interactive_systems,
        richness="richness" in asked,
        metrics=requests,
        resamples=resamples,
        seed=seed,
        data_dir=scoring.data_dir,
        delexicalize=scoring.settings.delexicalize or "auto",
        exclude_infra=exclude_infra,
        context=context,
    )
    rows = _static_rows(measured, stats)
    rows += _interactive_rows(
        interactive, success="success" in asked, richness="richness" in asked, bleu="bleu" in asked
    )
    pairs = _interactive_pairs(interactive, baseline, resamples=resamples, seed=seed, plan_difference=plan_difference)
    _with_pairs(rows, pairs)
    robust: dict[str, dict[str, Any]] = {}
    if "success" in asked:  # a run with profiles: its worst user's and mean Success
        users = _score_profiles(
            _profile_runs(systems, list(interactive)),
            interactive,
            context=context,
            seed=seed,
            delexicalize=scoring.settings.delexicalize or "auto",
            exclude_infra=exclude_infra,
        )
        base = baseline if baseline in interactive else next(iter(interactive), None)  # as the runs' pairs
        robust = _robustness(users, interactive, base, resamples=resamples, seed=seed)
        rows += _robustness_rows(robust)
    rows.sort(key=lambda row: list(systems).index(row["system"]))  # the order the user gave (stable)
    assembled = {name: _assembled(results, scoring.shown) for name, results in measured.items()}
    return Comparison(
        systems=list(systems),
        rows=rows,
        signature=_signature(measured, interactive, common_dialogues, scoring.shown),
        baseline=baseline,
        per_dialogue=_dialogue_rows(measured) if per_dialogue else [],
        results={**assembled, **interactive},
        settings=_settings(measured, assembled, interactive, resamples, seed, common_dialogues, scoring.shown)
        | ({"interactive_pairs": pairs} if pairs else {})
        | ({"robustness": robust} if robust else {}),
    )


def _context(data_dir: str | None) -> Any:
    """The interactive context every run of the comparison is scored in (goals, database loaded once)."""
    from mwz_metrics.interactive.harness.context import InteractiveContext

    return InteractiveContext(data_dir=data_dir)


def _checked(systems: Mapping[str, Any], baseline: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(static, interactive) systems, refusing an empty comparison and a baseline that cannot pair."""
    if not systems:
        raise InputError("nothing to compare: give at least one system")
    if baseline is not None and baseline not in systems:
        raise InputError(f"baseline {baseline!r} is not among the systems {sorted(systems)}")
    static_systems, interactive_systems = _split_interactive(systems)
    if baseline is not None and baseline in interactive_systems and static_systems:
        logger.info("baseline %s is an interactive run: the static systems get no p-values", baseline)
    return static_systems, interactive_systems


def _requests(metrics: Sequence[Any], spelled: Mapping[str, bool]) -> list[Any]:
    """The metrics asked for: those the keyword spellings turn on, then ``metrics``, after the registry's
    defaults where they name none of the defaults' group."""
    from mwz_metrics import metric

    requests = [metric.MetricRequest(name) for name, on in spelled.items() if on]
    requests += [metric.MetricRequest.parse(m) if isinstance(m, str) else m for m in metrics]
    return metric.with_defaults(requests)


def _keys(requests: Sequence[Any]) -> set[str]:
    """The keys the requested metrics' figures go under (``success``), whichever name asked for them."""
    from mwz_metrics import metric

    return {metric.key(request.name) for request in requests}


def _scoring(
    requests: list[Any], options: EvaluationSettings | Mapping[str, Any] | None, *, resamples: int, seed: int
) -> _Scoring:
    """The metrics, each loaded once for every system, and the settings they read: per-dialogue
    outcomes and what each dialogue contributes to every figure, for the bootstrap."""
    from mwz_metrics import metric

    given = options if isinstance(options, EvaluationSettings) else typed(EvaluationSettings, options or {}, "settings")
    settings = given.replace(per_dialogue=True, bleu_per_dialogue=False, dialogue_scores=True)
    loaded = metric.load_all(requests)
    return _Scoring(loaded, settings, settings.data_dir, resamples, seed, metric.presentations(loaded))


def _assembled(results: Mapping[str, Any], shown: Mapping[str, Any]) -> dict[str, Any]:
    """A system's results as ``mwz evaluate`` writes them."""
    from mwz_metrics import metric

    return metric.assemble(results, shown)


def _signature(
    measured: Mapping[str, Mapping[str, Any]], interactive: Mapping[str, Any], common: bool, shown: Mapping[str, Any]
) -> dict[str, Any]:
    """The table's signature: each system's group signature (mwzeval's); a metric with a signature line
    of its own (coherence's model) adds that line for the systems it scored, another one its name and
    version to theirs; ``--common-dialogues`` says how many dialogues every system was scored on."""
    from mwz_metrics import metric

    signed = {}
    lines: dict[str, list[str]] = {}
    for name, results in measured.items():
        signature = metric.assemble({m: r for m, r in results.items() if r.shared}, shown)["signature"]
        for key, result in results.items():
            if result.shared:
                continue
            if result.signature.get("line"):
                lines.setdefault(name, []).append(result.signature["line"])
            else:
                signature = metric.signed(signature, result, shown[key])
        signed[name] = {"signature": signature}
    signature = _combined_signature(signed, interactive, lines)
    if common:
        from mwz_metrics.signature import with_options

        first = next(iter(measured.values()), {})
        signature = with_options(signature, common_dialogues=len(_dialogues(first)))
    return signature


def _settings(
    measured: Mapping[str, Mapping[str, Any]],
    assembled: Mapping[str, Mapping[str, Any]],
    interactive: Mapping[str, Mapping[str, Any]],
    resamples: int,
    seed: int,
    common: bool,
    shown: Mapping[str, Any],
) -> dict[str, Any]:
    """What the renderings say of the table: the bootstrap, each system's dialogues, the metrics of
    dialogues beside mwzeval's (their labels and directions)."""
    dialogues_of = {}
    for name, results in measured.items():
        coverage = assembled[name].get("coverage") or {}
        dialogues_of[name] = len(_dialogues(results)) or coverage.get("dialogues", 0)
    dialogues_of.update({n: r["sessions"] for n, r in interactive.items()})
    described = {m: shown[m].describe(r) for results in measured.values() for m, r in results.items() if not r.shared}
    for result in interactive.values():
        described.update(result.get("metrics") or {})
    gold = [n for n, r in assembled.items() if str((r.get("success") or {}).get("states", "")).startswith("gold")]
    return {
        "resamples": resamples,
        "seed": seed,
        "level": 0.95,
        "dialogues_of": dialogues_of,
        "common_dialogues": bool(common),
        "gold_states": gold,  # Inform/Success from MultiWOZ 2.2's gold states: the system predicts none
        "warnings_of": {n: r.get("warnings") or [] for n, r in {**assembled, **interactive}.items()},
        **({"metrics": described} if described else {}),
        **({"interactive": {n: _run_label(r["run"]) for n, r in interactive.items()}} if interactive else {}),
    }


def _run_label(config: Mapping[str, Any]) -> str:
    """``agenda -> oracle`` for an interactive run."""
    from mwz_metrics.records.header import system_name

    return f"{(config.get('simulator') or {}).get('name')} -> {system_name(config)}"


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

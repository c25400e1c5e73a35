"""Interactive evaluation as a library: run sessions and score them (what ``mwz interact`` does).

>>> from mwz_metrics.interactive.harness.api import interact
>>> result = interact("oracle", simulator="agenda", goals=20, output="runs/oracle.jsonl")  # doctest: +SKIP
>>> result["success"]  # doctest: +SKIP
100.0
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.chat import DEFAULT_MAX_BYTES
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.harness import preflight
from mwz_metrics.interactive.harness import sessions as session_files
from mwz_metrics.interactive.harness.context import InteractiveContext
from mwz_metrics.interactive.harness.defaults import DEFAULT_MAX_TURNS, DEFAULT_USER_ACTS
from mwz_metrics.interactive.harness.loading import load_simulator, load_system
from mwz_metrics.interactive.harness.runner import run_all
from mwz_metrics.interactive.protocol import MAX_RESPONSE_CHARS
from mwz_metrics.interactive.scoring import export
from mwz_metrics.interactive.scoring import figures as scoring
from mwz_metrics.interactive.scoring import trials as trial_scoring
from mwz_metrics.interactive.systems.user_acts import user_acts_reach
from mwz_metrics.settings import EvaluationSettings
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class Run:
    """A configured run: goals, simulator, system, and the configuration its session file records."""

    context: InteractiveContext
    goals: list[UserGoal]
    simulator: Any
    system: Any
    config: dict[str, Any]


def _select_goals(
    context: InteractiveContext, goals: int | Sequence[str] | None, default: list[str] | None
) -> list[UserGoal]:
    available = context.goals
    if goals is None:
        # a predictions file's own order: figures that read responses in order (richness) stay the file's
        keys = list(available) if default is None else [k for k in default if k in available]
    elif isinstance(goals, int):
        if goals <= 0:
            raise InputError(f"--goals {goals}: give a positive number")
        if goals > len(available):
            logger.warning(
                "--goals %d: the test set has %d goals; running all %d", goals, len(available), len(available)
            )
        keys = list(available)[:goals]
    else:
        from mwz_datasets.multiwoz_raw import evaluation_key

        keys = [evaluation_key(g) for g in goals]
        unknown = [k for k in keys if k not in available]
        if unknown:
            raise InputError(f"{len(unknown)} dialogue(s) not in the MultiWOZ 2.1 test set, e.g. {unknown[:5]}")
    if not keys:
        raise InputError("no goals to run: the selection is empty")
    return [available[k] for k in keys]


def prepare(
    system: str,
    *,
    simulator: str = "agenda",
    simulator_options: Mapping[str, Any] | None = None,
    goals: int | Sequence[str] | None = None,
    seed: int = 0,
    max_turns: int = DEFAULT_MAX_TURNS,
    timeout: float = 30.0,
    retries: int = 2,
    data_dir: str | None = None,
    context: InteractiveContext | None = None,
    system_options: Mapping[str, str] | None = None,
    user_acts: bool = DEFAULT_USER_ACTS,
    max_answer_bytes: int = DEFAULT_MAX_BYTES,
    max_response_chars: int = MAX_RESPONSE_CHARS,
    trials: int = 1,
    profile: str | None = None,
) -> Run:
    """Load the data, the simulator and the system, and choose the goals (nothing runs yet).

    ``system_options``: keyword arguments of the system's factory (``--system-option``);
    ``user_acts``: the user's acts reach the system (``--user-acts``; reference systems read them
    anyway). Both are part of the run's configuration, hence of its signature. ``timeout`` and
    ``retries``: each request of an HTTP or LLM system and of the ``llm`` simulator (one deadline for
    the connection and the whole answer); ``max_answer_bytes`` (an HTTP answer) and
    ``max_response_chars`` (a response's text): beyond them a session ends ``malformed_response``
    (in the configuration where they are not the defaults). ``trials``: sessions per goal, each with its
    own seed (:func:`~mwz_metrics.interactive.protocol.session_seed`; a run of one trial records none);
    ``profile``: a registered user profile the simulator plays (:mod:`..user.profiles`)."""
    context = context or InteractiveContext(data_dir=data_dir)
    if max_turns <= 0:
        raise InputError(f"--max-turns {max_turns}: give a positive number")
    if trials <= 0:
        raise InputError(f"--trials {trials}: give a positive number")
    if max_answer_bytes <= 0 or max_response_chars <= 0:
        raise InputError("--max-answer-bytes and --max-response-chars: give positive numbers")
    if not (math.isfinite(timeout) and timeout > 0) or retries < 0:
        raise InputError(f"--timeout {timeout} --retries {retries}: give a positive finite timeout, retries >= 0")
    loaded = load_system(
        system, context, timeout=timeout, retries=retries, options=system_options, max_bytes=max_answer_bytes
    )
    factory, simulator_identity = load_simulator(
        simulator, context, simulator_options, profile, timeout=timeout, retries=retries
    )
    # whether the user's acts reach the system (an acts-only system with a words-only user: refused here)
    acts_reach = user_acts_reach(loaded, factory, system, simulator, user_acts=user_acts)
    preflight.check(loaded.kind, system, system_options, simulator_options, timeout=timeout)
    chosen = _select_goals(context, goals, loaded.dialogues)
    ids = ",".join(g.dialogue_id for g in chosen)
    config = {
        "package": f"mwz-eval {__version__}",
        "simulator": simulator_identity,
        "system": loaded.identity,
        "seed": seed,
        "max_turns": max_turns,
        "user_acts": acts_reach,
        "goals": {"count": len(chosen), "sha256": hashlib.sha256(ids.encode()).hexdigest()},
        **({"trials": trials} if trials > 1 else {}),
        "data": context.signature()["sources"],
        "derived_code": context.signature()["derived_code"],
    }
    limits = {
        k: v
        for k, v, default in (
            ("max_answer_bytes", max_answer_bytes, DEFAULT_MAX_BYTES),
            ("max_response_chars", max_response_chars, MAX_RESPONSE_CHARS),
        )
        if v != default
    }
    if limits:  # only where not the defaults: the configurations of earlier runs stay what they were
        config["limits"] = limits
    return Run(context, chosen, factory, loaded.system, config)


def run_sessions(
    run: Run,
    *,
    output: str | Path | None,
    resume: bool = False,
    jobs: int = 1,
    progress: Callable[[int, int, int], None] | None = None,
    retry_failed: bool = False,
    overwrite: bool = False,
) -> list[dict[str, Any]]:
    """Every goal's session (appended to ``output`` as each ends; ``progress(done, total, failed)`` told
    each time one ends; ``resume`` continues it, with
    ``retry_failed`` running again the sessions that ended for an infrastructure reason; an existing
    ``output`` is replaced only with ``overwrite``)."""
    return run_all(
        run.goals,
        run.simulator,
        run.system,
        run=run.config,
        seed=run.config["seed"],
        max_turns=run.config["max_turns"],
        jobs=jobs,
        out=output,
        resume=resume,
        retry_failed=retry_failed,
        overwrite=overwrite,
        progress=progress,
        user_acts=bool(run.config["user_acts"]),
        name=_system_label(run.config),
        max_response_chars=int((run.config.get("limits") or {}).get("max_response_chars", MAX_RESPONSE_CHARS)),
        trials=int(run.config.get("trials", 1)),
    )


def score(
    sessions: Sequence[Mapping[str, Any]],
    config: Mapping[str, Any],
    *,
    context: InteractiveContext | None = None,
    bleu: bool | None = None,
    richness: bool = True,
    metrics: Sequence[Any] = (),
    resamples: int = 1000,
    seed: int = 0,
    chain: str = "mwzeval",
    scorable_only: bool = False,
    delexicalize: str = "auto",
    warm: dict[Any, Any] | None = None,
    read: dict[str, list[str]] | None = None,
    exclude_infra: bool = False,
) -> dict[str, Any]:
    """Score sessions (see :mod:`.scoring`): every metric from the registry, mwzeval's Inform/Success
    always (the session figures rest on it), richness and BLEU (``bleu``: by default only for
    ``replay`` sessions, the only ones with references) as their spellings ask.

    ``metrics``: registered metrics to add (names or :class:`~mwz_metrics.metric.MetricRequest`,
    ``--metric``). ``scorable_only``: leave out a metric that needs the test set's references when
    these sessions have none (a comparison asks every run for the same metrics), rather than refuse.
    ``delexicalize``: how responses that carry values are read (:mod:`mwz_metrics.delexicalize`).
    ``warm``: a dict the caller keeps between calls (an environment scoring one session at a time), in
    which the metrics are loaded once, so that their test set and database stay loaded. ``read``: a dict
    that receives the responses as mwzeval read them where it delexicalized them (by dialogue key).
    ``exclude_infra``: leave out the sessions that ended for an infrastructure reason (a timeout, a
    failed system or simulator) instead of counting them as failures (:mod:`.scoring.trials`)."""
    from mwz_metrics import metric

    context = context or InteractiveContext()
    infrastructure = trial_scoring.infrastructure_ends(sessions)
    if exclude_infra:
        sessions = [s for s in sessions if not trial_scoring.is_infrastructure(s)]
        if not sessions:
            raise InputError("--exclude-infra: every session ended for an infrastructure reason; nothing to score")
    aligned = (config.get("simulator") or {}).get("name") == "replay"
    spelled = {"mwz_success": True, "mwz_richness": richness, "mwz_bleu": aligned if bleu is None else bleu}
    requests = [metric.MetricRequest(name) for name, on in spelled.items() if on]
    requests += [metric.MetricRequest.parse(m) if isinstance(m, str) else m for m in metrics]
    if scorable_only and not aligned:
        requests = [r for r in requests if not metric.entry(r.name).needs_references]
    not_scored: dict[str, str] = {}
    if not any(export.system_turns(s) for s in sessions):  # every session ended before the system answered
        reason = "no system response in any session (every session ended before the system's first answer)"
        not_scored = {metric.key(r.name): reason for r in requests if metric.key(r.name) != "success"}
        requests = [r for r in requests if metric.key(r.name) == "success"]
    inputs = metric.MetricInputs(
        predictions=export.predictions(sessions),
        sessions=sessions,
        data_dir=context.data_dir,
        resamples=resamples,
        seed=seed,
        settings=EvaluationSettings(chain=chain, per_dialogue=True, delexicalize=delexicalize),
        truth=functools.partial(scoring.session_truth, sessions, aligned=aligned),
        aligned=aligned,
    )
    if warm is None:
        loaded = metric.load_all(requests)
    else:
        loaded = warm.get(tuple(requests)) or warm.setdefault(tuple(requests), metric.load_all(requests))
    results = metric.score(loaded, inputs)
    if read is not None:
        for scored in results.values():  # the responses the joined pass rewrote
            read.update(scored.responses or {})
    shown = metric.presentations(loaded)
    static = metric.assemble({name: r for name, r in results.items() if r.shared}, shown)  # mwzeval's, in one pass
    result = scoring.score_sessions(sessions, static, resamples=resamples, seed=seed)
    if infrastructure or exclude_infra:
        result["infrastructure"] = {
            "ends": infrastructure,
            "sessions": sum(infrastructure.values()),
            "counted": "excluded" if exclude_infra else "as failures",
        }
    bleu_scored = "bleu" in results
    result["signature"] = _signature(
        config, result, resamples=resamples, seed=seed, chain=chain, bleu=bleu_scored, exclude_infra=exclude_infra
    )
    metric.add_to_summary(result, {name: r for name, r in results.items() if not r.shared}, shown)
    if not_scored:
        result["not_scored"] = not_scored
    return result


def _profile_label(simulator: Mapping[str, Any]) -> str:
    """``+terse@1.0.0`` for a simulator playing a profile (nothing for the default user)."""
    profile = simulator.get("profile")
    return f"+{profile['name']}@{profile['version']}" if profile else ""


def _system_label(config: Mapping[str, Any]) -> str:
    """How the run names its system (its registered name, file, URL or factory)."""
    from mwz_metrics.records.header import system_name

    return str(system_name(config) or "?")


def _signature(config: Mapping[str, Any], result: Mapping[str, Any], **options: Any) -> dict[str, Any]:
    from mwz_metrics.signature import Signature, describe_chain, source_checksums

    simulator = config.get("simulator") or {}
    system = config.get("system") or {}
    system_name = _system_label(config)
    if system.get("sha256"):
        system_name += f"@sha256={str(system['sha256'])[:12]}"
    elif system.get("version"):
        system_name += f"@{system['version']}"
    line_options = {
        "simulator": f"{simulator.get('name')}@{simulator.get('version')}" + _profile_label(simulator),
        "system": system_name,
        "seed": config.get("seed"),
        "max_turns": config.get("max_turns"),
        "sessions": result["sessions"],
        "goals": str((config.get("goals") or {}).get("sha256", ""))[:12],
        "bleu": options["bleu"],
        # act level or text level, as ConvLab's with or without NLU (a file from before --user-acts: the acts were sent)
        "user_acts": bool(config.get("user_acts", True)),
    }
    if config.get("trials"):  # sessions per goal (a run of one trial names none)
        line_options["trials"] = config["trials"]
    if result.get("infrastructure"):  # how sessions ended by a timeout or a failure count (only where any did)
        line_options["infra"] = "excluded" if options["exclude_infra"] else "failures"
    if system.get("options"):  # what the factory was made with (--system-option)
        line_options["system_options"] = "+".join(f"{k}~{v}" for k, v in sorted(system["options"].items()))
    if (config.get("environment") or {}).get("reward"):  # a training environment's episode: its reward
        line_options["reward"] = config["environment"]["reward"]
    if system.get("prompt_sha256"):  # an LLM system: its prompt and tools (the model is in its name)
        line_options["prompt"] = str(system["prompt_sha256"])[:12]
    static_options = ((result.get("static_signature") or {}).get("fields") or {}).get("options") or {}
    if "delexicalized" in static_options:  # the sessions' values were read as placeholders
        line_options["delexicalized"] = static_options["delexicalized"]
    data = source_checksums(list((config.get("data") or {}).values()))
    # the files the static scorer read besides (MultiWOZ 2.2 and reference files, for replay's BLEU)
    data.update(((result.get("static_signature") or {}).get("fields") or {}).get("data") or {})
    return Signature.build(
        "mwz_interact",
        model=system.get("model"),
        data=data,
        normalizer=describe_chain(options["chain"]),
        options=line_options,
        details={
            "run": dict(config),
            "bootstrap": {"resamples": options["resamples"], "seed": options["seed"], "level": 0.95},
            "static_signature": result.get("static_signature", {}).get("line"),
        },
    ).as_dict()


def interact(
    system: str,
    *,
    simulator: str = "agenda",
    output: str | Path | None = None,
    resume: bool = False,
    jobs: int = 1,
    metrics: Sequence[Any] = (),
    overwrite: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Run (or resume) and score; returns the result (see :func:`score`)."""
    run = prepare(system, simulator=simulator, **options)
    sessions = run_sessions(run, output=output, resume=resume, jobs=jobs, overwrite=overwrite)
    return score(sessions, run.config, context=run.context, metrics=metrics)


def load_session_file(
    path: str | Path, context: InteractiveContext | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A session file's run configuration and its sessions (an incomplete last line dropped); with
    ``context``, the sessions in goal order (the test set's, each goal's trials in order), not in the
    order they finished: what is scored, intervals included, does not depend on ``-j``."""
    config, sessions = session_files.read(path)
    return config, in_goal_order(sessions, context)


def in_goal_order(sessions: list[dict[str, Any]], context: InteractiveContext | None) -> list[dict[str, Any]]:
    """With ``context``, sessions in the test set's goal order (each goal's trials in order), not in the
    order they finished (what is scored, intervals included, does not depend on ``-j``); else as given."""
    return sessions if context is None else session_files.in_goal_order(sessions, list(context.test))


def load_sessions(path: str | os.PathLike) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The run configuration and sessions of a session file, or of its export as predictions
    (``mwz interact --predictions``); None for a file that is neither (predictions of a system)."""
    if session_files.looks_like_session_file(path):
        return session_files.read(path)
    try:
        raw = Path(path).read_bytes()
    except OSError:
        return None
    if f'"{export.EXPORT_KEY}"'.encode() not in raw:  # the cheap test first: most predictions are not exports
        return None
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None  # the predictions reader says what is wrong with it
    found = export.sessions_of_export(data, str(path))
    if found is not None:
        from mwz_metrics.inputs import read_json

        read_json(path, "predictions")  # a dialogue given twice is refused (json.loads kept the last, silently)
    return found


def to_dataset(source: str | Path | Sequence[Mapping[str, Any]]):
    """A ``datasets.Dataset`` of sessions, one row per session: ``dialogue_id``, ``goal`` (JSON), the
    crowd-worker ``messages`` of its goal, per turn its ``speakers``, ``texts``, ``acts`` and ``states``
    (JSON), its ``end_reason`` and whether it was ``complete``.

    ``source``: a session file's path (or its ``--predictions`` export's), or session records (as
    :func:`load_sessions` gives them); :class:`InputError` for a file that is neither."""
    if isinstance(source, (str, Path)):
        loaded = load_sessions(source)
        if loaded is None:
            raise InputError(f"{source}: neither a session file of mwz interact nor its --predictions export")
        source = loaded[1]
    return export.sessions_dataset(source)

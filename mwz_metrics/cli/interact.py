"""``mwz interact``: a user simulator talks to the system under test; the sessions are scored.

Sessions are appended to a JSONL file as they end (``-o``, default
``mwz-interact-<simulator>-<system>.jsonl``); ``--resume`` continues that file after an
interruption; ``--score-only`` scores a finished file again. See ``docs/interactive/index.md`` for the
protocol and the definition of every figure.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from pathlib import Path
from typing import Any

from mwz_metrics.cli import metrics as metric_flags
from mwz_metrics.cli.registry import command, renamed, write_json
from mwz_metrics.interactive.harness.defaults import DEFAULT_MAX_TURNS

logger = logging.getLogger("mwz.interact")


EXIT_CODES = """exit codes:
  0  the sessions ran (or were resumed) and were scored; failures of the system are counted, not fatal
     (a run where every session failed prints its summary too, with "every session failed")
  2  bad input or configuration (one line on stderr: file, dialogue, option), missing data, an existing
     session file without --resume or --overwrite, a session file another run is writing (named), or
     an interrupt (Ctrl-C: the finished sessions are kept, --resume continues)"""


def _arguments(parser: argparse.ArgumentParser) -> None:
    """Every flag of ``mwz interact``, by group (in ``--help``'s order)."""
    _system_arguments(parser)
    _simulator_arguments(parser)
    _goal_arguments(parser)
    _session_file_arguments(parser)
    _session_arguments(parser)
    _limit_arguments(parser)
    _scoring_arguments(parser)
    _output_arguments(parser)


def _system_arguments(parser: argparse.ArgumentParser) -> None:
    """The system under test and what it is given."""
    parser.add_argument(
        "--system",
        help="the system under test (required but with --score-only -i FILE): a registered name (oracle, oracle-text, oracle-lex, echo, silent, llm), an "
        "http(s):// URL, a predictions file (its turns in order) or package.module:factory (imported from the "
        "current folder first)",
    )
    parser.add_argument(
        "--system-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword argument of the system's factory (repeatable; in the signature)",
    )
    parser.add_argument(
        "--user-acts",
        action="store_true",
        help="give the system the user's dialogue acts (act level; default: the user's words only, text level; "
        "reference systems read them anyway; in the signature)",
    )


def _simulator_arguments(parser: argparse.ArgumentParser) -> None:
    """The simulated user: which, its profiles, options and LLM endpoint."""
    parser.add_argument("--simulator", default="agenda", help="the user simulator: agenda (default), replay, llm")
    parser.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="NAME",
        help="a user profile of the agenda user (terse, eager, fickle, impatient, noisy, multidomain, plugins'): "
        "runs the default user and each profile, and prints Success per profile (repeatable; docs/trials.md, User profiles)",
    )
    parser.add_argument("--profiles", choices=("all",), help="--profile for every registered profile")
    parser.add_argument(
        "--endpoint", help="--system llm / --simulator llm: an OpenAI-compatible base URL (http://localhost:8000/v1)"
    )
    parser.add_argument("--model", help="--system llm / --simulator llm: the model name the endpoint serves")
    parser.add_argument(
        "--simulator-option", action="append", default=[], metavar="KEY=VALUE", help="a simulator option (repeatable)"
    )


def _goal_arguments(parser: argparse.ArgumentParser) -> None:
    """Which test goals the sessions pursue."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--goals", type=int, help="the first N test goals (default: all 1000, or a file's dialogues)")
    which.add_argument("--dialogue", action="append", help="a test dialogue's goal by id (repeatable)")


def _session_file_arguments(parser: argparse.ArgumentParser) -> None:
    """The session file: written, resumed, or only scored."""
    parser.add_argument(
        "-o",
        "--output",
        help="the session file (JSONL) the run writes, appended as sessions end; --resume continues it",
    )
    parser.add_argument(
        "-i", "--input", metavar="FILE", help="with --score-only: the session file (JSONL) to score, as it is"
    )
    parser.add_argument("--resume", action="store_true", help="continue the session file of an interrupted run")
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="with --resume: run again the sessions that ended system_timeout, system_error or simulator_error",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing session file (else refused: --resume continues it)",
    )
    parser.add_argument(
        "--score-only", action="store_true", help="score the session file -i FILE as it is; run nothing"
    )


def _session_arguments(parser: argparse.ArgumentParser) -> None:
    """Each session: seed, trials, length, and how many at once."""
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seeds every session (with its dialogue id and trial; docs/trials.md, Trials)",
    )
    parser.add_argument(
        "--trials",
        type=int,
        default=1,
        metavar="K",
        help="sessions per goal, each with its own seed (1); the figures then give pass^k for k = 1..K",
    )
    parser.add_argument(
        "--max-turns",
        type=int,
        default=DEFAULT_MAX_TURNS,
        help=f"system turns per session at most ({DEFAULT_MAX_TURNS})",
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=1, metavar="N", help="workers: N sessions in flight at once, in threads (1)"
    )


def _limit_arguments(parser: argparse.ArgumentParser) -> None:
    """What a system's requests and answers may take."""
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        help="HTTP and llm systems, the llm simulator: seconds per request, the connection and the whole answer (30)",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=2,
        help="HTTP and llm systems, the llm simulator: retries of a failed request (2)",
    )
    parser.add_argument(
        "--max-answer-bytes",
        type=int,
        default=1_000_000,
        help="an HTTP system's answer at most; a larger one ends the session malformed_response (1000000)",
    )
    parser.add_argument(
        "--max-response-chars",
        type=int,
        default=10_000,
        help="a response's text at most, any system; a longer one ends the session malformed_response (10000)",
    )


def _scoring_arguments(parser: argparse.ArgumentParser) -> None:
    """What is scored and how it is reported."""
    metric_flags.add_arguments(parser, mwzeval=False)  # Inform/Success always; richness, BLEU (replay) by default
    metric_flags.add_delexicalize_argument(parser)
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for the intervals")
    parser.add_argument(
        "--exclude-infra",
        action="store_true",
        help="leave out sessions ended by a system timeout, a system error or a simulator error (default: counted "
        "as failures; in the signature)",
    )
    parser.add_argument(
        "--explain",
        type=int,
        nargs="?",
        const=5,
        metavar="N",
        help="print N (5) failed sessions as transcripts: what failed in each domain, on whose side",
    )
    parser.add_argument(
        "--plan",
        type=float,
        metavar="DIFF",
        help="with this run as the pilot: the goals x trials a comparison needs to detect DIFF points of Success "
        "(80%% power, alpha 0.05; docs/trials.md, Detectable differences)",
    )


def _output_arguments(parser: argparse.ArgumentParser) -> None:
    """What is written besides the table, and the data."""
    parser.add_argument(
        "--predictions",
        help="also write the sessions as mwzeval predictions (JSON; each turn carries the rest of its session "
        'under "mwz", so that mwz evaluate scores the file as these sessions)',
    )
    parser.add_argument(
        "--price",
        metavar="PROMPT[,COMPLETION]",
        help="an LLM's price per million tokens (prompt, completion; one number for both): adds the run's cost",
    )
    parser.add_argument("--result", help="write the full result as JSON")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")


def _given(args: argparse.Namespace) -> Any:
    """The flags that say what the system and the simulator are made with
    (:class:`~mwz_metrics.interactive.harness.options.GivenOptions`)."""
    from mwz_metrics.interactive.harness.options import GivenOptions

    return GivenOptions(
        args.system, args.simulator, args.system_option, args.simulator_option, args.endpoint, args.model
    )


def _default_output(args: argparse.Namespace) -> str:
    """``mwz-interact-SIMULATOR-SYSTEM.jsonl``, SYSTEM the last part of its path (a URL's query, which may
    hold a key, never)."""
    import urllib.parse

    path = args.system
    if path.startswith(("http://", "https://")):  # its path's last part, else its host (never user:password@)
        url = urllib.parse.urlsplit(path)
        path = url.path.rstrip("/") or url.hostname or "http"
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", path.rsplit("/", 1)[-1].removesuffix(".json"))
    return f"mwz-interact-{args.simulator}-{name}.jsonl"


def _progress() -> Any:
    from mwz_plugins.progress import enabled

    if not enabled():
        return None, None
    import sys

    from tqdm import tqdm

    bar = tqdm(desc="sessions", unit="session", file=sys.stderr, leave=False, dynamic_ncols=True)

    def update(done: int, total: int, failed: int) -> None:
        bar.total = total
        bar.n = done
        bar.set_postfix_str(f"{failed} failed", refresh=False)
        bar.refresh()

    return update, bar


@command(
    "interact",
    "interactive evaluation: a user simulator talks to the system under test",
    _arguments,
    exit_codes=EXIT_CODES,
    example="mwz interact --system oracle --simulator agenda -o runs/oracle.jsonl -j 4",
)
def run(args: argparse.Namespace) -> int:
    """Run (or resume, or only score) the sessions and print the scores."""
    from mwz_metrics.inputs import InputError
    from mwz_metrics.interactive.harness import sessions as session_files

    if not args.system and not args.score_only:
        raise InputError("--system is required (only --score-only -i FILE runs without it)")
    output = _session_file(args)
    _check_options(args)
    _check_files(args, output)
    if args.profile or args.profiles:
        from mwz_metrics.cli.interact_profiles import run_profiles

        return run_profiles(args, output, _run_and_score)
    if args.score_only:
        result, config, sessions = _run_and_score(args, output)
        _report(args, result, config, sessions, output)
        return 0
    with session_files.exclusive(output):  # one writer, from the first session to the outcomes
        result, config, sessions = _run_and_score(args, output)
        _report(args, result, config, sessions, output)
    return 0


def _session_file(args: argparse.Namespace) -> str:
    """The session file: the one ``--score-only`` reads (``-i FILE``; ``-o FILE`` until the next release),
    or the one a run writes (``-o``); by default, :func:`_default_output`'s."""
    from mwz_metrics.inputs import InputError

    if args.input and not args.score_only:
        raise InputError(f"-i {args.input} is the session file --score-only reads: add --score-only (a run writes -o)")
    if not args.score_only:
        return args.output or _default_output(args)
    if args.input and args.output:
        raise InputError("--score-only reads -i FILE and writes no session file: leave out -o (--result writes JSON)")
    if args.output:
        renamed("--score-only -o FILE", "--score-only -i FILE")
        return str(args.output)
    if not args.input and not args.system:
        raise InputError("--score-only needs the session file to score: -i FILE")
    return str(args.input or _default_output(args))


def _check_options(args: argparse.Namespace) -> None:
    """Every option that can be checked without running, checked before the first session: a mistake costs
    a second, not a run (profiles, metrics, numbers; the system, the simulator and their endpoints are
    checked as they are made, still before the first session)."""
    import math

    from mwz_metrics import metric
    from mwz_metrics.inputs import InputError

    positive = {"--timeout": args.timeout, "--plan": args.plan, "-j": args.jobs, "--trials": args.trials}
    positive |= {"--max-turns": args.max_turns, "--goals": args.goals, "--explain": args.explain}
    for flag, value in positive.items():
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InputError(f"{flag} {value}: give a positive{' finite' if isinstance(value, float) else ''} number")
    for flag, value in {"--retries": args.retries, "--resamples": args.resamples}.items():
        if value < 0:
            raise InputError(f"{flag} {value}: give a number >= 0")
    if args.price:
        from mwz_metrics.interactive.scoring.report import cost

        cost({}, args.price)  # refuses a malformed price now
    for request in metric_flags.requests(args):
        metric.entry(request.name)
    if args.profile or args.profiles:
        from mwz_metrics.cli.interact_profiles import profile_names
        from mwz_metrics.interactive.harness.loading import load_profile

        for name in profile_names(args):
            load_profile(name, args.simulator)


def _check_files(args: argparse.Namespace, output: str) -> None:
    """Before anything runs: no output names an input (the session file read by --score-only, a predictions
    file the system replays) or another output, under any name."""
    from mwz_metrics.outputs import check_outputs

    system_file = args.system if args.system and Path(args.system).is_file() else None
    written = [("--result", args.result), ("--predictions", args.predictions)]
    if args.score_only:
        check_outputs([output, system_file], written)
    else:
        check_outputs([system_file], [("-o", output), *written])


def _run_and_score(
    args: argparse.Namespace, output: str, profile: str | None = None
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """Run (or resume, or only read) the sessions of ``output`` and score them: (result, configuration, sessions)."""
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.scoring import report

    if args.score_only:
        from mwz_metrics.interactive.harness.context import InteractiveContext

        context = InteractiveContext(data_dir=args.data_dir)
        config, sessions = api.load_session_file(output, context)  # in goal order, whatever -j wrote
    else:
        config, sessions, context = _run_sessions(args, output, profile)
    result = api.score(
        sessions,
        config,
        context=context,
        metrics=metric_flags.requests(args),
        resamples=args.resamples,
        delexicalize=args.delexicalize,
        exclude_infra=args.exclude_infra,
    )
    result["session_file"] = output
    if args.price:
        result["cost"] = report.cost(result.get("tokens") or {}, args.price)
    return result, config, sessions


def _run_sessions(
    args: argparse.Namespace, output: str, profile: str | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
    """Prepare the run, run (or resume) its sessions into ``output``: (configuration, sessions, context)."""
    from mwz_metrics.inputs import InputError
    from mwz_metrics.interactive.harness import api, options

    given = _given(args)
    goals = args.goals if args.goals is not None else args.dialogue
    prepared = api.prepare(
        args.system,
        simulator=args.simulator,
        simulator_options=options.simulator_options(given),
        system_options=options.system_options(given),
        user_acts=args.user_acts,
        goals=goals,
        seed=args.seed,
        max_turns=args.max_turns,
        trials=args.trials,
        profile=profile,
        timeout=args.timeout,
        retries=args.retries,
        data_dir=args.data_dir,
        max_answer_bytes=args.max_answer_bytes,
        max_response_chars=args.max_response_chars,
    )
    if prepared.config["simulator"]["name"] == "replay":  # scored with BLEU: a copy without references fails now
        from mwz_metrics.multiwoz.testset import TestSet

        what = "--simulator replay (its sessions are scored with BLEU)"
        TestSet(data_dir=args.data_dir).check_references([g.dialogue_id for g in prepared.goals], what)
    if not args.resume and args.output is None:
        logger.warning("sessions go to %s (-o to choose)", output)
    update, bar = _progress()
    try:
        sessions = api.run_sessions(
            prepared,
            output=output,
            resume=args.resume,
            jobs=args.jobs,
            progress=update,
            retry_failed=args.retry_failed,
            overwrite=args.overwrite,
        )
    except KeyboardInterrupt:
        raise InputError(f"interrupted: the finished sessions are in {output}; continue with --resume") from None
    finally:
        if bar is not None:
            bar.close()
    return prepared.config, sessions, prepared.context


def _report(
    args: argparse.Namespace, result: dict[str, Any], config: dict[str, Any], sessions: list, output: str
) -> None:
    """Print the table or the JSON, write what was asked (result, predictions, outcomes), explain failures."""
    from mwz_metrics.interactive.harness import sessions as session_files
    from mwz_metrics.interactive.scoring import export, report

    if not args.score_only:
        session_files.add_outcomes(output, result["per_session"])  # per-domain outcomes beside each session
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "per_session"}, indent=2, ensure_ascii=False))
    else:
        print(report.table(result, config))
    if args.plan is not None:
        result["plan"] = report.plan(result, args.plan)
        if not args.json:
            print(report.plan_text(result["plan"]))
    write_json(result, args.result)
    if args.predictions:
        write_json(export.predictions_export(sessions, config), args.predictions)  # mwz evaluate scores it
    if args.explain:
        from mwz_metrics.interactive.scoring.explain import explain

        print()
        print(explain(sessions, result["per_session"], args.explain))

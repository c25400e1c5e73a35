"""``mwz interact --profile NAME`` (or ``--profiles all``): the default user and each profile, side by side.

Each profile runs as its own session file beside ``-o`` (``runs/x.jsonl`` -> ``runs/x.terse.jsonl``),
on the same goals, seeds and trials as the default user's run; the table gives Success per profile
with its interval, and its difference from the default user's, paired by goal and trial (p-value,
and whether the difference is below what this many goals can detect): a robustness profile of the system.

Below the profiles, the run's **robustness** (:func:`mwz_metrics.interactive.scoring.trials.robustness`):
the worst user's Success and the mean over the users, the default user counted among them, with
intervals resampling goals once for all users and their paired difference to the default user. The
signature of the whole names the profile set (``profiles=default+eager@1.0.0+...``). ``--result`` writes
every profile's full result, the robustness and which user broke which sessions; ``--explain`` prints the
latter (:func:`mwz_metrics.interactive.scoring.explain.explain_users`) and some of those sessions.

This module is the adapter: it runs each user and prints; the rows, the result it writes (a
:class:`~mwz_metrics.records.profiles.ProfilesResult`) and the table are :mod:`mwz_metrics.comparison.profiles`
and :mod:`mwz_metrics.comparison.profiles_table`.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable
from typing import Any, cast

from mwz_metrics.comparison.profiles import DEFAULT
from mwz_metrics.records.header import RunConfig
from mwz_metrics.records.result import InteractiveResult
from mwz_metrics.records.session import SessionRecord

logger = logging.getLogger("mwz.interact")

RunAndScore = Callable[[argparse.Namespace, str, "str | None"], tuple[dict[str, Any], dict[str, Any], list[Any]]]
RunScored = tuple[InteractiveResult, RunConfig, list[SessionRecord]]  # what run_and_score returns, as records


def profile_names(args: argparse.Namespace) -> list[str]:
    """The profiles asked for, in order, each once (``--profiles all``: every registered one)."""
    from mwz_metrics.comparison.profiles import profile_names as names

    return names(args.profile, every=args.profiles == "all")


def run_profiles(args: argparse.Namespace, output: str, run_and_score: RunAndScore) -> int:
    """Run (or resume, or score) the default user and every profile; print Success per profile and the
    robustness; write ``--result``; with ``--explain``, which user broke which sessions."""
    from mwz_metrics.cli.registry import write_json
    from mwz_metrics.comparison.inputs import profile_file
    from mwz_metrics.comparison.profiles import UserRun, profiles_result, summary, user_run
    from mwz_metrics.comparison.profiles_table import table

    runs: list[UserRun] = []
    for name in [None, *profile_names(args)]:
        out = output if name is None else str(profile_file(output, name))
        logger.info("user profile %s -> %s", name or DEFAULT, out)
        scored = _run(args, out, name, run_and_score)
        runs.append(user_run(name or DEFAULT, out, scored, runs[0] if runs else None, resamples=args.resamples))
    whole = profiles_result(runs, resamples=args.resamples)
    if args.json:
        print(json.dumps(summary(whole, runs), indent=2, ensure_ascii=False))
    else:
        print(table(runs, whole["robustness"], whole["signature"]))
    write_json(whole, args.result)
    if args.explain:
        from mwz_metrics.comparison.profiles import user_runs
        from mwz_metrics.interactive.scoring.explain import explain_users

        print()
        print(explain_users(user_runs(runs), args.explain, DEFAULT))
    return 0


def _run(args: argparse.Namespace, output: str, profile: str | None, run_and_score: RunAndScore) -> RunScored:
    """One user's run (or its resumption, or its file scored) and its outcomes written into its file."""
    from mwz_metrics.interactive.harness import sessions as session_files

    if args.score_only:
        return cast(RunScored, run_and_score(args, output, profile))
    with session_files.exclusive(output):  # one writer, from the first session to the outcomes
        result, config, sessions = run_and_score(args, output, profile)
        session_files.add_outcomes(output, result["per_session"])
    return cast(RunScored, (result, config, sessions))

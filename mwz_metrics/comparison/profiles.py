"""A run with user profiles, side by side: the default user's run and each profile's on the same goals,
seeds and trials (``mwz interact --profile NAME`` / ``--profiles all``; the CLI runs them, this scores and
shows them).

Each profile's Success is paired with the default user's by goal (and trial); the run's **robustness**
(:func:`mwz_metrics.interactive.scoring.trials.robustness`) is the worst user's and the mean Success over
the users, the default user among them; which user broke which sessions is
:func:`mwz_metrics.interactive.scoring.explain.broken_by_users`. The whole is a
:class:`~mwz_metrics.records.profiles.ProfilesResult`, its signature naming the profile set
(``profiles=default+eager@1.0.0+...``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from mwz_metrics.records.header import RunConfig
from mwz_metrics.records.profiles import PairedRuns, ProfileResult, ProfilesResult, ProfilesSummary, ProfileSummary
from mwz_metrics.records.result import InteractiveResult
from mwz_metrics.records.session import SessionRecord

DEFAULT = "default"  # the default user's name among the profiles
SUMMARY_KEYS = ("success", "inform", "complete", "turns", "sessions", "trials", "end_reasons", "ci95")


@dataclass
class UserRun:
    """One user's scored run: the default user's, or a profile's with its paired difference to it."""

    profile: str
    session_file: str
    result: InteractiveResult
    config: RunConfig
    sessions: list[SessionRecord]
    against_default: PairedRuns | None = None  # None: the default user's own run


def profile_names(asked: Iterable[str], every: bool) -> list[str]:
    """The profiles asked for, in order, each once, the default user left out (``every``: then every
    registered one, by name)."""
    from mwz_plugins import get_registry

    names = list(asked)
    if every:
        names += sorted(get_registry().profiles)
    return list(dict.fromkeys(n for n in names if n != DEFAULT))


def user_run(
    profile: str,
    session_file: str,
    scored: tuple[InteractiveResult, RunConfig, list[SessionRecord]],
    default: UserRun | None,
    *,
    resamples: int,
) -> UserRun:
    """A user's run as ``scored`` (result, configuration, sessions), paired with the ``default`` user's
    run (None: this is the default user's)."""
    from mwz_metrics.comparison.compare import paired_runs

    result, config, sessions = scored
    run = UserRun(profile, session_file, result, config, sessions)
    if default is not None:
        paired = paired_runs(result, default.result, resamples=resamples, seed=0, plan_difference=None)
        run.against_default = cast(PairedRuns, paired)
    return run


def user_runs(runs: Sequence[UserRun]) -> dict[str, tuple[list[SessionRecord], list[Any]]]:
    """user -> (its sessions, their ``per_session``), what :mod:`~mwz_metrics.interactive.scoring.explain`
    reads."""
    return {run.profile: (run.sessions, list(run.result["per_session"])) for run in runs}


def profiles_result(runs: Sequence[UserRun], *, resamples: int) -> ProfilesResult:
    """What ``--result`` holds: every user's full result (``profile``, its figures and sessions, its session
    file, its paired difference to the default user), the ``robustness``, which user broke which sessions
    (``broken``) and the signature naming the profile set."""
    from mwz_metrics.comparison.inputs import profiles_signature
    from mwz_metrics.interactive.scoring.explain import broken_by_users
    from mwz_metrics.interactive.scoring.trials import robustness

    per_user = {run.profile: run.result["per_session"] for run in runs}
    configs: dict[str, Mapping[str, Any]] = {run.profile: run.config for run in runs}
    found = {
        "profiles": [_full(run) for run in runs],
        "robustness": robustness(per_user, resamples=resamples, seed=0, default=DEFAULT),
        "broken": broken_by_users(user_runs(runs), DEFAULT),
        "signature": profiles_signature(runs[0].result["signature"], configs),
    }
    return cast(ProfilesResult, found)


def _full(run: UserRun) -> ProfileResult:
    """A user's entry of ``profiles``: its name first, then its result, its session file, its pairing."""
    entry = {"profile": run.profile, **run.result, "session_file": run.session_file}
    if run.against_default is not None:
        entry["against_default"] = run.against_default
    return cast(ProfileResult, entry)


def summary(whole: ProfilesResult, runs: Sequence[UserRun]) -> ProfilesSummary:
    """What ``--json`` prints: ``whole`` less ``broken``, each user's headline figures, signature lines."""
    return {
        "profiles": [_summary(run) for run in runs],
        "robustness": whole["robustness"],
        "signature": whole["signature"]["line"],
    }


def _summary(run: UserRun) -> ProfileSummary:
    result: Mapping[str, Any] = run.result
    entry = {
        "profile": run.profile,
        "session_file": run.session_file,
        **{k: result[k] for k in SUMMARY_KEYS if k in result},
    }
    if run.against_default is not None:
        entry["against_default"] = run.against_default
    entry["signature"] = result["signature"]["line"]
    return cast(ProfileSummary, entry)

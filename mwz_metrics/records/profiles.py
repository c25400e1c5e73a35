"""The result of a run with user profiles: what ``mwz interact --profile NAME`` (or ``--profiles all``)
writes with ``--result`` (:func:`mwz_metrics.comparison.profiles.profiles_result`), and what it prints
with ``--json`` (:class:`ProfilesSummary`).

Every user's full result (the default user's first), the run's robustness (the worst user's and the mean
Success over the users, the default user among them), which user broke which sessions, and the signature
naming the profile set. Rates and differences are percentage points; ``ci95`` a 95% interval.
"""

from __future__ import annotations

from typing import Any, NotRequired, Required, TypedDict

from mwz_metrics.records.result import InteractiveResult


class PairedFigure(TypedDict):
    """One figure of a user's run against the default user's, paired (``success`` or ``inform``)."""

    difference: float  # this user's figure minus the default user's
    goals: int  # the goals both runs have
    p_value: NotRequired[float]  # the paired bootstrap's (with resamples and more than one goal)
    detectable: NotRequired[float]  # success only: the smallest difference this many goals detects
    below_detectable: NotRequired[bool]  # success only: |difference| < detectable
    plan: NotRequired[dict[str, Any]]  # success only, with --plan: the goals x trials a difference needs


class PairedRuns(TypedDict):
    """A user's run against the default user's (:func:`mwz_metrics.comparison.compare.paired_runs`)."""

    paired_by: str  # "goal", or "goal and trial" in runs of several trials per goal
    success: NotRequired[PairedFigure]  # absent without a goal both runs have
    inform: NotRequired[PairedFigure]


class ProfileResult(InteractiveResult, total=False):
    """One user's full result (an entry of ``profiles``): its name, its run's figures and sessions, its
    session file and, for a profile, its paired difference to the default user."""

    profile: Required[str]  # "default" for the default user
    against_default: PairedRuns  # a profile's only (the default user's entry has none)


class AgainstDefault(TypedDict):
    """A robustness figure minus the default user's Success, paired over the same resamples."""

    difference: float
    ci95: NotRequired[list[float]]  # with resamples and more than one goal
    p_value: NotRequired[float]


class WorstUser(TypedDict):
    """The lowest Success over the users, and who has it (every user in a tie)."""

    value: float
    users: list[str]
    against_default: AgainstDefault
    ci95: NotRequired[list[float]]


class MeanOfUsers(TypedDict):
    """The mean Success over the users, each weighing the same."""

    value: float
    against_default: AgainstDefault
    ci95: NotRequired[list[float]]


class Robustness(TypedDict):
    """The worst user's and the mean Success over the users, the default user among them, over the sessions
    every user has (:func:`mwz_metrics.interactive.scoring.trials.robustness`)."""

    definition: str
    users: list[str]  # the default user first
    default: str
    paired_by: str  # "goal", or "goal and trial"
    goals: int
    sessions: int  # per user
    success: dict[str, float]  # user -> its Success over those sessions
    worst: WorstUser
    mean: MeanOfUsers
    resamples: int
    seed: int
    worst_share: NotRequired[dict[str, float]]  # with intervals: in how many resamples each user was the worst


class BreakReason(TypedDict):
    """Why sessions broke: a reason, how many sessions gave it, the items it named most, their ids."""

    reason: str
    sessions: int
    items: dict[str, int]
    examples: list[str]


class BrokenByUser(TypedDict):
    """The sessions one user broke: solved with the default user and failed with this one, the same goal,
    trial and seed (:func:`mwz_metrics.interactive.scoring.explain.broken_by_users`)."""

    paired: int  # sessions both users have, scored
    broken: int
    fixed: int  # failed with the default user, solved with this one
    ends: dict[str, int]  # how the broken sessions ended
    reasons: list[BreakReason]  # most sessions first


class ProfilesResult(TypedDict):
    """What ``mwz interact --profile NAME --result FILE`` writes."""

    profiles: list[ProfileResult]  # the default user first, then each profile as asked
    robustness: Robustness | None  # None: no goal every user has
    broken: dict[str, BrokenByUser]  # per profile
    signature: dict[str, Any]  # the default user's, naming the profile set (profiles=default+terse@1.0.0)


class ProfileSummary(TypedDict, total=False):
    """One user's line of ``--json``: its headline figures, its paired difference, its signature line."""

    profile: Required[str]
    session_file: Required[str]
    success: float | None
    inform: float | None
    complete: float | None
    turns: float
    sessions: int
    trials: dict[str, Any]
    end_reasons: dict[str, int]
    ci95: dict[str, Any]
    against_default: PairedRuns
    signature: Required[str]


class ProfilesSummary(TypedDict):
    """What ``mwz interact --profile NAME --json`` prints: the result less ``broken``, each user summed up."""

    profiles: list[ProfileSummary]
    robustness: Robustness | None
    signature: str  # the line of the result's signature

"""An environment's run: the simulator, the goals and the run configuration ``mwz interact`` would use.

:func:`prepare` goes through :func:`mwz_metrics.interactive.harness.api.prepare` (the same simulator
loading, options and configuration), then names the agent as the system and the goal split as the
goals, and adds the reward specification: the configuration is what a written session file and the
signature of its scores carry.

The users: one profile (``mwz interact --profile NAME``'s user), ``default`` (or none: the simulator as it
is), or a list of them that an episode draws from (:func:`draw`). Each user has its own simulator and
its own run configuration, the one ``mwz interact --profile NAME`` records (its ``simulator`` names the
profile); a list also goes into every configuration (``environment.profiles``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.harness import api
from mwz_metrics.interactive.harness.context import InteractiveContext
from mwz_metrics.interactive.harness.defaults import DEFAULT_MAX_TURNS, DEFAULT_USER_ACTS
from mwz_metrics.interactive.harness.loading import load_simulator
from mwz_metrics.training import splits
from mwz_metrics.training.records import GoalSplit, RewardSpec

DEFAULT_USER = "default"  # the simulator without a profile (``mwz interact`` without ``--profile``)


def profile_names(profile: str | Sequence[str] | None) -> tuple[str, ...]:
    """The users an environment draws from: one name, a comma-separated list or a sequence of names
    (``default``: no profile; None: the default user). A name listed twice is drawn twice as often."""
    if profile is None:
        return (DEFAULT_USER,)
    names = profile.split(",") if isinstance(profile, str) else list(profile)
    names = [str(n).strip() for n in names if str(n).strip()]
    if not names:
        raise InputError(f"profile {profile!r}: name one user profile at least (or default)")
    return tuple(names)


def draw(names: Sequence[str], session_seed: int) -> str:
    """The user of the session seeded ``session_seed``: one of ``names``, from a generator of its own seeded
    from the session seed (the same seed, the same user; the goals and seeds the environment draws are those
    of an environment with one user)."""
    if len(names) == 1:
        return names[0]
    return names[random.Random(f"mwz-training-profile:{session_seed}").randrange(len(names))]


@dataclasses.dataclass
class User:
    """One user of an environment: its simulator and the run configuration of its sessions."""

    name: str
    factory: Any
    config: dict[str, Any]


@dataclasses.dataclass
class EnvRun:
    """What an environment's episodes share. ``factory`` and ``config``: the first user's (the only one's
    where the environment has one); ``users``: every user by name; ``profiles``: what an episode draws from."""

    context: Any
    factory: Any
    goals: list[UserGoal]
    split: GoalSplit
    config: dict[str, Any]
    reward: RewardSpec
    users: dict[str, User] = dataclasses.field(default_factory=dict)
    profiles: tuple[str, ...] = (DEFAULT_USER,)


def prepare(
    *,
    environment: str,
    system: Mapping[str, Any],
    simulator: str = "agenda",
    simulator_options: Mapping[str, Any] | None = None,
    split: str = "validation",
    goals: int | Sequence[str] | None = None,
    reward: str | RewardSpec = "success",
    max_turns: int = DEFAULT_MAX_TURNS,
    user_acts: bool = DEFAULT_USER_ACTS,
    context: Any = None,
    data_dir: str | None = None,
    profile: str | Sequence[str] | None = None,
) -> EnvRun:
    """The run of an environment whose agent is ``system`` (its identity in the configuration);
    ``profile``: its user (see the module docstring and :func:`profile_names`)."""
    names = profile_names(profile)
    context = context or InteractiveContext(data_dir=data_dir)
    spec = reward if isinstance(reward, RewardSpec) else RewardSpec.parse(reward)
    run = api.prepare(
        "silent",  # a placeholder the agent replaces: only the simulator and the configuration are kept
        simulator=simulator,
        simulator_options=simulator_options,
        goals=1,
        max_turns=max_turns,
        context=context,
        user_acts=user_acts,
    )
    available = splits.goals(context, split)
    if goals is None:
        chosen = list(available.values())
    elif isinstance(goals, int):
        chosen = list(available.values())[:goals]
    else:
        unknown = [g for g in goals if g not in available]
        if unknown:
            raise InputError(f"{len(unknown)} goal(s) not in MultiWOZ 2.1 {split}, e.g. {unknown[:5]}")
        chosen = [available[g] for g in goals]
    if not chosen:
        raise InputError("no goals: the selection is empty")
    ids = ",".join(g.dialogue_id for g in chosen)
    config = dict(run.config)
    config.update(
        system=dict(system),
        user_acts=bool(user_acts),
        goals={"count": len(chosen), "sha256": hashlib.sha256(ids.encode()).hexdigest(), "split": split},
        environment={"id": environment, "reward": spec.text},
        data=context.signature()["sources"],
    )
    if len(names) > 1:  # the users an episode draws from, in every configuration
        config["environment"]["profiles"] = list(names)
    users: dict[str, User] = {}
    for name in dict.fromkeys(names):
        if name == DEFAULT_USER:
            users[name] = User(name, run.simulator, config)
        else:  # the simulator playing the profile, as mwz interact --profile NAME loads it
            factory, identity = load_simulator(simulator, context, simulator_options, name)
            users[name] = User(name, factory, {**config, "simulator": identity})
    first = users[names[0]]
    return EnvRun(
        context, first.factory, chosen, GoalSplit(split, len(chosen)), first.config, spec, users=users, profiles=names
    )

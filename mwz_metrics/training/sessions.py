"""An environment's run: the simulator, the goals and the run configuration ``mwz interact`` would use.

:func:`prepare` goes through :func:`mwz_metrics.interactive.harness.api.prepare` (the same simulator
loading, options and configuration), then names the agent as the system and the goal split as the
goals, and adds the reward specification: the configuration is what a written session file and the
signature of its scores carry.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.harness import api
from mwz_metrics.interactive.harness.context import InteractiveContext
from mwz_metrics.interactive.harness.defaults import DEFAULT_MAX_TURNS, DEFAULT_USER_ACTS
from mwz_metrics.training import splits
from mwz_metrics.training.records import GoalSplit, RewardSpec


@dataclasses.dataclass
class EnvRun:
    """What an environment's episodes share."""

    context: Any
    factory: Any
    goals: list[UserGoal]
    split: GoalSplit
    config: dict[str, Any]
    reward: RewardSpec


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
) -> EnvRun:
    """The run of an environment whose agent is ``system`` (its identity in the configuration)."""
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
    return EnvRun(context, run.simulator, chosen, GoalSplit(split, len(chosen)), config, spec)

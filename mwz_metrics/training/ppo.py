"""PPO on ``mwz/MultiWOZ-SystemActs-v0`` (stable-baselines3; no RL algorithm of our own), warm-started
by imitation: what ``examples/train_policy.py`` runs.

1. **Imitation** (behaviour cloning into the PPO policy network, as ConvLab's MLE policy; see
   :mod:`.imitation`): by default of the validation wizards' own act sets in the training dialogues
   (``teacher="wizards"``), the value head then fitted on the cloned policy's sessions; or of the
   reference rule policy's choices while it plays the training goals (``teacher="reference"``); or
   none (``teacher="none"``, PPO from scratch).
2. **PPO** on validation goals, reward the session's score (mwzeval's Success by default).
3. **The curve**: Success of the deterministic policy on held-out validation goals (never trained on:
   neither their goals nor their wizards' turns) before and after imitation and every ``eval_every``
   PPO steps; the best point's policy is kept.

Everything is seeded (``seed``): the goals drawn, the sessions, the networks.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mwz_metrics.training import imitation, splits
from mwz_plugins.errors import InputError

logger = logging.getLogger(__name__)

GAMMA = 0.99  # PPO's discount, and the imitation returns'


@dataclasses.dataclass
class TrainingOptions:
    """The defaults fit a 2-core CPU in well under 20 minutes."""

    steps: int = 100_000  # PPO environment steps
    seed: int = 0
    teacher: str = "wizards"  # imitated before PPO: "wizards", "reference" or "none" (see .imitation)
    imitation_epochs: int = 20
    value_episodes: int = 300  # wizards: sessions of the cloned policy its value head is fitted on
    imitation_episodes: int = 1500  # reference: sessions it plays
    explore: float = 0.2  # reference: the share of its turns acted at random (labelled with its choice)
    held_out: int = 200  # validation goals kept out of training, for the curve
    eval_every: int = 10_000
    envs: int = 4
    reward: str = "success"
    simulator: str = "agenda"
    split: str = "validation"
    learning_rate: float = 5e-5
    allow_test_goals: bool = False


def _goal_ids(context: Any, options: TrainingOptions) -> tuple[list[str], list[str]]:
    """Training and held-out goal ids of the split."""
    ids = list(splits.goals(context, options.split))
    kept = splits.held_out(options.held_out, len(ids))
    return [g for i, g in enumerate(ids) if i not in kept], [g for i, g in enumerate(ids) if i in kept]


def _env(context: Any, goals: list[str], options: TrainingOptions) -> Any:
    from mwz_metrics.training.system_envs import SystemActsEnv

    return SystemActsEnv(
        context=context, split=options.split, goals=goals, reward=options.reward, simulator=options.simulator
    )


def evaluate(model: Any, env: Any, goals: list[str], seed: int) -> dict[str, float]:
    """Success, Inform and mean reward of the deterministic policy on ``goals`` (one session each)."""
    totals = {"success": 0.0, "inform": 0.0, "reward": 0.0, "turns": 0.0}
    for goal in goals:
        obs, _info = env.reset(seed=seed, options={"goal": goal})
        done, reward, info = False, 0.0, {}
        while not done:
            action = int(model.predict(obs, deterministic=True)[0]) if model is not None else env.action_space.sample()
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        totals["reward"] += reward
        for key in ("success", "inform", "turns"):
            totals[key] += info["figures"][key]
    n = max(len(goals), 1)
    return {
        "success": 100 * totals["success"] / n,
        "inform": 100 * totals["inform"] / n,
        "reward": totals["reward"] / n,
        "turns": totals["turns"] / n,
    }


def _imitate(model: Any, context: Any, goals: list[str], options: TrainingOptions, level: Any) -> str:
    """Behaviour cloning from ``options.teacher`` (see :mod:`.imitation`); what was done, in words."""
    if options.teacher == "wizards":
        if options.split == "test":  # allowed by allow_test_goals; the wizards are validation's even then
            data = imitation.wizard_demonstrations(level, context, "validation")
        else:  # the training goals' own dialogues: the held-out goals' wizards are never seen
            data = imitation.wizard_demonstrations(level, context, options.split, goals)
        accuracy = imitation.clone(model, data, options.imitation_epochs, options.seed)
        said = f"{len(data['actions'])} wizard turns ({100 * float(data['exact']):.1f}% of their act sets in the vocabulary)"
        if options.value_episodes:
            played = imitation.rollouts(
                model, _env(context, goals, options), options.value_episodes, options.seed, GAMMA
            )
            error = imitation.fit_values(model, played, options.imitation_epochs, options.seed)
            said += f"; value head fitted on {len(played['returns'])} turns of {options.value_episodes} sessions (MSE {error:.3f})"
    else:
        data = imitation.reference_demonstrations(
            _env(context, goals, options), options.imitation_episodes, options.explore, options.seed, GAMMA
        )
        accuracy = imitation.clone(model, data, options.imitation_epochs, options.seed)
        said = f"{len(data['actions'])} reference turns of {options.imitation_episodes} sessions"
    return f"{said}, accuracy {100 * accuracy:.1f}%"


def train(
    out: str | Path, options: TrainingOptions, *, context: Any = None, log: Callable[[str], None] = logger.info
) -> dict[str, Any]:
    """Imitation, then PPO; writes ``out/policy.zip`` and ``out/policy.json`` (the curve, the timings,
    the vocabulary, the signature). Returns what ``policy.json`` holds."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from mwz_metrics.interactive.harness.context import InteractiveContext
    from mwz_metrics.training.records import GoalSplit

    if options.teacher not in imitation.TEACHERS:
        raise InputError(f"teacher {options.teacher!r}: one of {', '.join(imitation.TEACHERS)}")
    if GoalSplit(options.split, 0).evaluation and not options.allow_test_goals:
        raise InputError(
            "--split test trains on the evaluation goals, measuring a policy on what it learnt from:"
            " pass --allow-test-goals (allow_test_goals=True) to do it anyway"
        )
    started = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(options.seed)
    torch.set_num_threads(1)
    context = context or InteractiveContext()
    training_goals, held_out = _goal_ids(context, options)
    evaluation_env = _env(context, held_out, options)
    vec = DummyVecEnv([lambda: _env(context, training_goals, options) for _ in range(options.envs)])
    model = PPO(
        "MlpPolicy",
        vec,
        learning_rate=options.learning_rate,
        n_steps=512,
        batch_size=256,
        n_epochs=4,
        gamma=GAMMA,
        clip_range=0.1,
        ent_coef=0.0,
        seed=options.seed,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [256, 256]}},
        verbose=0,
    )
    curve: list[dict[str, Any]] = []
    timings: dict[str, float] = {}

    def point(stage: str, steps: int) -> dict[str, Any]:
        figures = evaluate(model, evaluation_env, held_out, seed=options.seed)
        curve.append({"stage": stage, "ppo_steps": steps, **figures})
        log(
            f"{stage} at {steps} PPO steps: Success {figures['success']:.1f} on {len(held_out)} held-out validation goals"
        )
        return figures

    point("initial", 0)
    if options.teacher != "none":
        t = time.perf_counter()
        imitated = _imitate(model, context, training_goals, options, evaluation_env.level)
        timings["imitation_s"] = time.perf_counter() - t
        log(f"imitation: {imitated}, {timings['imitation_s']:.0f} s")
        point("imitation", 0)
    best = (curve[-1]["success"], 0)
    model.save(out / "policy.zip")
    t = time.perf_counter()
    done = 0
    while done < options.steps:
        chunk = min(options.eval_every, options.steps - done)
        model.learn(total_timesteps=chunk, reset_num_timesteps=False)
        done += chunk
        figures = point("ppo", done)
        if figures["success"] >= best[0]:
            best = (figures["success"], done)
            model.save(out / "policy.zip")
    timings["ppo_s"] = time.perf_counter() - t
    timings["ppo_steps_per_s"] = options.steps / timings["ppo_s"] if timings["ppo_s"] else 0.0
    timings["total_s"] = time.perf_counter() - started
    level = evaluation_env.level
    spec = evaluation_env.run.reward
    meta = {
        "signature": {
            "environment": evaluation_env.environment,
            "act_level": level.identity,
            "reward": spec.as_json(),
            "split": options.split,
            "held_out": len(held_out),
            "training_goals": len(training_goals),
            "simulator": evaluation_env.run.config["simulator"],
            "data": evaluation_env.run.config["data"],
            "options": dataclasses.asdict(options),
            "libraries": _versions(),
        },
        "kept": {"ppo_steps": best[1], "held_out_success": best[0]},
        "curve": curve,
        "timings": timings,
        "vocabulary": [list(k) for k in level.vocabulary],
    }
    (out / "policy.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def _versions() -> dict[str, str]:
    import gymnasium
    import stable_baselines3
    import torch

    from mwz_plugins.version import __version__

    return {
        "mwz-eval": __version__,
        "gymnasium": gymnasium.__version__,
        "stable-baselines3": stable_baselines3.__version__,
        "torch": torch.__version__,
    }

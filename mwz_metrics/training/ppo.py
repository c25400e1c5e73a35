"""PPO on ``mwz/MultiWOZ-SystemActs-v0`` (stable-baselines3; no RL algorithm of our own), warm-started
by imitation: what ``examples/train_policy.py`` runs.

1. **Imitation** (behaviour cloning, as ConvLab's MLE policy): the reference policy's act-level
   choices (``info["expert_action"]``, the wizards' act sets it says) on validation goals, the agent
   sometimes acting at random meanwhile so that it also learns to recover (labels stay the
   reference's); the PPO policy network is trained on them by cross-entropy, its value head on the
   episodes' discounted returns.
2. **PPO** on validation goals, reward the session's score (mwzeval's Success by default).
3. **The curve**: Success of the deterministic policy on held-out validation goals (never trained on)
   before and after imitation and every ``eval_every`` PPO steps; the best point's policy is kept.

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

import numpy as np

from mwz_metrics.training import splits
from mwz_metrics.training.records import RewardSpec

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class TrainingOptions:
    """The defaults fit a 2-core CPU in well under 20 minutes."""

    steps: int = 40_000  # PPO environment steps
    seed: int = 0
    imitation_episodes: int = 1500  # 0: no warm start
    imitation_epochs: int = 20
    explore: float = 0.2  # the share of imitation turns acted at random (labelled with the reference's choice)
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


def demonstrations(env: Any, episodes: int, explore: float, seed: int, gamma: float) -> dict[str, np.ndarray]:
    """Observations, the reference's actions and discounted returns over ``episodes`` sessions."""
    rng = np.random.default_rng(seed)
    observations, actions, returns = [], [], []
    for episode in range(episodes):
        obs, info = env.reset(seed=seed * 100_003 + episode)
        rewards: list[float] = []
        done = False
        while not done:
            observations.append(obs)
            actions.append(info["expert_action"])
            act = int(rng.integers(env.action_space.n)) if rng.random() < explore else info["expert_action"]
            obs, reward, terminated, truncated, info = env.step(act)
            rewards.append(reward)
            done = terminated or truncated
        running, backwards = 0.0, []
        for reward in reversed(rewards):
            running = reward + gamma * running
            backwards.append(running)
        returns += backwards[::-1]
    return {
        "observations": np.asarray(observations, dtype=np.float32),
        "actions": np.asarray(actions, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
    }


def clone(model: Any, data: dict[str, np.ndarray], epochs: int, seed: int, batch: int = 64) -> float:
    """Behaviour cloning into the PPO policy network (and its value head); the last epoch's accuracy."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    generator = np.random.default_rng(seed)
    obs = torch.as_tensor(data["observations"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"])
    accuracy = 0.0
    policy.set_training_mode(True)
    for _epoch in range(epochs):
        order = generator.permutation(len(actions))
        correct = 0
        for start in range(0, len(order), batch):
            index = torch.as_tensor(order[start : start + batch])
            values, log_prob, _entropy = policy.evaluate_actions(obs[index], actions[index])
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), returns[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                chosen = policy.get_distribution(obs[index]).distribution.probs.argmax(dim=1)
                correct += int((chosen == actions[index]).sum())
        accuracy = correct / len(order)
    policy.set_training_mode(False)
    return accuracy


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

    if GoalSplit(options.split, 0).evaluation and not options.allow_test_goals:
        raise ValueError(
            "training on test goals measures a policy on what it learnt from: pass allow_test_goals to do it anyway"
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
        gamma=0.99,
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
    if options.imitation_episodes:
        t = time.perf_counter()
        data = demonstrations(
            _env(context, training_goals, options), options.imitation_episodes, options.explore, options.seed, 0.99
        )
        accuracy = clone(model, data, options.imitation_epochs, options.seed)
        timings["imitation_s"] = time.perf_counter() - t
        log(f"imitation: {len(data['actions'])} turns, accuracy {100 * accuracy:.1f}%, {timings['imitation_s']:.0f} s")
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
    spec = RewardSpec.parse(options.reward)
    meta = {
        "signature": {
            "environment": "mwz/MultiWOZ-SystemActs-v0",
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

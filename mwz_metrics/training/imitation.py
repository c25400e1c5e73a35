"""Imitation for the act level (behaviour cloning, as ConvLab's MLE policy), a warm start for PPO.

Two teachers:

- ``wizards``: what the MultiWOZ 2.1 validation wizards said (:func:`wizard_demonstrations`): each
  wizard turn of the training dialogues, read as a system reads it (the real user's acts, the
  wizard's own earlier acts), labelled with the wizard's act set (the nearest in the vocabulary
  when it has not that one). Their dialogues were not played against the simulator, so no return
  comes with them: the value head is fitted afterwards on the cloned policy's own sessions
  (:func:`rollouts`).
- ``reference``: the reference rule policy's choices while it plays the training goals against the
  simulator (:func:`reference_demonstrations`), the agent sometimes acting at random meanwhile so
  that it also learns to recover (DAgger-like; labels stay the reference's).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from mwz_metrics.interactive.acts import parse_acts
from mwz_metrics.interactive.language.extract import signature
from mwz_metrics.training import wizards
from mwz_metrics.training.act_level import OBSERVATION_SIZE

TEACHERS = ("wizards", "reference", "none")


def wizard_demonstrations(
    level: Any, context: Any, split: str, keys: Iterable[str] | None = None
) -> dict[str, np.ndarray]:
    """Observations and the wizards' act sets (vocabulary indices) of the dialogues of ``split``
    (those of ``keys`` only, if given); ``exact`` is the share of turns whose act set is in the
    vocabulary itself."""
    wanted = None if keys is None else set(keys)
    observations, actions, exact = [], [], 0
    for dialogue in wizards.dialogues(context, split):
        if wanted is not None and dialogue["key"] not in wanted:
            continue
        history = dialogue["history"]
        turn = 0
        for position, entry in enumerate(history):
            if entry["speaker"] != "system":
                continue
            request = {"dialogue_id": dialogue["key"], "turn": turn, "history": history[:position]}
            turn += 1
            if not entry["acts"]:
                continue
            said = (signature(parse_acts(entry["acts"])),)
            exact += said in level.index
            observations.append(level.observe(level.read(request)))
            actions.append(level.nearest(said))
    return {
        "observations": np.asarray(observations, dtype=np.float32).reshape(-1, OBSERVATION_SIZE),
        "actions": np.asarray(actions, dtype=np.int64),
        "exact": np.asarray(exact / max(len(actions), 1)),
    }


def _discounted(rewards: list[float], gamma: float) -> list[float]:
    running, backwards = 0.0, []
    for reward in reversed(rewards):
        running = reward + gamma * running
        backwards.append(running)
    return backwards[::-1]


def reference_demonstrations(env: Any, episodes: int, explore: float, seed: int, gamma: float) -> dict[str, np.ndarray]:
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
        returns += _discounted(rewards, gamma)
    return {
        "observations": np.asarray(observations, dtype=np.float32),
        "actions": np.asarray(actions, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
    }


def rollouts(model: Any, env: Any, episodes: int, seed: int, gamma: float) -> dict[str, np.ndarray]:
    """Observations and discounted returns of the model's own (sampled) sessions: its value head's targets."""
    observations, returns = [], []
    for episode in range(episodes):
        obs, _info = env.reset(seed=seed * 100_003 + 50_000 + episode)
        rewards: list[float] = []
        done = False
        while not done:
            observations.append(obs)
            action = int(model.predict(obs, deterministic=False)[0])
            obs, reward, terminated, truncated, _info = env.step(action)
            rewards.append(reward)
            done = terminated or truncated
        returns += _discounted(rewards, gamma)
    return {
        "observations": np.asarray(observations, dtype=np.float32),
        "returns": np.asarray(returns, dtype=np.float32),
    }


def clone(model: Any, data: dict[str, np.ndarray], epochs: int, seed: int, batch: int = 64) -> float:
    """Behaviour cloning into the PPO policy network (and its value head where ``data`` has returns);
    the last epoch's accuracy."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    generator = np.random.default_rng(seed)
    obs = torch.as_tensor(data["observations"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"]) if "returns" in data else None
    accuracy = 0.0
    policy.set_training_mode(True)
    for _epoch in range(epochs):
        order = generator.permutation(len(actions))
        correct = 0
        for start in range(0, len(order), batch):
            index = torch.as_tensor(order[start : start + batch])
            values, log_prob, _entropy = policy.evaluate_actions(obs[index], actions[index])
            loss = -log_prob.mean()
            if returns is not None:
                loss = loss + 0.5 * torch.nn.functional.mse_loss(values.flatten(), returns[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                chosen = policy.get_distribution(obs[index]).distribution.probs.argmax(dim=1)
                correct += int((chosen == actions[index]).sum())
        accuracy = correct / len(order)
    policy.set_training_mode(False)
    return accuracy


def fit_values(model: Any, data: dict[str, np.ndarray], epochs: int, seed: int, batch: int = 64) -> float:
    """The value head (and its own layers) fitted to ``data``'s returns, the policy left as it is; the last mean squared error."""
    import torch

    policy = model.policy
    parameters = [*policy.mlp_extractor.value_net.parameters(), *policy.value_net.parameters()]
    optimizer = torch.optim.Adam(parameters, lr=1e-3)
    generator = np.random.default_rng(seed)
    obs = torch.as_tensor(data["observations"])
    returns = torch.as_tensor(data["returns"])
    error = 0.0
    policy.set_training_mode(True)
    for _epoch in range(epochs):
        order = generator.permutation(len(returns))
        total = 0.0
        for start in range(0, len(order), batch):
            index = torch.as_tensor(order[start : start + batch])
            loss = torch.nn.functional.mse_loss(policy.predict_values(obs[index]).flatten(), returns[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(index)
        error = total / max(len(order), 1)
    policy.set_training_mode(False)
    return error

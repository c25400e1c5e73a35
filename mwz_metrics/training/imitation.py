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

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from mwz_metrics.interactive.acts import parse_acts
from mwz_metrics.interactive.language.extract import signature
from mwz_metrics.records.turns import is_system
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
            if not is_system(entry):
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


def _session(env: Any, seed: int, choose: Callable[[Any, dict], int], gamma: float) -> tuple[list, list, list]:
    """One session played by ``choose(observation, info)``: its observations, the reference's choice
    at each (``info["expert_action"]``, None where the environment gives none) and discounted returns."""
    obs, info = env.reset(seed=seed)
    observations, labels, rewards = [], [], []
    done = False
    while not done:
        observations.append(obs)
        labels.append(info.get("expert_action"))
        obs, reward, terminated, truncated, info = env.step(choose(obs, info))
        rewards.append(reward)
        done = terminated or truncated
    return observations, labels, _discounted(rewards, gamma)


def reference_demonstrations(env: Any, episodes: int, explore: float, seed: int, gamma: float) -> dict[str, np.ndarray]:
    """Observations, the reference's actions and discounted returns over ``episodes`` sessions."""
    rng = np.random.default_rng(seed)

    def choose(_obs: Any, info: dict) -> int:
        return int(rng.integers(env.action_space.n)) if rng.random() < explore else info["expert_action"]

    observations, actions, returns = [], [], []
    for episode in range(episodes):
        seen, labels, values = _session(env, seed * 100_003 + episode, choose, gamma)
        observations += seen
        actions += labels
        returns += values
    return {
        "observations": np.asarray(observations, dtype=np.float32),
        "actions": np.asarray(actions, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
    }


def rollouts(model: Any, env: Any, episodes: int, seed: int, gamma: float) -> dict[str, np.ndarray]:
    """Observations and discounted returns of the model's own (sampled) sessions: its value head's targets."""

    def choose(obs: Any, _info: dict) -> int:
        return int(model.predict(obs, deterministic=False)[0])

    observations, returns = [], []
    for episode in range(episodes):
        seen, _labels, values = _session(env, seed * 100_003 + 50_000 + episode, choose, gamma)
        observations += seen
        returns += values
    return {
        "observations": np.asarray(observations, dtype=np.float32),
        "returns": np.asarray(returns, dtype=np.float32),
    }


def _epochs(size: int, epochs: int, seed: int, batch: int) -> Iterator[list[Any]]:
    """Per epoch, its minibatches: index tensors of a fresh seeded permutation of ``size`` examples."""
    import torch

    generator = np.random.default_rng(seed)
    for _epoch in range(epochs):
        order = generator.permutation(size)
        yield [torch.as_tensor(order[start : start + batch]) for start in range(0, size, batch)]


def _descend(optimizer: Any, loss: Any) -> None:
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def clone(model: Any, data: dict[str, np.ndarray], epochs: int, seed: int, batch: int = 64) -> float:
    """Behaviour cloning into the PPO policy network (and its value head where ``data`` has returns);
    the last epoch's accuracy."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    obs = torch.as_tensor(data["observations"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"]) if "returns" in data else None
    accuracy = 0.0
    policy.set_training_mode(True)
    for minibatches in _epochs(len(actions), epochs, seed, batch):
        correct = 0
        for index in minibatches:
            values, log_prob, _entropy = policy.evaluate_actions(obs[index], actions[index])
            loss = -log_prob.mean()
            if returns is not None:
                loss = loss + 0.5 * torch.nn.functional.mse_loss(values.flatten(), returns[index])
            _descend(optimizer, loss)
            with torch.no_grad():
                chosen = policy.get_distribution(obs[index]).distribution.probs.argmax(dim=1)
                correct += int((chosen == actions[index]).sum())
        accuracy = correct / max(len(actions), 1)
    policy.set_training_mode(False)
    return accuracy


def fit_values(model: Any, data: dict[str, np.ndarray], epochs: int, seed: int, batch: int = 64) -> float:
    """The value head (and its own layers) fitted to ``data``'s returns, the policy left as it is; the
    last epoch's mean squared error."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(
        [*policy.mlp_extractor.value_net.parameters(), *policy.value_net.parameters()], lr=1e-3
    )
    obs = torch.as_tensor(data["observations"])
    returns = torch.as_tensor(data["returns"])
    error = 0.0
    policy.set_training_mode(True)
    for minibatches in _epochs(len(returns), epochs, seed, batch):
        total = 0.0
        for index in minibatches:
            loss = torch.nn.functional.mse_loss(policy.predict_values(obs[index]).flatten(), returns[index])
            _descend(optimizer, loss)
            total += loss.item() * len(index)
        error = total / max(len(returns), 1)
    policy.set_training_mode(False)
    return error

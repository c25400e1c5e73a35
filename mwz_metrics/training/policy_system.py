"""A policy of ``mwz/MultiWOZ-SystemActs-v0`` as a system of the protocol, so that ``mwz interact``
scores it exactly as the environment played it (the same :class:`~.act_level.ActLevel` reads the
request and says the action); what ``examples/policy_system.py`` makes.

``policy``: a ``policy.zip`` that ``examples/train_policy.py`` wrote (its ``policy.json`` beside it
gives the act vocabulary), ``oracle`` (the reference policy's choice, through the vocabulary) or
``random`` (uniform over the vocabulary, seeded by ``seed``, the dialogue and the turn). The user's
acts must reach it: ``mwz interact --user-acts``.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mwz_metrics.interactive.protocol import SessionEnd
from mwz_metrics.training import act_level


class PolicySystem:
    """An act-level policy answering requests (see the module docstring)."""

    def __init__(self, context: Any, policy: str, *, seed: int = 0) -> None:
        self.kind, self.seed, self.model = policy, seed, None
        # stable-baselines3's predict keeps the action distribution on the policy object: two threads
        # (mwz interact -j N) predicting at once read each other's (167 of 4,000 actions differed)
        self._predicting = threading.Lock()
        self.sha256: str | None = None
        vocabulary = None
        if policy not in ("oracle", "random"):
            path = Path(policy)
            meta_path = path.with_suffix(".json")
            if not path.is_file() or not meta_path.is_file():
                raise FileNotFoundError(
                    f"policy {policy}: expected {path} and {meta_path} (train_policy.py writes both)"
                )
            meta = json.loads(meta_path.read_text())
            if meta["signature"]["act_level"]["version"] != act_level.VERSION:
                raise ValueError(
                    f"policy {policy}: trained on act level {meta['signature']['act_level']['version']}, this is {act_level.VERSION}"
                )
            from stable_baselines3 import PPO

            self.model = PPO.load(path, device="cpu")
            self.sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
            vocabulary = meta["vocabulary"]
            self.kind = "ppo"
        self.level = act_level.ActLevel(context, vocabulary_keys=vocabulary)
        self.name = f"policy-{self.kind}"

    def identity(self) -> dict[str, Any]:
        """What its numbers depend on, for the run's record: the policy (the file's checksum), the act level."""
        played: dict[str, Any] = {"policy": self.kind, "act_level": self.level.identity}
        if self.sha256:
            played["policy_sha256"] = self.sha256
        return played

    def action(self, reading: act_level.Reading) -> int:
        """The policy's action for what it has read."""
        if self.kind == "oracle":
            return self.level.expert_index(reading)
        if self.kind == "random":
            rng = random.Random(f"{self.seed}:{reading.dialogue_id}:{reading.turn}")
            return rng.randrange(len(self.level.vocabulary))
        assert self.model is not None
        observation = self.level.observe(reading)
        with self._predicting:
            return int(self.model.predict(observation, deterministic=True)[0])

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The policy's turn (the act level needs the user's acts: ``--user-acts``)."""
        users = [e for e in request.get("history", ()) if e.get("speaker") == "user"]
        if users and users[-1].get("acts") is None:
            raise SessionEnd(
                "system_error", "an act-level policy reads the user's acts: run mwz interact with --user-acts"
            )
        reading = self.level.read(request)
        return self.level.turn(reading, self.level.vocabulary[self.action(reading)])

"""``mwz/MultiWOZ-User-v0``: the agent plays the user against a system under test (any ``--system``
``mwz interact`` takes), rewarded by the same scoring (Cheng et al. trained their simulator so).

The session is the runner's (:func:`~mwz_metrics.interactive.harness.runner.run_session`), in a
thread of its own whose simulated user is the agent: its user turns wait for the agent's actions,
and each system turn comes back as the observation. Observation: text (the goal's messages at
``reset``, then the system's responses); action: a user turn, plain text or
``{"text", "acts"?, "final"?, "booked"?}`` (``final``: the user's last turn; ``booked``: the domains
whose booking the user has asked for, by default the goal's booking domains its acts have named).
An action the environment does not take is refused before the session moves (see :class:`UserEnv`).
"""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Mapping, Sequence
from typing import Any, cast

import gymnasium

from mwz_metrics.interactive.acts import Act, parse_acts
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.harness.defaults import DEFAULT_MAX_TURNS
from mwz_metrics.interactive.harness.loading import load_system
from mwz_metrics.interactive.harness.runner import run_session
from mwz_metrics.interactive.protocol import SystemTurn
from mwz_metrics.interactive.user.base import SimulatorFactory, UserSimulator, UserTurn
from mwz_metrics.interactive.vocabulary import BOOK_SLOTS
from mwz_metrics.records.session import end_reason
from mwz_metrics.training.records import RewardSpec
from mwz_metrics.training.scorer import EpisodeScorer
from mwz_metrics.training.sessions import prepare
from mwz_metrics.training.system_envs import CHARSET, MAX_TEXT, _shown, refuse, text_refusal

USER_ID = "mwz/MultiWOZ-User-v0"
VERSION = "1.0.0"
_STOP = object()  # ends a session whose episode was abandoned (reset, close)


class _Abandoned(Exception):
    """The episode was reset or closed while its session waited for the agent."""


class _AgentUser(UserSimulator):
    """The agent's actions as a simulated user."""

    def __init__(self, goal: UserGoal, actions: queue.Queue, events: queue.Queue) -> None:
        self.goal, self.actions, self.events = goal, actions, events
        self.booked: set[str] = set()
        self.wanted = {d.domain for d in goal.domains if d.book}

    def _turn(self) -> UserTurn:
        action = self.actions.get()
        if action is _STOP:
            raise _Abandoned("the episode was abandoned")
        data = {"text": action} if isinstance(action, str) else dict(action)
        acts: tuple[Act, ...] | None = tuple(parse_acts(data["acts"])) if data.get("acts") is not None else None
        if data.get("booked") is not None:
            self.booked = set(data["booked"])
        elif acts is not None:
            self.booked |= {
                a.domain
                for a in acts
                if a.domain in self.wanted and (a.slot in BOOK_SLOTS.get(a.domain, ()) or a.slot == "ref")
            }
        else:
            self.booked = set(self.wanted)
        return UserTurn(str(data.get("text", "")), acts, bool(data.get("final", False)), tuple(sorted(self.booked)))

    def start(self) -> UserTurn:
        return self._turn()

    def observe(self, turn: SystemTurn) -> list[Act]:
        self.events.put(("system", turn))
        return list(turn.acts or ())

    def next_turn(self) -> UserTurn:
        return self._turn()


class _AgentFactory(SimulatorFactory):
    name = "agent"
    version = VERSION

    def __init__(self) -> None:
        self.actions: queue.Queue = queue.Queue()
        self.events: queue.Queue = queue.Queue()

    def session(self, goal: UserGoal, rng: random.Random) -> UserSimulator:
        return _AgentUser(goal, self.actions, self.events)


class UserEnv(gymnasium.Env):
    """The agent plays the user (see the module docstring); ``system``: what ``mwz interact --system`` takes.

    Action: a user turn, plain text or the dict ``{"text", "acts"?, "final"?, "booked"?}``. Plain text
    must be in ``action_space`` (Gymnasium's ``Text``: at most
    :data:`~mwz_metrics.training.system_envs.MAX_TEXT` (4096) characters of
    :data:`~mwz_metrics.training.system_envs.CHARSET`, printable ASCII and the Latin-1 letters); text
    outside it and anything neither text nor a mapping is refused
    (:class:`~mwz_metrics.training.system_envs.ActionError`, a ``ValueError``) before it reaches the
    session, which waits for the next action as before (before, such text was passed on, and a
    non-text action ended the session as ``simulator_error``). The dict is outside the space and taken
    as it was: text the space does not hold goes there.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        *,
        system: str = "oracle",
        system_options: Mapping[str, str] | None = None,
        split: str = "validation",
        goals: int | Sequence[str] | None = None,
        reward: str | RewardSpec = "success",
        max_turns: int = DEFAULT_MAX_TURNS,
        context: Any = None,
        data_dir: str | None = None,
    ) -> None:
        self.run = prepare(
            environment=USER_ID,
            system={"name": system},
            split=split,
            goals=goals,
            reward=reward,
            max_turns=max_turns,
            context=context,
            data_dir=data_dir,
        )
        loaded = load_system(system, self.run.context, options=system_options)
        self.system, self.system_name = loaded.system, loaded.name
        self.run.config.update(system=loaded.identity, simulator={"name": "agent", "version": VERSION, "options": {}})
        self.scorer = EpisodeScorer(self.run.config, self.run.context, self.run.reward)
        self.by_id = {g.dialogue_id: g for g in self.run.goals}
        self.observation_space = gymnasium.spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self.action_space = gymnasium.spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self.factory: _AgentFactory | None = None
        self.thread: threading.Thread | None = None
        self.goal: UserGoal | None = None
        self.session_seed = 0

    def _stop(self) -> None:
        if self.thread is not None and self.thread.is_alive() and self.factory is not None:
            self.factory.actions.put(_STOP)
            self.thread.join()
        self.thread = None

    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None) -> tuple[str, dict]:
        """A goal (``options["goal"]`` or drawn); the observation is its messages."""
        super().reset(seed=seed)
        self._stop()
        goal_id = (options or {}).get("goal")
        if goal_id is not None and goal_id not in self.by_id:
            raise ValueError(f"goal {goal_id!r} is not among this environment's {self.run.split.split} goals")
        self.goal = (
            self.by_id[goal_id]
            if goal_id is not None
            else self.run.goals[int(self.np_random.integers(len(self.run.goals)))]
        )
        self.session_seed = int(seed) if seed is not None else int(self.np_random.integers(2**31))
        factory = self.factory = _AgentFactory()
        goal, config = self.goal, self.run.config

        def play() -> None:
            record = run_session(
                goal,
                factory,
                self.system,
                seed=self.session_seed,
                max_turns=config["max_turns"],
                user_acts=True,
                name=self.system_name,
            )
            factory.events.put(("end", record))

        self.thread = threading.Thread(target=play, daemon=True, name=f"mwz-user-env-{goal.dialogue_id}")
        self.thread.start()
        return _shown(" ".join(goal.messages)), self._info()

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        """The agent's user turn; the system's answer (the score at the end)."""
        if self.factory is None or self.thread is None:
            raise RuntimeError("step() after the episode ended: call reset()")
        why = text_refusal(action, cast(gymnasium.spaces.Text, self.action_space))
        if why is not None:
            raise refuse(f"{type(self).__name__}.step", action, self.action_space, why)
        self.factory.actions.put(action)
        kind, payload = self.factory.events.get()
        if kind == "system" and not (isinstance(action, Mapping) and action.get("final")):
            return _shown(payload.response), 0.0, False, False, {**self._info(), "system_turn": payload.record()}
        while kind != "end":
            kind, payload = self.factory.events.get()
        self.thread.join()
        self.thread = None
        self.factory = None
        reward, scored = self.scorer.reward(payload)
        reason = end_reason(payload)
        truncated = reason == "max_turns"
        info = {**self._info(), "session": payload, "end": reason, **scored}
        return "", reward, not truncated, truncated, info

    def _info(self) -> dict[str, Any]:
        assert self.goal is not None
        return {
            "dialogue_id": self.goal.dialogue_id,
            "goal": self.goal.as_json(),
            "split": self.run.split.split,
            "evaluation": self.run.split.evaluation,
            "reward_spec": self.run.reward.as_json(),
            "session_seed": self.session_seed,
            "system": self.system_name,
        }

    def close(self) -> None:
        """Abandon a session still waiting for the agent."""
        self._stop()
        super().close()

"""The environments whose agent plays the system: in text (``mwz/MultiWOZ-System-v0``) and in
dialogue acts (``mwz/MultiWOZ-SystemActs-v0``, see :mod:`.act_level`).

An episode is one session of the runner (:class:`~mwz_metrics.interactive.harness.runner.SteppedSession`,
the loop ``mwz interact`` runs): ``reset(seed=S, options={"goal": ID})`` starts the simulator on the
goal with the session seed ``S`` (``mwz interact --seed S``), each ``step`` hands the agent's system
turn to it, and the last step's reward is the session's score under the reward specification
(:class:`~.records.RewardSpec`, mwzeval's Success by default). ``terminated``: the session ended
(the user said goodbye and was answered, a malformed turn, the simulator failed); ``truncated``:
the turn limit.

The user: ``profile`` is one registered user profile (``"terse"``, ``"population"``...: the user of
``mwz interact --profile NAME``), ``"default"`` (the default, the simulator without a profile), or a list
of them (or ``"default,terse,impatient"``): each episode then plays one of them, drawn from the session
seed (:func:`~.sessions.draw`: the same seed, the same user), or the one ``options["profile"]`` names.
``info["profile"]`` names the episode's user; its session is scored under the configuration
``mwz interact --profile NAME`` records, so the signature names the profile (``agenda@2.1.0+terse@1.0.0``).

A step's action is checked before anything of the episode moves, as Gymnasium's environments check
theirs (``action_space.contains``): an action the environment does not take raises
:class:`ActionError` (an :class:`~mwz_metrics.inputs.InputError`, so a ``ValueError``) naming the
environment, the action and the space, and the episode stays where it was.
"""

from __future__ import annotations

import reprlib
import string
from collections.abc import Mapping, Sequence
from typing import Any, cast

import gymnasium
import numpy as np

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.harness.defaults import DEFAULT_MAX_TURNS, DEFAULT_USER_ACTS
from mwz_metrics.interactive.harness.runner import SteppedSession
from mwz_metrics.records.session import end_reason
from mwz_metrics.training import act_level
from mwz_metrics.training.records import RewardSpec
from mwz_metrics.training.scorer import EpisodeScorer
from mwz_metrics.training.sessions import draw, prepare

TEXT_ID = "mwz/MultiWOZ-System-v0"
ACTS_ID = "mwz/MultiWOZ-SystemActs-v0"
MAX_TEXT = 4096
# Gymnasium's Text space holds a fixed character set: printable ASCII and Latin-1 letters (anything
# else in a user's turn is shown as "?" in the observation; info["history"] has the exact text).
CHARSET = string.printable + "".join(chr(c) for c in range(0xC0, 0x100))
_CHARS = frozenset(CHARSET)
_CHARSET_NAME = "printable ASCII and U+00C0-U+00FF"
_SHORT = reprlib.Repr()  # an action in a message: long text cut
_SHORT.maxstring = _SHORT.maxother = 60


def _shown(text: str) -> str:
    return "".join(c if c in _CHARS else "?" for c in text[:MAX_TEXT])


class ActionError(InputError):
    """A step's action that is not in the environment's action space: refused before the episode moves."""


def _space_name(space: gymnasium.Space) -> str:
    if isinstance(space, gymnasium.spaces.Text) and space.character_set == _CHARS:
        return f"Text({space.min_length}, {space.max_length}, charset={_CHARSET_NAME})"  # its repr lists them all
    return repr(space)


def refuse(where: str, action: Any, space: gymnasium.Space, why: str) -> ActionError:
    """The error for an action ``space`` does not hold (``where``: ``Class.step``; ``why``: in what)."""
    return ActionError(f"{where}: action {_SHORT.repr(action)} is not in {_space_name(space)} ({why})")


def index_refusal(action: Any, space: gymnasium.spaces.Discrete) -> str | None:
    """Why an index action is refused (None: it is in ``space``, as ``space.contains`` says: an int, a
    numpy integer scalar or 0-d integer array, what stable-baselines3's ``predict`` returns), bools
    refused too (``Discrete.contains(True)`` is true: ``bool`` is an ``int``)."""
    if isinstance(action, (bool, np.bool_)):
        return "a bool, not an index"
    if space.contains(action):
        return None
    if isinstance(action, (int, np.integer)) or (isinstance(action, np.ndarray) and action.shape == ()):
        if isinstance(action, np.ndarray) and not np.issubdtype(action.dtype, np.integer):
            return f"an array of {action.dtype}, not of integers"
        if int(space.start) <= int(action) < int(space.start + space.n):
            return f"{np.asarray(action).dtype} does not cast to the space's {space.dtype}"
        return f"not an index {int(space.start)} to {int(space.start + space.n) - 1}"
    if isinstance(action, np.ndarray):
        return f"an array of shape {action.shape}, not one index"
    return f"type {type(action).__name__}, not an integer index"


def text_refusal(action: Any, space: gymnasium.spaces.Text) -> str | None:
    """Why a text action is refused (None: a mapping, the protocol's turn, which the session checks, or
    text ``space`` holds); the check is ``space.contains``, the reason worked out only for a refusal."""
    if isinstance(action, Mapping) or space.contains(action):
        return None
    if not isinstance(action, str):
        return f"type {type(action).__name__}, neither text nor the protocol's dict"
    if not space.min_length <= len(action) <= space.max_length:
        return f"{len(action)} characters, over {space.max_length}: longer text goes in the protocol's dict"
    bad = next(c for c in action if c not in space.character_set)
    return f"character {bad!r} (U+{ord(bad):04X}) is not in the charset: such text goes in the protocol's dict"


class _Agent:
    """The system of the session: whatever the agent's last action was."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.pending: Any = None

    def respond(self, request: Mapping[str, Any]) -> Any:
        return self.pending


class SystemTextEnv(gymnasium.Env):
    """The agent plays the system in text (see the module docstring).

    Observation: the user's last turn (text). Action: a system turn, the protocol's dict
    (``{"response", "state"?, "active_domains"?, "acts"?}``) or plain text. Plain text must be in
    ``action_space`` (Gymnasium's ``Text``: at most :data:`MAX_TEXT` (4096) characters of
    :data:`CHARSET`, printable ASCII and the Latin-1 letters); text outside it and anything neither
    text nor a mapping is refused (:class:`ActionError`, the episode unchanged; before, such text was
    passed on, and a non-text action ended the session as ``malformed_response``). The dict is the
    protocol's turn, outside the space and checked as ``mwz interact`` checks a system's (a malformed
    turn, or a response over :data:`~mwz_metrics.interactive.protocol.MAX_RESPONSE_CHARS` characters,
    ends the session as ``malformed_response``): text the space does not hold goes there. ``info``: the protocol
    request (``dialogue_id``, ``turn``, ``history``, as ``mwz interact`` sends it), the goal, the goal
    split, the reward specification, the session seed and the user (``profile``, see the module
    docstring); at the end the session record, its figures and the signature of its score.

    ``split``: ``validation`` (training goals, the default) or ``test`` (evaluation goals:
    ``info["evaluation"]`` is True). ``goals``: a count or ids of that split. ``user_acts``: the user's
    acts appear in ``info["history"]`` (``mwz interact --user-acts``). ``profile``: the user, one profile
    or a list an episode draws from (see the module docstring).
    """

    metadata = {"render_modes": ["ansi"]}
    environment = TEXT_ID

    def __init__(
        self,
        *,
        simulator: str = "agenda",
        simulator_options: Mapping[str, Any] | None = None,
        split: str = "validation",
        goals: int | Sequence[str] | None = None,
        reward: str | RewardSpec = "success",
        max_turns: int = DEFAULT_MAX_TURNS,
        user_acts: bool = DEFAULT_USER_ACTS,
        context: Any = None,
        data_dir: str | None = None,
        render_mode: str | None = None,
        profile: str | Sequence[str] | None = None,
    ) -> None:
        self.render_mode = render_mode
        self.run = prepare(
            environment=self.environment,
            system=self._identity(),
            simulator=simulator,
            simulator_options=simulator_options,
            split=split,
            goals=goals,
            reward=reward,
            max_turns=max_turns,
            user_acts=user_acts or self._needs_user_acts(),
            context=context,
            data_dir=data_dir,
            profile=profile,
        )
        self.by_id = {g.dialogue_id: g for g in self.run.goals}
        warm: dict[Any, Any] = {}  # the metrics loaded once for every user's scorer
        self.scorers = {
            name: EpisodeScorer(user.config, self.run.context, self.run.reward, warm=warm)
            for name, user in self.run.users.items()
        }
        self.scorer = self.scorers[self.run.profiles[0]]
        self.agent = _Agent(str(self._identity()["name"]))
        self.steps: SteppedSession | None = None
        self.session_seed = 0
        self.profile = self.run.profiles[0]  # the episode's user
        self._spaces()

    # -- what differs between the text and the act level -------------------------------------

    def _identity(self) -> dict[str, Any]:
        return {"name": "agent", "environment": self.environment}

    def _needs_user_acts(self) -> bool:
        return False

    def _spaces(self) -> None:
        self.observation_space = gymnasium.spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self.action_space = gymnasium.spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)

    def _refusal(self, action: Any) -> str | None:
        """Why ``action`` is refused (None: it is taken)."""
        return text_refusal(action, cast(gymnasium.spaces.Text, self.action_space))

    def _turn(self, action: Any) -> Any:
        """The protocol turn an action stands for."""
        return {"response": action} if isinstance(action, str) else action

    def _observation(self, request: Mapping[str, Any] | None) -> Any:
        if request is None:
            return ""
        return _shown(str(request["history"][-1].get("text", "")))

    # -- Gymnasium ---------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None) -> tuple[Any, dict]:
        """Start a session: ``options["goal"]`` (an id of the split) or a goal drawn from the split;
        the session seed is ``seed`` (as ``mwz interact --seed``), else drawn; the user is
        ``options["profile"]`` (one of the environment's), else drawn from the session seed."""
        super().reset(seed=seed)
        options = dict(options or {})
        goal_id = options.get("goal")
        if goal_id is not None:
            if goal_id not in self.by_id:
                raise ValueError(f"goal {goal_id!r} is not among this environment's {self.run.split.split} goals")
            goal = self.by_id[goal_id]
        else:
            goal = self.run.goals[int(self.np_random.integers(len(self.run.goals)))]
        self.session_seed = int(seed) if seed is not None else int(self.np_random.integers(2**31))
        profile = options.get("profile")
        if profile is None:
            profile = draw(self.run.profiles, self.session_seed)
        elif profile not in self.run.users:
            raise ValueError(f"profile {profile!r} is not among this environment's users ({', '.join(self.run.users)})")
        self.profile = str(profile)
        self.scorer = self.scorers[self.profile]
        self.steps = SteppedSession(
            goal,
            self.run.users[self.profile].factory,
            self.agent,
            seed=self.session_seed,
            max_turns=self.run.config["max_turns"],
            user_acts=self.run.config["user_acts"],
            name=self.agent.name,
        )
        request = None if self.steps.done else self.steps.request()
        return self._observation(request), self._info(request)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """The agent's system turn; the user's next turn, the reward (the score at the end), whether it ended."""
        if self.steps is None or self.steps.done:
            raise RuntimeError("step() after the episode ended: call reset()")
        why = self._refusal(action)
        if why is not None:
            raise refuse(f"{type(self).__name__}.step", action, self.action_space, why)
        self.agent.pending = self._turn(action)
        self.steps.step()
        if not self.steps.done:
            request = self.steps.request()
            return self._observation(request), 0.0, False, False, self._info(request)
        return self._finish()

    def _finish(self) -> tuple[Any, float, bool, bool, dict]:
        assert self.steps is not None
        session = self.steps.record()
        reward, scored = self.scorer.reward(session)
        reason = end_reason(session)
        truncated = reason == "max_turns"
        info = self._info(None)
        info.update(session=session, end=reason, **scored)
        return self._observation(None), reward, not truncated, truncated, info

    def _info(self, request: Mapping[str, Any] | None) -> dict[str, Any]:
        assert self.steps is not None
        goal = self.steps.session.goal
        info: dict[str, Any] = {
            "dialogue_id": goal.dialogue_id,
            "goal": goal.as_json(),
            "split": self.run.split.split,
            "evaluation": self.run.split.evaluation,
            "reward_spec": self.run.reward.as_json(),
            "session_seed": self.session_seed,
            "profile": self.profile,
        }
        if request is not None:
            info.update(request)
        return info

    def render(self) -> str | None:
        """The session so far, one turn a line (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self.steps is None:
            return None
        return "\n".join(f"{t['speaker']}: {t['text']}" for t in self.steps.session.turns)


class SystemActsEnv(SystemTextEnv):
    """The agent plays the system in dialogue acts (ConvLab's vector environment): the observation a
    vector and the action an index into the wizards' act sets, both described by :mod:`.act_level`
    (``info["expert_action"]`` is the reference policy's choice, for imitation).

    Action space: ``Discrete(300)`` (the vocabulary's size). An action is an index in it: an ``int``,
    a numpy integer scalar or a 0-d integer array (what stable-baselines3's ``predict`` returns), as
    ``action_space.contains`` takes them; a bool, a float, a string, an array of another shape or an
    index out of range is refused (:class:`ActionError`, the episode unchanged; before, a negative
    index counted from the end, ``True``, ``"12"`` and ``3.7`` were read as indices and 300 raised
    ``IndexError``)."""

    environment = ACTS_ID
    level: act_level.ActLevel  # made with the spaces, once the run's context is there

    def _identity(self) -> dict[str, Any]:
        return {"name": "agent", "environment": self.environment, "act_level": act_level.VERSION}

    def _needs_user_acts(self) -> bool:
        return True  # the vector is read from the user's acts (act level, as ConvLab's)

    def _spaces(self) -> None:
        self.level = act_level.ActLevel(self.run.context)
        size = act_level.OBSERVATION_SIZE
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(len(self.level.vocabulary))
        self._reading: act_level.Reading | None = None

    def _observation(self, request: Mapping[str, Any] | None) -> Any:
        if request is None:
            self._reading = None
            return np.zeros(act_level.OBSERVATION_SIZE, dtype=np.float32)
        self._reading = self.level.read(request)
        return self.level.observe(self._reading)

    def _refusal(self, action: Any) -> str | None:
        return index_refusal(action, cast(gymnasium.spaces.Discrete, self.action_space))

    def _turn(self, action: Any) -> Any:
        assert self._reading is not None
        return self.level.turn(self._reading, self.level.vocabulary[int(action)])

    def _info(self, request: Mapping[str, Any] | None) -> dict[str, Any]:
        info = super()._info(request)
        if request is not None and self._reading is not None:
            info["expert_action"] = self.level.expert_index(self._reading)
        return info

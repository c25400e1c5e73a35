"""``replay``: the annotated user turns of the test dialogue, in order, whatever the system says.

With a system that returns a predictions file's turns, a replayed session is exactly that
file's dialogue, and ``mwz interact`` reproduces ``mwz evaluate`` on it (the bridge between the
two settings). The user's acts are the 2.1 annotations, so reference systems can read them;
``booked`` is the dialogue's own booked domains at each system turn, as mwzeval reads them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from mwz_metrics.interactive.acts import Act, parse_acts
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.protocol import SystemTurn
from mwz_metrics.interactive.user.base import SimulatorFactory, UserSimulator, UserTurn
from mwz_metrics.interactive.user.reader import ReaderContext, SystemActReader


class ReplayUser(UserSimulator):
    """Replays one test dialogue's user turns (one per system turn of the dialogue)."""

    def __init__(self, goal: UserGoal, gold: Mapping[str, Any], reader: SystemActReader) -> None:
        self.goal = goal
        self.reader = reader
        self.count = int(gold["system_turns"])
        self.users = list(gold["user_turns"])[: self.count]
        self.booked = [tuple(b) for b in gold["booked"]]
        self.index = 0

    def _turn(self) -> UserTurn:
        entry = self.users[self.index]
        return UserTurn(
            entry["text"],
            tuple(parse_acts(entry["acts"])),
            final=self.index >= self.count - 1,
            booked=self.booked[self.index],
        )

    def start(self) -> UserTurn:
        """The dialogue's first user turn."""
        return self._turn()

    def observe(self, turn: SystemTurn) -> list[Act]:
        """The system's acts, else the reader's (recorded; the replay does not react)."""
        if turn.acts is not None:
            return list(turn.acts)
        acts = parse_acts(self.users[self.index]["acts"])
        domains = [a.domain for a in acts if a.domain not in ("general", "booking")]
        context = ReaderContext(domains[0] if domains else "none", frozenset(), frozenset(a.slot for a in acts))
        return self.reader.read(turn.response, context)

    def next_turn(self) -> UserTurn:
        """The next annotated user turn."""
        self.index += 1
        return self._turn()


class ReplayFactory(SimulatorFactory):
    """Replays the test set's annotated user turns."""

    name = "replay"

    def __init__(self, context: Any) -> None:
        self.context = context

    def session(self, goal: UserGoal, rng: random.Random) -> ReplayUser:
        """The replay of ``goal``'s dialogue."""
        return ReplayUser(goal, self.context.test[goal.dialogue_id], self.context.reader)


def make(context: Any, **options: Any) -> ReplayFactory:
    """The ``replay`` simulator (its plugin entry's loader)."""
    if options:
        raise ValueError(f"the replay simulator takes no options, got {sorted(options)}")
    return ReplayFactory(context)

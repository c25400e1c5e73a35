"""What a user simulator is, for the session runner and for plugins that add one.

A simulator plugin registers a :class:`~mwz_plugins.UserSimulatorEntry` whose loader is a
callable ``make(context, **options)`` returning a :class:`SimulatorFactory`. The runner asks the
factory for one :class:`UserSimulator` per goal, with a random generator seeded from the run's
seed and the dialogue id (so a session does not depend on which others run beside it), then:

1. ``start()`` gives the first user turn;
2. after each system turn, ``observe(turn)`` reads it (and returns the acts it understood);
3. unless the last user turn was ``final``, ``next_turn()`` gives the next user turn.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Mapping
from typing import Any

from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.records.acts import Act
from mwz_metrics.records.turns import SystemTurn
from mwz_metrics.records.turns import UserTurn as UserTurn  # a record: re-exported where simulators find it


class UserSimulator(abc.ABC):
    """One simulated user pursuing one goal."""

    goal: UserGoal

    @abc.abstractmethod
    def start(self) -> UserTurn:
        """The first user turn."""

    @abc.abstractmethod
    def observe(self, turn: SystemTurn) -> list[Act]:
        """Read a system turn; the acts understood (the system's own when it sent them)."""

    @abc.abstractmethod
    def next_turn(self) -> UserTurn:
        """The user's answer to the turns observed so far."""

    def complete(self) -> bool | None:
        """Whether the goal is fulfilled as the user sees it (None: the simulator cannot tell)."""
        return None

    def details(self) -> dict[str, Any]:
        """Anything worth keeping in the session record (e.g. the domains given up on)."""
        return {}


class SimulatorFactory(abc.ABC):
    """Makes the simulated user of each goal; shared resources are loaded once."""

    name: str = "simulator"  # its version is its registry entry's (mwz_register_user_simulators)
    # Whether its users send their dialogue acts with their words (a reference system reads those; one
    # that writes words only pairs with a system that reads words).
    sends_user_acts: bool = True

    @abc.abstractmethod
    def session(self, goal: UserGoal, rng: random.Random) -> UserSimulator:
        """A new simulated user for ``goal``."""

    def options(self) -> Mapping[str, Any]:
        """The options that shape the sessions (they go into the run's signature)."""
        return {}

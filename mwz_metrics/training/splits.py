"""Goals by split: training goals from MultiWOZ 2.1 validation, evaluation goals from test.

No MultiWOZ train split is read (the house rule: anything learnt comes from validation, anything
measured from test). Validation goals are built like the test goals of
:class:`~mwz_metrics.interactive.harness.context.InteractiveContext` (the same
:func:`~mwz_metrics.interactive.goals.user_goal`), and cached on disk the same way.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.goals import UserGoal, user_goal
from mwz_metrics.training.records import SPLITS

logger = logging.getLogger(__name__)


def _validation_goals(context: Any) -> dict[str, UserGoal]:
    from mwz_datasets import multiwoz_raw
    from mwz_datasets.derived import cached
    from mwz_metrics.interactive.harness.context import code_fingerprint

    paths, checksum = context.dialogue_files("validation")

    def build() -> list[dict[str, Any]]:
        logger.info("reading the goals of MultiWOZ 2.1 validation (cached afterwards)")
        return [{"key": d["key"], "goal": d["goal"]} for d in multiwoz_raw.iter_dialogues("2.1", "validation", paths)]

    items = cached("training-validation-goals", [checksum, code_fingerprint()], build)
    query = context.database.query
    return {item["key"]: user_goal(item, query) for item in items}


_CACHE: dict[int, dict[str, UserGoal]] = {}


def goals(context: Any, split: str) -> dict[str, UserGoal]:
    """Every goal of ``split`` (``validation`` or ``test``), in the split's order."""
    if split not in SPLITS:
        raise InputError(f"goal split {split!r}: one of {', '.join(SPLITS)}")
    if split == "test":
        return context.goals
    if id(context) not in _CACHE:
        _CACHE[id(context)] = _validation_goals(context)
    return _CACHE[id(context)]


@functools.cache
def held_out(count: int, total: int) -> frozenset[int]:
    """Positions of the held-out validation goals (every ``total // count``-th): the learning curve's."""
    step = max(1, total // max(count, 1))
    return frozenset(range(0, total, step)[:count])

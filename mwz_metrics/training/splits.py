"""Goals by split: training goals from MultiWOZ 2.1 validation (or train, where the full 2.1 file
is present), evaluation goals from test.

Validation (and train) goals are built like the test goals of
:class:`~mwz_metrics.interactive.harness.context.InteractiveContext` (the same
:func:`~mwz_metrics.interactive.goals.user_goal`), and cached on disk the same way.
"""

from __future__ import annotations

import functools
import logging
import weakref
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.goals import UserGoal, user_goal
from mwz_metrics.training.records import SPLITS

logger = logging.getLogger(__name__)


def _training_goals(context: Any, split: str) -> dict[str, UserGoal]:
    from mwz_datasets import multiwoz_raw
    from mwz_datasets.derived import cached
    from mwz_metrics.interactive.harness.context import code_fingerprint

    paths, checksum = context.dialogue_files(split)

    def build() -> list[dict[str, Any]]:
        logger.info("reading the goals of MultiWOZ 2.1 %s (cached afterwards)", split)
        return [{"key": d["key"], "goal": d["goal"]} for d in multiwoz_raw.iter_dialogues("2.1", split, paths)]

    kind = "training-validation-goals" if split == "validation" else f"training-{split}-goals"
    items = cached(kind, [checksum, code_fingerprint()], build)
    if not items:
        where = ", ".join(str(p) for p in paths.values())
        raise InputError(f"MultiWOZ 2.1 {split}: no dialogues in {where} (a copy without the {split} split)")
    query = context.database.query
    return {item["key"]: user_goal(item, query) for item in items}


# per context (weakly: an id reused by a later context must not find this one's goals), per split
_CACHE: weakref.WeakKeyDictionary[Any, dict[str, dict[str, UserGoal]]] = weakref.WeakKeyDictionary()


def goals(context: Any, split: str) -> dict[str, UserGoal]:
    """Every goal of ``split`` (``validation``, ``train`` or ``test``), in the split's order."""
    if split not in SPLITS:
        raise InputError(f"goal split {split!r}: one of {', '.join(SPLITS)}")
    if split == "test":
        return context.goals
    found = _CACHE.setdefault(context, {})
    if split not in found:
        found[split] = _training_goals(context, split)
    return found[split]


@functools.cache
def held_out(count: int, total: int) -> frozenset[int]:
    """Positions of the held-out validation goals (every ``total // count``-th): the learning curve's."""
    step = max(1, total // max(count, 1))
    return frozenset(range(0, total, step)[:count])

"""Pure per-item work shared with one forked child where a second core is free.

Scoring a DSTC9 entry is about 2,000 independent (reference, response) pairs; a fork costs a
few milliseconds and inherits everything loaded (WordNet, caches), so the child scores the
second half while the parent scores the first. Results come back in input order and are
the very floats a single process computes (the same code on the same inputs); sums are then
taken in one fixed order by the caller. Where ``os.fork`` is missing, one core is available,
other threads run, the work is small or the child fails, the parent does it all.
"""

from __future__ import annotations

import logging
import os
import pickle
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

Item = TypeVar("Item")
Result = TypeVar("Result")

PROCESSES_ENV = "MWZ_DSTC9_PROCESSES"  # "1" keeps the work in one process
MINIMUM_ITEMS = 400  # below this a fork costs more than it saves


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def two_processes(count: int) -> bool:
    """Whether ``count`` items are worth splitting with a forked child on this machine."""
    if os.environ.get(PROCESSES_ENV, "").strip() == "1" or not hasattr(os, "fork"):
        return False
    # A process with other threads (a notebook, a server) is not forked: a lock one of them
    # holds would stay locked in the child.
    return count >= MINIMUM_ITEMS and _cores() >= 2 and threading.active_count() == 1


def map_halves(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    *,
    child_state: Callable[[], Any] = lambda: None,
    merge_state: Callable[[Any], None] = lambda state: None,
) -> list[Result]:
    """``[function(item) for item in items]``, the second half computed in a forked child.

    ``child_state`` runs in the child after its half (e.g. the cache entries it added) and
    ``merge_state`` receives that value in the parent, so nothing learnt in the child is lost.
    """
    if not two_processes(len(items)):
        return [function(item) for item in items]
    half = len(items) // 2
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its half, then its state, through the pipe; never returns
        status = 1
        try:
            os.close(read_end)
            payload = pickle.dumps(([function(item) for item in items[half:]], child_state()), protocol=5)
            with os.fdopen(write_end, "wb") as sink:
                sink.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    pipe = os.fdopen(read_end, "rb")
    try:
        first = [function(item) for item in items[:half]]
        payload = pipe.read()
    finally:
        pipe.close()  # on an error here the child's write fails and it exits: nothing waits forever
        _, status = os.waitpid(pid, 0)
    if status != 0 or not payload:
        logger.debug("the forked scorer failed (status %s); scoring its half here", status)
        return first + [function(item) for item in items[half:]]
    second, state = pickle.loads(payload)
    merge_state(state)
    return first + second

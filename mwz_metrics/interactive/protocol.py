"""The system protocol: what a system under test receives each turn and what it returns.

Each turn the system receives a **request** (JSON)::

    {"dialogue_id": "pmul4524", "turn": 2, "seed": 1786416449,
     "history": [{"speaker": "user", "text": "I need a train to Cambridge.", "acts": [...]},
                 {"speaker": "system", "text": "Where from?"},
                 {"speaker": "user", "text": "From Ely, on Monday."}]}

``turn`` counts system turns from 0; ``history`` holds every turn so far, ending with the
user's. ``seed`` is the session's seed (see :func:`session_seed`): a stochastic system that samples
with it is reproducible. A run of several trials per goal (``mwz interact --trials K``) adds
``trial`` (0..K-1): sessions of one goal then run at once, so a system keeps per-session state
under :func:`session_key` (``pmul4524#2``), never under the dialogue id alone. A user turn carries
``acts`` when the simulator has them (the annotated acts of ``replay``, the agenda's own acts):
reference systems read them, a real system should not.
A system turn carries the ``acts`` and ``state`` its system returned, if any.

It returns one **turn** of mwzeval's predictions format, so a session is scored like a
predictions file::

    {"response": "[value_id] leaves at [value_leave] .",       # delexicalized or lexicalized
     "state": {"train": {"destination": "cambridge", ...}},     # optional: the belief state
     "active_domains": ["train"],                                # optional
     "acts": [["inform", "train", "id", "TR1234"]],              # optional: dialogue acts
     "trace": {"version": 1, "calls": [...], ...}}               # optional: how the turn was made

``trace`` (optional, any JSON object of at most :data:`MAX_TRACE_BYTES` encoded) is kept in the session
record beside the turn and never scored: what an agent looked up and got back, why its reply ended,
what it cost (the ``llm`` system writes :data:`TRACE_VERSION`'s fields: ``calls``, each ``{"name",
"arguments", "result"}``; ``finish_reason``; ``tokens``; ``warnings``). The viewer and ``--explain``
show it.

A system is anything with ``respond(request) -> turn`` (or a plain callable). It must not keep
per-session state elsewhere than under :func:`session_key`: sessions run concurrently (``-j``).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

# The protocol's records (the request, the system's turn, how a session ends) are mwz_metrics.records':
# re-exported here, where systems and plugins have always found them.
from mwz_metrics.records.ends import END_REASONS as END_REASONS
from mwz_metrics.records.ends import FAILED_ENDS as FAILED_ENDS
from mwz_metrics.records.ends import INFRASTRUCTURE_ENDS as INFRASTRUCTURE_ENDS
from mwz_metrics.records.ends import SessionEnd as SessionEnd
from mwz_metrics.records.request import Request as Request
from mwz_metrics.records.request import session_key as session_key
from mwz_metrics.records.session import parse_session_id as parse_session_id
from mwz_metrics.records.session import session_id as session_id
from mwz_metrics.records.turns import MAX_RESPONSE_CHARS, SystemTurn
from mwz_metrics.records.turns import MAX_TRACE_BYTES as MAX_TRACE_BYTES
from mwz_metrics.records.turns import TRACE_VERSION as TRACE_VERSION


def session_seed(seed: int, dialogue_id: str, trial: int | None) -> tuple[str, int]:
    """A session's seed: the text that seeds the simulator's ``random.Random``, and the integer the system
    receives (``seed`` in the request; below 2**31, as OpenAI-compatible endpoints take it).

    The text is ``"{seed}:{dialogue_id}"`` for the first trial (trial 0, or a run of one trial: the
    sessions of a run without ``--trials`` are the same as before trials existed, and a run's first
    trial is the run of one trial) and ``"{seed}:{dialogue_id}:{trial}"`` for the others; the integer is
    the first 31 bits of the text's sha256.
    """
    text = f"{seed}:{dialogue_id}" if not trial else f"{seed}:{dialogue_id}:{trial}"
    return text, int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") >> 1


def own_failure(error: BaseException) -> bool:
    """Whether ``error``, raised by a system's or a simulator's code, is that code's failure (its session
    ends, the run goes on) rather than the run's: any ``Exception``, a ``SystemExit`` (a model wrapper's
    ``sys.exit()``) and a ``KeyboardInterrupt`` raised outside the main thread, where no Ctrl-C lands
    (sessions run in worker threads: such an interrupt is the code's own ``raise``)."""
    if isinstance(error, KeyboardInterrupt):
        return threading.current_thread() is not threading.main_thread()
    return isinstance(error, (Exception, SystemExit))


def describe_failure(error: BaseException) -> str:
    """An exception as a detail names it (a bare ``SystemExit`` says its code)."""
    if isinstance(error, SystemExit):
        return f"SystemExit({error.code!r}): the code called sys.exit()"
    return f"{type(error).__name__}: {error}"


def parse_system_turn(data: Any, dialogue_id: str, index: int, *, max_chars: int = MAX_RESPONSE_CHARS) -> SystemTurn:
    """Validate what a system returned (:meth:`~mwz_metrics.records.turns.SystemTurn.from_json`)."""
    return SystemTurn.from_json(data, dialogue_id, index, max_chars=max_chars)


@runtime_checkable
class System(Protocol):
    """Anything that answers a request with a turn."""

    def respond(self, request: Mapping[str, Any]) -> Mapping[str, Any]:
        """The system's turn for ``request`` (see the module docstring)."""
        ...


class CallableSystem:
    """A plain function ``request -> turn`` as a :class:`System`."""

    def __init__(self, function: Callable[[Mapping[str, Any]], Mapping[str, Any]], name: str = "") -> None:
        self.function = function
        self.name = name or getattr(function, "__qualname__", "callable")

    def respond(self, request: Mapping[str, Any]) -> Mapping[str, Any]:
        """Call the function."""
        return self.function(request)


def as_system(obj: Any, name: str = "") -> System:
    """An object with ``respond`` as it is; a callable wrapped in :class:`CallableSystem`."""
    if isinstance(obj, System):
        return obj
    if callable(obj):
        return CallableSystem(obj, name)
    raise TypeError(f"{name or obj!r} is neither a system (with respond(request)) nor a callable")

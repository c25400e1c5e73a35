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

import dataclasses
import hashlib
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from mwz_metrics.inputs import InputError, read_turn
from mwz_metrics.interactive.acts import Act, ActError, acts_json, parse_acts

# Why a session ended (the summary counts each).
END_REASONS = {
    "user_done": "the user said goodbye and the system answered",
    "max_turns": "the session reached the turn limit",
    "system_out_of_turns": "a predictions-file system had no more turns for this dialogue",
    "system_timeout": "the system did not answer in time (after the retries)",
    "system_error": "the system failed (an exception, an HTTP error, a refused connection), after the retries",
    "malformed_response": "the system's answer was not a valid turn",
    "simulator_error": "the user simulator failed (for example its language model endpoint)",
}


# A response's text at most (characters; ``mwz interact --max-response-chars``): a MultiWOZ response
# is about 80, a chatty model's a few hundred. Longer ends the session as ``malformed_response``.
MAX_RESPONSE_CHARS = 10_000
# A turn's ``trace`` at most (bytes of its JSON): a larger one is cut to ``{"version", "cut": true}``.
MAX_TRACE_BYTES = 200_000
TRACE_VERSION = 1  # the fields of the llm system's trace (see the module docstring)


def session_id(dialogue_id: str, trial: int | None) -> str:
    """The id of one session: the dialogue id alone in a run of one trial per goal (``trial`` None),
    else ``dialogue_id#trial``."""
    return dialogue_id if trial is None else f"{dialogue_id}#{trial}"


def parse_session_id(session: str) -> tuple[str, int | None]:
    """(dialogue id, trial) of a session id written by :func:`session_id`."""
    dialogue_id, mark, trial = session.rpartition("#")
    return (dialogue_id, int(trial)) if mark and trial.isdigit() else (session, None)


def session_key(request: Mapping[str, Any]) -> str:
    """Under what a system keeps the state of the session a request belongs to."""
    trial = request.get("trial")
    return session_id(str(request.get("dialogue_id", "")), None if trial is None else int(trial))


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


# End reasons that are the infrastructure's, not the dialogue's: counted apart in the figures (and as
# failures unless ``--exclude-infra``), run again by ``--resume --retry-failed``.
INFRASTRUCTURE_ENDS = ("system_timeout", "system_error", "simulator_error")
# Ends where the system (or the simulator) failed rather than talked.
FAILED_ENDS = frozenset({*INFRASTRUCTURE_ENDS, "malformed_response"})


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


class SessionEnd(Exception):
    """Ends one session with a reason from :data:`END_REASONS` (the run goes on)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        if reason not in END_REASONS:
            raise ValueError(f"unknown end reason {reason!r}")
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclasses.dataclass(frozen=True)
class SystemTurn:
    """One validated system turn."""

    response: str
    state: dict[str, dict[str, str]] | None = None
    active_domains: tuple[str, ...] | None = None
    acts: tuple[Act, ...] | None = None
    trace: dict[str, Any] | None = None

    def prediction(self) -> dict[str, Any]:
        """The turn in mwzeval's predictions format (what ``mwz evaluate`` reads)."""
        out: dict[str, Any] = {"response": self.response}
        if self.state is not None:
            out["state"] = self.state
        if self.active_domains is not None:
            out["active_domains"] = list(self.active_domains)
        return out

    def record(self) -> dict[str, Any]:
        """The turn as a session stores it."""
        out: dict[str, Any] = {"speaker": "system", "text": self.response}
        if self.state is not None:
            out["state"] = self.state
        if self.active_domains is not None:
            out["active_domains"] = list(self.active_domains)
        if self.acts is not None:
            out["acts"] = acts_json(self.acts)
        if self.trace is not None:
            out["trace"] = self.trace
        return out


def parse_system_turn(data: Any, dialogue_id: str, index: int, *, max_chars: int = MAX_RESPONSE_CHARS) -> SystemTurn:
    """Validate what a system returned; :class:`SessionEnd` (``malformed_response``) if invalid, or
    if its response is longer than ``max_chars``."""
    response = data.get("response") if isinstance(data, Mapping) else None
    if isinstance(response, str) and len(response) > max_chars:
        raise SessionEnd(
            "malformed_response",
            f"dialogue {dialogue_id}, turn {index}: a response of {len(response)} characters (limit {max_chars})",
        )
    try:
        turn = read_turn(dialogue_id, index, data)
        acts = None
        if isinstance(data, Mapping) and data.get("acts") is not None:
            acts = tuple(parse_acts(data["acts"], f"dialogue {dialogue_id}, turn {index}: 'acts'"))
    except (InputError, ActError) as error:
        raise SessionEnd("malformed_response", str(error)) from None
    return SystemTurn(turn.response, turn.state, turn.active_domains, acts, _trace(data, dialogue_id, index))


def _trace(data: Any, dialogue_id: str, index: int) -> dict[str, Any] | None:
    """A turn's ``trace``, copied (a JSON object of at most :data:`MAX_TRACE_BYTES`; larger: cut, saying so)."""
    import json

    trace = data.get("trace") if isinstance(data, Mapping) else None
    if trace is None:
        return None
    if not isinstance(trace, Mapping):
        raise SessionEnd("malformed_response", f"dialogue {dialogue_id}, turn {index}: 'trace' is not an object")
    try:
        encoded = json.dumps(trace, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as error:
        detail = f"dialogue {dialogue_id}, turn {index}: 'trace' is not JSON ({error})"
        raise SessionEnd("malformed_response", detail) from None
    if len(encoded) > MAX_TRACE_BYTES:
        return {"version": trace.get("version"), "cut": True, "bytes": len(encoded)}
    copied: dict[str, Any] = json.loads(encoded)
    return copied


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

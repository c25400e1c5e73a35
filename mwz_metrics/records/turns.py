"""The turns of a session: what a user simulator says, what a system under test answers, and both as a
session record stores them (the system's history shows the same records)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

from mwz_metrics.inputs import InputError, read_turn
from mwz_metrics.records.acts import Act, ActError, acts_json, parse_acts
from mwz_metrics.records.ends import SessionEnd

USER: Literal["user"] = "user"
SYSTEM: Literal["system"] = "system"
SPEAKERS = (USER, SYSTEM)

# A response's text at most (characters; ``mwz interact --max-response-chars``): a MultiWOZ response
# is about 80, a chatty model's a few hundred. Longer ends the session as ``malformed_response``.
MAX_RESPONSE_CHARS = 10_000
# A turn's ``trace`` at most (bytes of its JSON): a larger one is cut to ``{"version", "cut": true}``.
MAX_TRACE_BYTES = 200_000
TRACE_VERSION = 1  # the fields of the llm system's trace (see mwz_metrics.interactive.protocol)

State = dict[str, dict[str, str]]  # a belief state: {domain: {slot: value}}


class UserTurnRecord(TypedDict):
    """A user turn as a session stores it: its words and, when the simulator has them, its acts."""

    speaker: Literal["user"]
    text: str
    acts: NotRequired[list[list[str]]]


class SystemTurnRecord(TypedDict):
    """A system turn as a session stores it: its response as ``text``, what the system returned beside it
    (``state``, ``active_domains``, ``acts``, ``trace``), and the acts the simulator read from it
    (``read_acts``) when the system sent none."""

    speaker: Literal["system"]
    text: str
    state: NotRequired[State]
    active_domains: NotRequired[list[str]]
    acts: NotRequired[list[list[str]]]
    read_acts: NotRequired[list[list[str]]]
    trace: NotRequired[dict[str, Any]]


TurnRecord = UserTurnRecord | SystemTurnRecord


class SystemAnswer(TypedDict):
    """What a system returns for a turn (mwzeval's predictions format, plus ``acts`` and ``trace``)."""

    response: str
    state: NotRequired[State]
    active_domains: NotRequired[list[str]]
    acts: NotRequired[list[list[str]] | dict[str, list[list[str]]]]
    trace: NotRequired[dict[str, Any]]


@dataclasses.dataclass(frozen=True)
class UserTurn:
    """One user turn: its text, its acts (when the simulator has them), whether it is the last.

    ``booked``: the domains whose booking the user has asked for so far; mwzeval counts a
    reference number in a domain only once the dialogue has booked there, and in an interactive
    session that is once the user asked for the booking.
    """

    text: str
    acts: tuple[Act, ...] | None = None
    final: bool = False
    booked: tuple[str, ...] = ()

    def to_json(self) -> UserTurnRecord:
        """The turn as a session stores it (and as the system's history shows it)."""
        out: UserTurnRecord = {"speaker": USER, "text": self.text}
        if self.acts is not None:
            out["acts"] = acts_json(self.acts)
        return out

    record = to_json  # its older name


@dataclasses.dataclass(frozen=True)
class SystemTurn:
    """One validated system turn (:meth:`from_json` validates what a system returned)."""

    response: str
    state: State | None = None
    active_domains: tuple[str, ...] | None = None
    acts: tuple[Act, ...] | None = None
    trace: dict[str, Any] | None = None

    @classmethod
    def from_json(cls, data: Any, dialogue_id: str, index: int, *, max_chars: int = MAX_RESPONSE_CHARS) -> SystemTurn:
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
        return cls(turn.response, turn.state, turn.active_domains, acts, _trace(data, dialogue_id, index))

    def prediction(self) -> dict[str, Any]:
        """The turn in mwzeval's predictions format (what ``mwz evaluate`` reads)."""
        out: dict[str, Any] = {"response": self.response}
        if self.state is not None:
            out["state"] = self.state
        if self.active_domains is not None:
            out["active_domains"] = list(self.active_domains)
        return out

    def to_json(self) -> SystemTurnRecord:
        """The turn as a session stores it."""
        out: SystemTurnRecord = {"speaker": SYSTEM, "text": self.response}
        if self.state is not None:
            out["state"] = self.state
        if self.active_domains is not None:
            out["active_domains"] = list(self.active_domains)
        if self.acts is not None:
            out["acts"] = acts_json(self.acts)
        if self.trace is not None:
            out["trace"] = self.trace
        return out

    record = to_json  # its older name


def _trace(data: Any, dialogue_id: str, index: int) -> dict[str, Any] | None:
    """A turn's ``trace``, copied (a JSON object of at most :data:`MAX_TRACE_BYTES`; larger: cut, saying so)."""
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


def turn_problem(turn: Any, index: int, session: str) -> str | None:
    """What makes ``turn`` (the ``index``-th of session ``session``, read from a file) no turn record, or None."""
    where = f"turns[{index}]"
    if not isinstance(turn, dict):
        return f"field '{where}': not an object"
    speaker = turn.get("speaker")
    if speaker not in SPEAKERS:
        return f"field '{where}.speaker': {speaker!r}, not 'user' or 'system'"
    if not isinstance(turn.get("text"), str):
        return f"field '{where}.text': missing or not a string"
    try:
        for name in ("acts", "read_acts"):
            if turn.get(name) is not None:
                parse_acts(turn[name], f"field '{where}.{name}'")
        if "trace" in turn and not isinstance(turn["trace"], dict):
            return f"field '{where}.trace': not an object"
        if speaker == SYSTEM:
            shown = {k: turn[k] for k in ("state", "active_domains") if k in turn}
            read_turn(session, index, {"response": turn["text"], **shown})
    except (ActError, InputError) as error:
        return str(error)
    return None


def is_user(turn: Mapping[str, Any]) -> bool:
    """Whether a turn record is the user's."""
    return turn.get("speaker") == USER


def is_system(turn: Mapping[str, Any]) -> bool:
    """Whether a turn record is the system's."""
    return turn.get("speaker") == SYSTEM


def speaker_of(turn: Mapping[str, Any]) -> str:
    """A turn record's speaker, ``user`` or ``system``."""
    return str(turn["speaker"])


def acts_of(turn: Mapping[str, Any]) -> list[list[str]]:
    """A system turn's acts: its own when it sent them, else what the simulator read."""
    if turn.get("acts") is not None:
        acts: list[list[str]] = turn["acts"]
        return acts
    return turn.get("read_acts") or []


def spoken(turn: Mapping[str, Any]) -> dict[str, str]:
    """A turn's speaker and text alone, a copy (the form the coherence model reads)."""
    return {"speaker": turn["speaker"], "text": turn["text"]}

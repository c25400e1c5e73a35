"""The protocol request: what a system under test receives for each of its turns (see
:mod:`mwz_metrics.interactive.protocol` for the whole protocol)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

from mwz_metrics.records.session import session_id
from mwz_metrics.records.turns import TurnRecord


class Request(TypedDict):
    """One request: the goal's dialogue id, the system turn asked for (from 0), the session's turns so far
    (ending with the user's; a user turn's ``acts`` only where the run gives them), the session's seed and,
    in a run of several trials per goal, the trial."""

    dialogue_id: str
    turn: int
    history: list[TurnRecord]
    trial: NotRequired[int]
    seed: int


def request(dialogue_id: str, turn: int, history: Sequence[TurnRecord], seed: int, trial: int | None = None) -> Request:
    """A request, its keys in the order a system has always received them."""
    out: dict[str, Any] = {"dialogue_id": dialogue_id, "turn": turn, "history": list(history)}
    if trial is not None:
        out["trial"] = trial
    out["seed"] = seed
    made: Request = out  # type: ignore[assignment]  # built in order: a dict literal would reorder trial
    return made


def session_key(request: Mapping[str, Any]) -> str:
    """Under what a system keeps the state of the session a request belongs to."""
    trial = request.get("trial")
    return session_id(str(request.get("dialogue_id", "")), None if trial is None else int(trial))

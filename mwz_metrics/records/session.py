"""A session record: one line of a session file, one simulated user's conversation with the system under
test about one goal, how it ended and (once scored) its outcome.

Read from a file, a record is validated once (:func:`problem`, :func:`from_json`); inside, code trusts its
shape and reads it through the accessors here (:func:`turns`, :func:`system_turns`, :func:`end_reason`...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from mwz_metrics.records.ends import END_REASONS, End
from mwz_metrics.records.turns import (
    SYSTEM,
    USER,
    SystemTurnRecord,
    TurnRecord,
    UserTurnRecord,
    spoken,
    turn_problem,
)
from mwz_plugins.errors import InputError


class Outcome(TypedDict, total=False):
    """A session's scored outcome, written into its record by the run that wrote the file: mwzeval's
    per-domain Inform/Success, the simulator's verdict, turns, how it ended, the act figures."""

    inform: float | None
    success: float | None
    complete: float | None
    turns: int
    end: str
    tp: int
    fp: int
    fn: int
    book_rate: float | None
    domains: dict[str, Any]
    tokens: dict[str, Any]
    system_warnings: dict[str, int]


class SessionRecord(TypedDict):
    """One session as a session file stores it (a line of its own, after the header)."""

    id: str  # the goal's dialogue id, with ``#trial`` in a run of several trials per goal
    trial: NotRequired[int]
    goal: dict[str, Any]  # mwz_metrics.interactive.goals.UserGoal.as_json()
    turns: list[TurnRecord]
    booked: NotRequired[list[list[str]]]  # per system turn, the domains the user had asked to book
    end: End
    complete: NotRequired[bool | None]  # the simulator's verdict (None: it cannot tell)
    details: NotRequired[dict[str, Any]]  # what the simulator kept (the domains given up on...)
    system_report: NotRequired[dict[str, Any]]  # what the system reported on the session
    outcome: NotRequired[Outcome]


def session_id(dialogue_id: str, trial: int | None) -> str:
    """The id of one session: the dialogue id alone in a run of one trial per goal (``trial`` None),
    else ``dialogue_id#trial``."""
    return dialogue_id if trial is None else f"{dialogue_id}#{trial}"


def parse_session_id(session: str) -> tuple[str, int | None]:
    """(dialogue id, trial) of a session id written by :func:`session_id`."""
    dialogue_id, mark, trial = session.rpartition("#")
    return (dialogue_id, int(trial)) if mark and trial.isdigit() else (session, None)


def problem(record: Any) -> str | None:
    """What makes ``record`` no session record (a hand-edited line), or None: checked once, as a file is
    read, so that what is scored can trust its shape."""
    if not isinstance(record, dict):
        return f"not a session record (a JSON {type(record).__name__})"
    if not isinstance(record.get("id"), str):
        return "field 'id': missing or not a string"
    found_turns = record.get("turns")
    if not isinstance(found_turns, list):
        return f"field 'turns': {'missing' if found_turns is None else 'not a list'}"
    for index, turn in enumerate(found_turns):
        found = turn_problem(turn, index, record["id"])
        if found:
            return found
    end = record.get("end")
    if not isinstance(end, dict) or end.get("reason") not in END_REASONS:
        return "field 'end': missing, or not {\"reason\": REASON} with a reason of " + ", ".join(END_REASONS)
    if not isinstance(record.get("goal"), dict):
        return "field 'goal': missing or not an object"
    for name, kind in (("booked", list), ("details", dict), ("outcome", dict), ("system_report", dict)):
        if name in record and not isinstance(record[name], kind):
            return f"field '{name}': not a {'list' if kind is list else 'dict'}"
    return None


class RecordError(InputError):
    """A JSON value that is no session record; the message names the field."""


def from_json(data: Any) -> SessionRecord:
    """``data`` as a session record, validated (:class:`RecordError` naming the field if it is none)."""
    wrong = problem(data)
    if wrong:
        raise RecordError(wrong)
    record: SessionRecord = data
    return record


# -- reading a validated record ----------------------------------------------------------------


def turns(session: Mapping[str, Any]) -> list[TurnRecord]:
    """A session's turns, in order."""
    found: list[TurnRecord] = session["turns"]
    return found


def system_turns(session: Mapping[str, Any]) -> list[SystemTurnRecord]:
    """The system turns of a session, in order."""
    return [t for t in turns(session) if t["speaker"] == SYSTEM]


def user_turns(session: Mapping[str, Any]) -> list[UserTurnRecord]:
    """The user turns of a session, in order."""
    return [t for t in turns(session) if t["speaker"] == USER]


def end_of(session: Mapping[str, Any]) -> End:
    """How a session ended."""
    end: End = session["end"]
    return end


def end_reason(session: Mapping[str, Any]) -> str:
    """Why a session ended (a key of :data:`~mwz_metrics.records.ends.END_REASONS`)."""
    return str(session["end"]["reason"])


def speakers_and_texts(session: Mapping[str, Any]) -> list[dict[str, str]]:
    """A session's turns as ``[{"speaker", "text"}]`` (what the coherence model reads)."""
    return [spoken(t) for t in turns(session)]

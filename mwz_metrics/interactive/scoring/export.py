"""Sessions in the forms other tools read: mwzeval predictions, speaker/text sessions, a Dataset.

An export of sessions as predictions (:func:`predictions_export`, ``mwz interact --predictions``) is
mwzeval's format, and each system turn carries under ``"mwz"`` what the sessions had besides (the
user's turns, acts, goal, bookings, how it ended, the run): mwzeval's scripts read only ``response``,
``state`` and ``active_domains`` and score it as predictions, while ``mwz evaluate`` turns it back into
the sessions (:func:`sessions_of_export`) and scores them as ``mwz interact`` does, against each
session's goal (the turns of a session are not the test dialogue's, so no reference turn lines up).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mwz_metrics.inputs import EXPORT_KEY
from mwz_metrics.records.session import end_reason, speakers_and_texts, system_turns
from mwz_metrics.records.session import turns as session_turns
from mwz_metrics.records.turns import acts_of as acts_of  # re-exported: the scoring reads it here
from mwz_metrics.records.turns import is_system, speaker_of

_PREDICTION_KEYS = ("state", "active_domains")


def _prediction_keys(turn: Mapping[str, Any]) -> dict[str, Any]:
    """A system turn's keys that mwzeval's predictions hold besides the response, in mwzeval's order."""
    return {k: turn[k] for k in _PREDICTION_KEYS if k in turn}


def predictions(sessions: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """mwzeval's predictions format: per session, one ``{"response", "state"?, "active_domains"?}``
    per system turn (what ``mwz evaluate``, ``mwz compare`` and ``mwz coherence`` read)."""
    out = {}
    for session in sessions:
        out[session["id"]] = [{"response": t["text"], **_prediction_keys(t)} for t in system_turns(session)]
    return out


def predictions_export(
    sessions: Sequence[Mapping[str, Any]], run: Mapping[str, Any] | None
) -> dict[str, list[dict[str, Any]]]:
    """:func:`predictions`, each system turn also carrying the rest of its session under ``"mwz"``:
    the turns before it (``"before"``, the user's), its own keys beyond mwzeval's (``"turn"``); the
    first also the session without its turns (``"session"``), the last the turns after it
    (``"after"``). The first dialogue with a system turn carries the run's configuration and the
    sessions that have none (a system failing at once), which no list of turns could hold."""
    out: dict[str, list[dict[str, Any]]] = {}
    # where each sits in the run's order: the bootstrap resamples sessions by position
    empty = [{"position": i, "session": dict(s)} for i, s in enumerate(sessions) if not system_turns(s)]
    for session in sessions:
        turns: list[dict[str, Any]] = []
        before: list[Mapping[str, Any]] = []
        for turn in session_turns(session):
            if not is_system(turn):
                before.append(turn)
                continue
            extra = {k: v for k, v in turn.items() if k not in ("speaker", "text", *_PREDICTION_KEYS)}
            shown = {"response": turn["text"], **_prediction_keys(turn)}
            turns.append({**shown, EXPORT_KEY: {"before": before, "turn": extra}})
            before = []
        if not turns:
            continue
        turns[0][EXPORT_KEY]["session"] = {k: v for k, v in session.items() if k != "turns"}
        turns[-1][EXPORT_KEY]["after"] = before
        if run is not None and not out:
            turns[0][EXPORT_KEY].update({"run": dict(run), "without_system_turns": empty})
        out[str(session["id"])] = turns
    return out


def sessions_of_export(data: Any, source: str = "predictions") -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The run's configuration and the sessions of an export of :func:`predictions_export`; None when
    ``data`` is not one (predictions of another kind). A dialogue without what an export holds is an
    error naming it (an export edited, or two files merged)."""
    from mwz_metrics.inputs import InputError

    if not isinstance(data, Mapping) or not data:
        return None
    firsts = {key: turns[0] if isinstance(turns, list) and turns else None for key, turns in data.items()}
    marked = [key for key, turn in firsts.items() if isinstance(turn, Mapping) and EXPORT_KEY in turn]
    if not marked:
        return None
    run: dict[str, Any] | None = None
    sessions: list[dict[str, Any]] = []
    empty: list[Mapping[str, Any]] = []
    for key, turns in data.items():
        try:
            first = turns[0][EXPORT_KEY]
            run = run if run is not None else first.get("run")
            empty.extend(first.get("without_system_turns") or [])
            sessions.append(_session_of(turns))
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            raise InputError(
                f"{source}: dialogue {key}: not a session of an mwz interact export ({type(error).__name__}: "
                f"{error}); the other dialogues are"
            ) from None
        _require_id(sessions[-1], source, key)
    for placed in empty:
        _require_id(placed.get("session") if isinstance(placed, Mapping) else None, source, "without system turns")
    if run is None:
        raise InputError(f"{source}: an mwz interact export without its run's configuration")
    for placed in sorted(empty, key=lambda p: p["position"]):
        sessions.insert(placed["position"], dict(placed["session"]))
    return run, sessions


def _require_id(session: Any, source: str, dialogue: str) -> None:
    """An error naming the dialogue where a session has no id (a session file's reader requires it too)."""
    from mwz_metrics.inputs import InputError

    if not isinstance(session, Mapping) or "id" not in session:
        raise InputError(
            f"{source}: dialogue {dialogue}: its session has no id (its goal and trial, which scoring and pairing "
            "read); not an export as mwz interact writes it"
        )


def _session_of(turns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One session back from its exported system turns."""
    session = dict(turns[0][EXPORT_KEY]["session"])
    rebuilt: list[dict[str, Any]] = []
    for turn in turns:
        carried = turn[EXPORT_KEY]
        rebuilt.extend(dict(t) for t in carried["before"])
        system = {"speaker": "system", "text": turn["response"]}
        system.update({k: turn[k] for k in _PREDICTION_KEYS if k in turn})
        system.update(carried["turn"])
        rebuilt.append(system)
    rebuilt.extend(dict(t) for t in turns[-1][EXPORT_KEY].get("after") or [])
    session["turns"] = rebuilt  # the writer of the record read back
    return session


def dialogue_sessions(sessions: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, str]]]:
    """Full sessions as ``[{"speaker", "text"}]`` (``mwz coherence``'s session setting)."""
    return {s["id"]: speakers_and_texts(s) for s in sessions}


def sessions_dataset(sessions: Sequence[Mapping[str, Any]]):
    """Session records as a ``datasets.Dataset`` (one row per session). The library's one function is
    :func:`mwz_metrics.interactive.to_dataset`, which takes a session file's path or records."""
    import datasets

    if isinstance(sessions, (str, bytes)) or hasattr(sessions, "__fspath__"):  # a bug of the caller
        raise TypeError("sessions_dataset takes session records; a path is read by mwz_metrics.interactive.to_dataset")

    rows = []
    for session in sessions:
        said = session_turns(session)
        rows.append(
            {
                "dialogue_id": session["id"],
                "goal": json.dumps(session["goal"], ensure_ascii=False),
                "messages": list(session["goal"].get("messages") or []),
                "speakers": [speaker_of(t) for t in said],
                "texts": [t["text"] for t in said],
                "acts": [json.dumps(t.get("acts") or t.get("read_acts") or [], ensure_ascii=False) for t in said],
                "states": [json.dumps(t.get("state"), ensure_ascii=False) for t in said],
                "end_reason": end_reason(session),
                "complete": session.get("complete"),
            }
        )
    features = datasets.Features(
        {
            "dialogue_id": datasets.Value("string"),
            "goal": datasets.Value("string"),
            "messages": datasets.Sequence(datasets.Value("string")),
            "speakers": datasets.Sequence(datasets.Value("string")),
            "texts": datasets.Sequence(datasets.Value("string")),
            "acts": datasets.Sequence(datasets.Value("string")),
            "states": datasets.Sequence(datasets.Value("string")),
            "end_reason": datasets.Value("string"),
            "complete": datasets.Value("bool"),
        }
    )
    return datasets.Dataset.from_list(rows, features=features)

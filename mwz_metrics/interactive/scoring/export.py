"""Sessions in the forms other tools read: mwzeval predictions, speaker/text sessions, a Dataset."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_PREDICTION_KEYS = ("state", "active_domains")


def system_turns(session: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The system turns of a session, in order."""
    return [t for t in session["turns"] if t["speaker"] == "system"]


def predictions(sessions: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """mwzeval's predictions format: per session, one ``{"response", "state"?, "active_domains"?}``
    per system turn (what ``mwz evaluate``, ``mwz compare`` and ``mwz coherence`` read)."""
    out = {}
    for session in sessions:
        out[session["id"]] = [
            {"response": t["text"], **{k: t[k] for k in _PREDICTION_KEYS if k in t}} for t in system_turns(session)
        ]
    return out


def dialogue_sessions(sessions: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, str]]]:
    """Full sessions as ``[{"speaker", "text"}]`` (``mwz coherence``'s session setting)."""
    return {s["id"]: [{"speaker": t["speaker"], "text": t["text"]} for t in s["turns"]] for s in sessions}


def acts_of(turn: Mapping[str, Any]) -> list[list[str]]:
    """A system turn's acts: its own when it sent them, else what the simulator read."""
    if turn.get("acts") is not None:
        return turn["acts"]
    return turn.get("read_acts") or []


def to_dataset(sessions: Sequence[Mapping[str, Any]]):
    """A ``datasets.Dataset``: one row per session with its goal, turns, acts and end reason."""
    import datasets

    rows = []
    for session in sessions:
        rows.append(
            {
                "dialogue_id": session["id"],
                "goal": json.dumps(session["goal"], ensure_ascii=False),
                "messages": list(session["goal"].get("messages") or []),
                "speakers": [t["speaker"] for t in session["turns"]],
                "texts": [t["text"] for t in session["turns"]],
                "acts": [
                    json.dumps(t.get("acts") or t.get("read_acts") or [], ensure_ascii=False) for t in session["turns"]
                ],
                "states": [json.dumps(t.get("state"), ensure_ascii=False) for t in session["turns"]],
                "end_reason": session["end"]["reason"],
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

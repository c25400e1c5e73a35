"""A dialogue of a corpus as ``mwz_datasets`` gives it to the rooms: MultiWOZ in the unified schema
(turns alternating ``USER``/``SYSTEM``, each with its utterance, dialogue acts and annotated spans), or
Schema-Guided Dialogue's ``(speaker, text, spans)`` triples. Its reader validated it; the rooms read it
through these accessors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

CORPUS_USER: Literal["USER"] = "USER"  # how the unified schema names the speakers
CORPUS_SYSTEM: Literal["SYSTEM"] = "SYSTEM"


class Span(TypedDict):
    """An annotated value in a turn: its act, slot and value, and its first and last word (inclusive)."""

    act: str
    slot: str
    value: str
    start: int
    end: int


class CorpusTurn(TypedDict):
    """A MultiWOZ turn in the unified schema."""

    speaker: Literal["USER", "SYSTEM"]
    utterance: str
    dialogue_acts: list[dict[str, Any]]
    spans: NotRequired[list[Span]]
    frames: NotRequired[list[dict[str, Any]]]


class CorpusDialogue(TypedDict):
    """A MultiWOZ dialogue in the unified schema (``key``: mwzeval's id of it, where the reader adds it)."""

    dialogue_id: str
    key: NotRequired[str]
    goal: NotRequired[dict[str, Any]]
    turns: list[CorpusTurn]


def dialogue_turns(dialogue: Mapping[str, Any]) -> list[Any]:
    """A corpus dialogue's turns, in order (MultiWOZ's :class:`CorpusTurn`, or SGD's ``(speaker, text,
    spans)``)."""
    found: list[Any] = dialogue["turns"]
    return found


def is_user_turn(turn: Mapping[str, Any]) -> bool:
    """Whether a MultiWOZ turn (unified schema) is the user's."""
    return turn["speaker"] == CORPUS_USER


def is_system_turn(turn: Mapping[str, Any]) -> bool:
    """Whether a MultiWOZ turn (unified schema) is the system's."""
    return turn["speaker"] == CORPUS_SYSTEM


def span_bounds(span: Mapping[str, Any]) -> tuple[int, int]:
    """An annotated span's first and last word (inclusive), as integers."""
    return int(span["start"]), int(span["end"])


def span_copy(span: Mapping[str, Any]) -> dict[str, Any]:
    """A span's slot, value and bounds (what a delexicalizer reads)."""
    return {"slot": span["slot"], "value": span["value"], "start": span["start"], "end": span["end"]}

"""Reading every input the same way: the one error type, JSON files, mwzeval's predictions format.

Every command reads its inputs through these functions, so a missing file, a folder, a file that
is not UTF-8 or not JSON, an empty input and a malformed turn get the same one-line message naming
file, dialogue and turn (:class:`InputError`, exit 2), and nothing is modified.

Predictions (mwzeval's format): ``{"sng0073": [{"response": str, "state": {domain: {slot: str}}?,
"active_domains": [str]?}, ...], ...}``, one entry per system turn; ids may also be written
``SNG0073`` or ``SNG0073.json``. A dialogue given twice, by the same key (which a JSON reader would
resolve silently, the last kept) or by two spellings of it, is refused naming both places. The
caller's data is never modified: validated predictions are copied into :class:`Turn` objects.

What a file holds is told here too, from its bytes alone (:func:`holds_sessions`): a session file of
``mwz interact``, its export as predictions (``--predictions``), or neither. ``mwz evaluate`` asks it of
every input, and static evaluation must not pay for importing the interactive room to learn that a
predictions file is only predictions.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from json.decoder import WHITESPACE, scanstring  # type: ignore[attr-defined]
from typing import Any

from mwz_datasets import jsonfile
from mwz_datasets.multiwoz_raw import evaluation_key as dialogue_key
from mwz_plugins.errors import InputError  # re-exported: the one "bad input" error, also at this path

SESSIONS_FORMAT = "mwz-interact-sessions"  # the ``format`` of a session file's header line
EXPORT_KEY = "mwz"  # per system turn of an export: what mwzeval's keys do not hold


def is_session_file(path: str | os.PathLike) -> bool:
    """Whether a file starts with a session file's header."""
    try:
        with open(path, "rb") as f:
            first = f.readline(1 << 16)
        return json.loads(first).get("format") == SESSIONS_FORMAT
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def may_be_export(path: str | os.PathLike) -> bool:
    """Whether a file may be an export of sessions (it holds the export's key; its reader decides)."""
    try:
        with open(path, "rb") as f:
            return f'"{EXPORT_KEY}"'.encode() in f.read()
    except OSError:
        return False


def holds_sessions(path: str | os.PathLike) -> bool:
    """A session file, or what may be its export: a file to read as sessions (:func:`is_session_file`,
    :func:`may_be_export`)."""
    return is_session_file(path) or may_be_export(path)


def require_nonempty(data: Any, path: str | os.PathLike | None, what: str) -> None:
    """Refuse an input with nothing in it, as every command does."""
    if not data:
        where = f"{path}: " if path is not None else ""
        raise InputError(f"{where}no {what} in it (an empty input is refused, not scored as zero)")


def read_json(path: str | os.PathLike, what: str = "input") -> Any:
    """The decoded JSON of ``path`` (:func:`mwz_datasets.jsonfile.read_json`: one-line errors naming the
    file), a key given twice at the top level refused: JSON readers silently keep the last value, so a
    predictions file holding a dialogue twice would be scored on one of them without a word."""
    return _read_json_keyed(path, what)[0]


def _read_json_keyed(path: str | os.PathLike, what: str) -> tuple[Any, Mapping[str, int], str]:
    """``read_json``'s value, the character offset of each top-level key (empty for a value that is not
    an object) and the text (for the line of an offset)."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8-sig")
        return (*_decode_keyed(text, path, what), text)
    except InputError:
        raise
    except (OSError, ValueError, RecursionError):  # no file, not UTF-8, not JSON...: said the one way
        return jsonfile.read_json(path, what), {}, ""


_PLAIN = json.JSONDecoder()


def _decode_keyed(text: str, path: str | os.PathLike, what: str) -> tuple[Any, dict[str, int]]:
    """``json.loads(text)`` with the offset of each top-level key, a key given twice an :class:`InputError`.
    Only the top-level object is walked here, each value decoded by the C decoder as ``json.loads`` does
    (measured on full predictions files: about a tenth more than ``json.loads``, 1-2 ms; a hook on every
    object costs about half more). Malformed JSON raises ``ValueError`` (the caller says what is wrong)."""
    space = WHITESPACE.match
    i = space(text, 0).end()
    if not text.startswith("{", i):
        return json.loads(text), {}
    out: dict[str, Any] = {}
    offsets: dict[str, int] = {}
    i = space(text, i + 1).end()
    if text.startswith("}", i):
        if space(text, i + 1).end() != len(text):
            raise ValueError("extra data")
        return out, offsets
    while True:
        if not text.startswith('"', i):
            raise ValueError("expected a key")
        key, j = scanstring(text, i + 1)
        if key in offsets:
            named = "dialogue key" if what == "predictions" else "key"
            raise InputError(f"{path}: {named} {key!r} is given twice ({_at(text, offsets[key])} and {_at(text, i)})")
        offsets[key] = i
        j = space(text, j).end()
        if not text.startswith(":", j):
            raise ValueError("expected ':'")
        out[key], j = _PLAIN.raw_decode(text, space(text, j + 1).end())
        j = space(text, j).end()
        if text.startswith(",", j):
            i = space(text, j + 1).end()
        elif text.startswith("}", j):
            if space(text, j + 1).end() != len(text):
                raise ValueError("extra data")
            return out, offsets
        else:
            raise ValueError("expected ',' or '}'")


def _at(text: str, offset: int) -> str:
    """``at line L, column C`` of a character offset (as JSON errors count them, from 1)."""
    return f"at line {text.count(chr(10), 0, offset) + 1}, column {offset - text.rfind(chr(10), 0, offset)}"


@dataclasses.dataclass(frozen=True)
class Turn:
    """One predicted system turn: response, optional state and active domains."""

    response: str
    state: dict[str, dict[str, str]] | None
    active_domains: tuple[str, ...] | None


Predictions = dict[str, list[Turn]]


def load_predictions(source: str | os.PathLike | Mapping[str, Any]) -> Predictions:
    """Validate predictions given as a mapping or a JSON file path."""
    where = ""
    offsets: Mapping[str, int] = {}
    text = ""
    if isinstance(source, (str, os.PathLike)):
        data, offsets, text = _read_json_keyed(source, "predictions")
        where = f"{source}: "
        if isinstance(data, Mapping) and not data:
            raise InputError(f"{where}no dialogue in it (an empty input is refused, not scored as zero)")
    else:
        data = source
    if not isinstance(data, Mapping):
        raise InputError(
            f"{where}predictions must be a dict of dialogue id -> list of turns, got {type(data).__name__}"
        )
    out: Predictions = {}
    given: dict[str, str] = {}  # evaluation key -> the id it was first given as
    for dialogue_id, turns in data.items():
        if not isinstance(dialogue_id, str):
            raise InputError(f"{where}dialogue id {dialogue_id!r} is not a string")
        key = dialogue_key(dialogue_id)
        if key in out:
            first = given[key]
            at = ""
            if dialogue_id in offsets and first in offsets:
                at = f" ({_at(text, offsets[first])} and {_at(text, offsets[dialogue_id])})"
            raise InputError(
                f"{where}dialogue {key!r} appears twice, as {first!r} and {dialogue_id!r}{at}: ids are read "
                "without case and '.json'"
            )
        given[key] = dialogue_id
        if not isinstance(turns, list):
            raise InputError(f"{where}dialogue {dialogue_id}: expected a list of turns, got {type(turns).__name__}")
        try:
            out[key] = [read_turn(dialogue_id, i, t) for i, t in enumerate(turns)]
        except InputError as error:
            raise InputError(f"{where}{error}") from None
    return out


def read_turn(dialogue_id: str, index: int, turn: Any) -> Turn:
    """One predicted turn, validated (a copy); errors name the dialogue and the turn."""
    where = f"dialogue {dialogue_id}, turn {index}"
    if not isinstance(turn, Mapping):
        raise InputError(f"{where}: expected a dict with 'response', got {type(turn).__name__}")
    if "response" not in turn:
        raise InputError(f"{where}: missing 'response'")
    response = turn["response"]
    if not isinstance(response, str):
        raise InputError(f"{where}: 'response' must be a string, got {type(response).__name__}")
    state = None
    if "state" in turn:
        state = _state(where, turn["state"])
    domains = None
    if "active_domains" in turn:
        raw = turn["active_domains"]
        if not isinstance(raw, list) or not all(isinstance(d, str) for d in raw):
            raise InputError(f"{where}: 'active_domains' must be a list of strings, got {raw!r}")
        domains = tuple(raw)
    return Turn(response, state, domains)


def _state(where: str, state: Any) -> dict[str, dict[str, str]]:
    if not isinstance(state, Mapping):
        raise InputError(f"{where}: 'state' must be {{domain: {{slot: value}}}}, got {type(state).__name__}")
    out = {}
    for domain, slots in state.items():
        if not isinstance(domain, str) or not isinstance(slots, Mapping):
            raise InputError(f"{where}: state domain {domain!r} must map to a dict of slot -> value")
        for slot, value in slots.items():
            if not isinstance(slot, str) or not isinstance(value, str):
                raise InputError(
                    f"{where}: state {domain}.{slot} must be a string slot with a string value, got {value!r}"
                )
        out[domain] = dict(slots)
    return out


@dataclasses.dataclass
class Coverage:
    """How much of the test set the predictions cover."""

    dialogues: int
    dialogues_in_test: int
    turns: int
    turns_in_test: int

    def as_dict(self) -> dict[str, Any]:
        """JSON form, with ``complete`` when every dialogue and turn is there."""
        return {
            "dialogues": self.dialogues,
            "dialogues_in_test": self.dialogues_in_test,
            "turns": self.turns,
            "turns_in_reference": self.turns_in_test,
            "complete": self.dialogues == self.dialogues_in_test and self.turns == self.turns_in_test,
        }


def check_against_test_set(predictions: Predictions, turn_counts: Mapping[str, int]) -> tuple[Coverage, list[dict]]:
    """Ids and turn counts against the test set; errors raise, shortfalls are warnings."""
    unknown = [key for key in predictions if key not in turn_counts]
    if unknown:
        from mwz_datasets.multiwoz_raw import TEST_DIALOGUES

        shown = ", ".join(unknown[:10])
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        if len(turn_counts) < TEST_DIALOGUES:  # the data, not the predictions, is short
            raise InputError(
                f"the local MultiWOZ copy is truncated: its test set holds {len(turn_counts)} of the "
                f"{TEST_DIALOGUES} dialogues, so {len(unknown)} predicted dialogue id(s) are not in it "
                f"({shown}{more}); point MWZ_MIRROR (or --data-dir) at a full copy, or unset it to download one"
            )
        raise InputError(f"{len(unknown)} dialogue id(s) not in the MultiWOZ test set: {shown}{more}")
    warnings = []
    short = {}
    for key, turns in predictions.items():
        expected = turn_counts[key]
        if len(turns) > expected:
            raise InputError(
                f"dialogue {key}: {len(turns)} predicted turns but the reference has {expected} system turns"
            )
        if len(turns) < expected:
            short[key] = (len(turns), expected)
    if short:
        warnings.append(
            {
                "kind": "fewer_turns_than_reference",
                "count": len(short),
                "examples": {k: {"predicted": p, "reference": r} for k, (p, r) in list(short.items())[:10]},
                "effect": "evaluated on the turns given",
            }
        )
    coverage = Coverage(
        dialogues=len(predictions),
        dialogues_in_test=len(turn_counts),
        turns=sum(len(t) for t in predictions.values()),
        turns_in_test=sum(turn_counts.values()),
    )
    if coverage.dialogues < coverage.dialogues_in_test:
        warnings.append(
            {
                "kind": "partial_test_set",
                "count": coverage.dialogues_in_test - coverage.dialogues,
                "effect": "scores cover only the dialogues given",
            }
        )
    return coverage, warnings

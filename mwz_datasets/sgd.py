"""Schema-Guided Dialogue (Rastogi et al. 2020; CC BY-SA 4.0) as extra training text.

Reads either SGD's own ``dialogues_*.json`` files (a file, or a folder searched recursively) or
the one-line-per-dialogue JSONL form (optionally gzipped) of ``{"dialogue_id", "services",
"turns": [[speaker, utterance, [[slot, start, exclusive_end], ...]], ...]}``. Either way a dialogue
comes out as ``{"dialogue_id", "services", "turns": [(speaker, utterance, spans)]}`` with speaker
``user``/``system`` and character spans.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class SGDFormatError(ValueError):
    """A file that is not SGD in either form; the message names the file and the dialogue."""


def _from_upstream(dialogue: dict[str, Any], where: str) -> dict[str, Any]:
    turns = []
    for index, turn in enumerate(dialogue.get("turns") or []):
        if not isinstance(turn, dict) or not isinstance(turn.get("utterance"), str):
            raise SGDFormatError(f"{where}, turn {index}: expected an object with an 'utterance'")
        spans = [
            (slot["slot"], int(slot["start"]), int(slot["exclusive_end"]))
            for frame in turn.get("frames") or []
            for slot in frame.get("slots") or []
        ]
        turns.append((str(turn.get("speaker", "")).lower(), turn["utterance"], spans))
    return {"dialogue_id": dialogue.get("dialogue_id"), "services": dialogue.get("services") or [], "turns": turns}


def _from_line(record: dict[str, Any], where: str) -> dict[str, Any]:
    turns = []
    for index, turn in enumerate(record.get("turns") or []):
        if not isinstance(turn, list) or len(turn) != 3:
            raise SGDFormatError(f"{where}, turn {index}: expected [speaker, utterance, spans]")
        speaker, utterance, spans = turn
        turns.append((str(speaker).lower(), str(utterance), [(s, int(a), int(b)) for s, a, b in spans]))
    return {"dialogue_id": record.get("dialogue_id"), "services": record.get("services") or [], "turns": turns}


def iter_dialogues(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Every dialogue of an SGD file or folder, in file order."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("dialogues_*.json"))
        if not files:
            raise SGDFormatError(f"{path}: no dialogues_*.json in this folder")
        for file in files:
            yield from iter_dialogues(file)
        return
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            if path.name.endswith((".jsonl", ".jsonl.gz")):
                for number, line in enumerate(f, start=1):
                    if line.strip():
                        yield _from_line(json.loads(line), f"{path}, line {number}")
                return
            data = json.load(f)
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise SGDFormatError(f"{path}: not readable as SGD ({error})") from None
    if not isinstance(data, list):
        raise SGDFormatError(f"{path}: expected a list of dialogues")
    for index, dialogue in enumerate(data):
        yield _from_upstream(dialogue, f"{path}, dialogue {dialogue.get('dialogue_id', index)}")

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

from mwz_datasets.sgd_files import FILES
from mwz_datasets.sources import ResolvedFile, Source, resolve
from mwz_plugins.errors import InputError

REPO = "google-research-datasets/dstc8-schema-guided-dialogue"
COMMIT = "e852981ae34990f4358979625854259302feaa78"
LICENSE = "CC BY-SA 4.0"
SPLITS = ("train", "dev", "test")  # SGD's own splits: none of them is MultiWOZ

# SGD slot names -> the ontology placeholder their values become (others stay words).
SGD_PLACEHOLDERS = {
    "restaurant_name": "NAME",
    "hotel_name": "NAME",
    "place_name": "NAME",
    "attraction_name": "NAME",
    "event_name": "NAME",
    "phone_number": "PHONE",
    "address": "ADDRESS",
    "street_address": "ADDRESS",
    "address_of_location": "ADDRESS",
    "time": "TIME",
    "departure_time": "TIME",
    "leaving_time": "TIME",
    "arrival_time": "TIME",
    "pickup_time": "TIME",
    "date": "DAY",
    "city": "PLACE",
    "location": "PLACE",
    "from_location": "PLACE",
    "to_location": "PLACE",
    "from_city": "PLACE",
    "to_city": "PLACE",
    "origin": "PLACE",
    "destination": "PLACE",
    "price_range": "PRICE",
    "price": "PRICE",
    "total_price": "PRICE",
    "price_per_night": "PRICE",
    "fare": "PRICE",
    "cuisine": "FOOD",
    "category": "TYPE",
    "number_of_seats": "COUNT",
    "number_of_people": "COUNT",
    "star_rating": "COUNT",
    "number_of_rooms": "COUNT",
    "rating": "COUNT",
}


def delexicalize(text: str, spans) -> str:
    """``text`` with the values of SGD_PLACEHOLDERS' slots written as ``[SLOT]`` (character spans,
    applied in start order; an overlapping span or another slot's keeps its words)."""
    pieces: list[str] = []
    position = 0
    for slot, start, end in sorted(spans, key=lambda s: (s[1], s[2])):
        if start < position or slot not in SGD_PLACEHOLDERS:
            continue
        pieces.extend((text[position:start], f"[{SGD_PLACEHOLDERS[slot]}]"))
        position = end
    return "".join(pieces) + text[position:]


def sources(splits=SPLITS) -> list[Source]:
    """The pinned upstream ``dialogues_*.json`` files of ``splits`` (verified by git blob id)."""
    unknown = sorted(set(splits) - set(SPLITS))
    if unknown:
        raise InputError(f"SGD has no split {unknown[0]!r}; choose from {', '.join(SPLITS)}")
    return [Source(REPO, COMMIT, path, git_blob=blob) for path, blob in FILES.items() if path.split("/")[0] in splits]


def upstream_files(splits=SPLITS, data_dir: str | os.PathLike | None = None) -> dict[str, ResolvedFile]:
    """The pinned files of ``splits``: from ``data_dir`` (a copy of the repository), $MWZ_MIRROR,
    the cache, or downloaded at the pinned commit and checked against their git blob ids."""
    return resolve(sources(splits), data_dir=data_dir, verify_local=True)


class SGDFormatError(InputError):
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

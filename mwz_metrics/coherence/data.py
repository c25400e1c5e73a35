"""Sessions to score: MultiWOZ 2.1 dialogues, predictions spliced between gold user turns.

The raw 2.1 dialogues come from :mod:`mwz_datasets.multiwoz_raw` (the owner of the
upstream file layout), resolved through :mod:`mwz_datasets.sources` so that
``MWZ_MIRROR`` and the download cache apply. A *session* is a list of
``{"speaker", "text"}`` turns.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mwz_datasets.multiwoz_raw import evaluation_key as dialogue_id
from mwz_plugins.ontology import PLACEHOLDER_RE

SPLITS = ("train", "validation", "test")
USER, SYSTEM = "user", "system"


# MultiWOZ 2.1 dialogue-act slot names (span_info) -> unified ontology slot.
ACT_SLOT_TO_ONTOLOGY = {
    "addr": "ADDRESS",
    "area": "AREA",
    "arrive": "TIME",
    "leave": "TIME",
    "time": "TIME",
    "day": "DAY",
    "dest": "PLACE",
    "depart": "PLACE",
    "food": "FOOD",
    "name": "NAME",
    "phone": "PHONE",
    "post": "POST",
    "price": "PRICE",
    "ticket": "PRICE",
    "fee": "PRICE",
    "ref": "REFERENCE",
    "choice": "COUNT",
    "stars": "COUNT",
    "people": "COUNT",
    "stay": "COUNT",
    "type": "TYPE",
    "car": "TYPE",
    "id": "TRAINID",
    "internet": "INTERNET",
    "parking": "PARKING",
    "department": "DEPARTMENT",
    "open": "OPEN",
}
_SKIPPED_VALUES = {"none", "dontcare", "?", ""}


@dataclass(frozen=True)
class Corpus:
    """Dialogues of one split: id (lowercase, no ``.json``) -> turns (:data:`TURN_FIELDS` of the raw ones); plus provenance."""

    split: str
    dialogues: Mapping[str, Sequence[Mapping[str, Any]]]
    source: dict[str, object]


def _resolve(split: str, data_dir: str | None) -> dict[str, Any]:
    from mwz_datasets import multiwoz_raw, sources

    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; MultiWOZ 2.1 here has {sorted(SPLITS)}")
    return sources.resolve(multiwoz_raw.sources("2.1", [split]), data_dir=data_dir)


def corpus_source(split: str = "test", data_dir: str | None = None) -> dict[str, object]:
    """Provenance (file, checksum...) of the MultiWOZ 2.1 copy holding ``split``, without reading it."""
    (resolved,) = _resolve(split, data_dir).values()
    return resolved.signature()


# The fields of a raw 2.1 turn that sessions, negatives, domains and delexicalization read. The
# per-turn belief state ("metadata") is most of data.json, and nothing here reads it.
TURN_FIELDS = ("text", "dialog_act", "span_info")


@functools.lru_cache(maxsize=4)
def load_corpus(split: str = "test", data_dir: str | None = None) -> Corpus:
    """The turns (:data:`TURN_FIELDS`) of every MultiWOZ 2.1 dialogue of ``split``, keyed as mwzeval keys them.

    Derived once per zip (its checksum keys a file in the cache): the zip's data.json holds every
    split with its belief states (400 MB upstream), far more than one split's turns to parse."""
    from mwz_datasets import multiwoz_raw
    from mwz_metrics.multiwoz.cache import cached

    files = _resolve(split, data_dir)
    (resolved,) = files.values()

    def build() -> dict[str, list[dict[str, Any]]]:
        paths = {name: f.path for name, f in files.items()}
        return {
            key: [{name: turn[name] for name in TURN_FIELDS if name in turn} for turn in raw["log"]]
            for key, raw in multiwoz_raw.iter_raw_dialogues("2.1", split, paths)
        }

    # keyed by the zip and this module (which picks the fields); the cache adds the package and mwz_datasets' code
    this_module = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    dialogues = cached(f"corpus21-{split}", [resolved.sha256, this_module], build)
    return Corpus(split, dialogues, resolved.signature())


def delexicalize_21(text: str, span_info: Sequence[Sequence[Any]]) -> str:
    """Replace 2.1 ``span_info`` word spans (inclusive word offsets) by ``[SLOT]``.

    Spans are applied in start order; an overlapping span, a span of an unknown
    slot or of a non-value (``none``, ``dontcare``, ``?``) is skipped.
    """
    words = text.split()
    spans = []
    for _act, slot, value, start, end in span_info:
        target = ACT_SLOT_TO_ONTOLOGY.get(str(slot).lower())
        if target is None or str(value).strip().lower() in _SKIPPED_VALUES:
            continue
        if not (0 <= int(start) <= int(end) < len(words)):
            continue
        spans.append((int(start), int(end), target))
    pieces: list[str] = []
    position = 0
    for start, end, target in sorted(spans, key=lambda s: (s[0], s[1])):
        if start < position:
            continue
        pieces.extend(words[position:start])
        pieces.append(f"[{target}]")
        position = end + 1
    pieces.extend(words[position:])
    return " ".join(pieces)


@functools.lru_cache(maxsize=1)
def _placeholder_map() -> dict[str, str]:
    from mwz_plugins import get_registry

    return dict(get_registry().placeholder_map())


def normalize_placeholders(text: str) -> str:
    """Known ``[name]`` placeholders -> ``[SLOT]``, a plural ``s``/``es`` dropped (as mwzeval does);
    unknown ones kept, lowercased. A hyphenated suffix is the next word's (``[stars]-star``): kept."""
    mapping = _placeholder_map()

    def replace(match: re.Match) -> str:
        name = match.group(1).lower()
        slot = mapping.get(name) or (name.upper() if name.upper() in _ontology() else None)
        suffix = match.group(2) if match.group(2).startswith("-") else ""
        return (f"[{slot}]" if slot else f"[{name}]") + suffix

    return PLACEHOLDER_RE.sub(replace, text)


@functools.lru_cache(maxsize=1)
def _ontology() -> frozenset[str]:
    from mwz_plugins.ontology import ONTOLOGY_SLOTS

    return ONTOLOGY_SLOTS


@functools.lru_cache(maxsize=1)
def _bare_slot_re() -> re.Pattern:
    slots = "|".join(sorted(_ontology(), key=len, reverse=True))
    return re.compile(rf"(?<![\[\w])({slots})(?:es|s)?(?![\]\w])")


def canonical_placeholders(text: str) -> str:
    """Every placeholder style in one form, ``[SLOT]``: ``[value_name]``, ``[restaurant_name]``,
    ``[NAME]`` and mwzeval's normalized bare ``NAME`` (an all-capitals ontology slot name) alike."""
    return _bare_slot_re().sub(r"[\1]", normalize_placeholders(text))


def has_placeholders(text: str) -> bool:
    """Whether ``text`` holds a placeholder any style (or the ontology) knows."""
    mapping = _placeholder_map()
    return any(
        m.group(1).lower() in mapping or m.group(1).upper() in _ontology() for m in PLACEHOLDER_RE.finditer(text)
    )


def gold_session(turns: Sequence[Mapping[str, Any]], *, delexicalized: bool) -> list[dict[str, str]]:
    """One gold dialogue as a session; system turns delexicalized when asked."""
    session = []
    for index, turn in enumerate(turns):
        speaker = USER if index % 2 == 0 else SYSTEM
        text = turn["text"]
        if speaker == SYSTEM and delexicalized:
            text = normalize_placeholders(delexicalize_21(text, turn.get("span_info", [])))
        session.append({"speaker": speaker, "text": text})
    return session


def gold_sessions(
    corpus: Corpus, *, delexicalized: bool, ids: Sequence[str] | None = None
) -> dict[str, list[dict[str, str]]]:
    """The gold sessions of a corpus (all dialogues, or ``ids``)."""
    chosen = corpus.dialogues if ids is None else {i: corpus.dialogues[i] for i in ids}
    return {name: gold_session(turns, delexicalized=delexicalized) for name, turns in chosen.items()}


def _response(entry: Any, name: str, index: int) -> str:
    if isinstance(entry, Mapping):
        if "response" not in entry:
            raise ValueError(f"dialogue {name!r}, system turn {index}: no 'response' key")
        entry = entry["response"]
    if not isinstance(entry, str):
        raise ValueError(
            f"dialogue {name!r}, system turn {index}: response must be a string, got {type(entry).__name__}"
        )
    return entry


def is_delexicalized(predictions: Mapping[str, Sequence[Any]]) -> bool:
    """mwzeval-format predictions count as delexicalized when any response has a known placeholder."""
    for turns in predictions.values():
        if isinstance(turns, str) or not isinstance(turns, Sequence):
            continue  # reported with its dialogue id by spliced_sessions
        for entry in turns:
            response = entry.get("response") if isinstance(entry, Mapping) else entry
            if isinstance(response, str) and has_placeholders(response):
                return True
    return False


def spliced_sessions(
    predictions: Mapping[str, Sequence[Any]],
    corpus: Corpus,
    *,
    delexicalized: bool,
    on_mismatch: str = "error",
) -> tuple[dict[str, list[dict[str, str]]], list[str]]:
    """Traditional evaluation: each predicted response between the gold user turns.

    Returns the sessions and the ids skipped for a turn-count mismatch
    (``on_mismatch="skip"``; the default raises).
    """
    if on_mismatch not in ("error", "skip"):
        raise ValueError(f"on_mismatch must be 'error' or 'skip', got {on_mismatch!r}")
    if not isinstance(predictions, Mapping):
        raise ValueError(f"predictions must map dialogue ids to lists of turns, got {type(predictions).__name__}")
    sessions: dict[str, list[dict[str, str]]] = {}
    skipped: list[str] = []
    for raw_name, turns in predictions.items():
        name = dialogue_id(str(raw_name))
        if name not in corpus.dialogues:
            raise ValueError(f"dialogue {raw_name!r} is not in the MultiWOZ 2.1 {corpus.split} set")
        if not isinstance(turns, Sequence) or isinstance(turns, str):
            raise ValueError(f"dialogue {raw_name!r}: predictions must be a list of turns")
        gold = corpus.dialogues[name]
        users = gold[0::2]
        n_system = len(gold) // 2
        if len(turns) != n_system:
            message = f"dialogue {raw_name!r}: {len(turns)} predicted system turns, the gold dialogue has {n_system}"
            if on_mismatch == "skip":
                skipped.append(name)
                continue
            raise ValueError(message)
        session = []
        for index, entry in enumerate(turns):
            response = _response(entry, str(raw_name), index)
            session.append({"speaker": USER, "text": users[index]["text"]})
            session.append({"speaker": SYSTEM, "text": normalize_placeholders(response) if delexicalized else response})
        if len(users) > n_system:  # a closing user turn
            session.append({"speaker": USER, "text": users[n_system]["text"]})
        sessions[name] = session
    return sessions, skipped


def validate_sessions(sessions: Mapping[str, Sequence[Any]]) -> dict[str, list[dict[str, str]]]:
    """Full sessions (simulator / interactive): lists of speaker/text turns, returned as copies."""
    if not isinstance(sessions, Mapping):
        raise ValueError(f"sessions must map ids to lists of turns, got {type(sessions).__name__}")
    checked: dict[str, list[dict[str, str]]] = {}
    for name, turns in sessions.items():
        if not isinstance(turns, Sequence) or isinstance(turns, str):
            raise ValueError(f"session {name!r}: must be a list of turns")
        session = []
        for index, turn in enumerate(turns):
            if isinstance(turn, Mapping):
                speaker, text = turn.get("speaker"), turn.get("text")
            else:
                raise ValueError(f"session {name!r}, turn {index}: expected a {{'speaker', 'text'}} mapping")
            if not isinstance(text, str):
                raise ValueError(f"session {name!r}, turn {index}: text must be a string, got {type(text).__name__}")
            if not isinstance(speaker, str):
                raise ValueError(f"session {name!r}, turn {index}: speaker must be a string")
            session.append({"speaker": speaker, "text": text})
        checked[str(name)] = session
    return checked

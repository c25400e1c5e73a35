"""Sessions to score: MultiWOZ 2.1 dialogues, predictions spliced between gold user turns.

The 2.1 turns come from :mod:`mwz_datasets.corpus` (the reader of the upstream files); a
*session* is a list of ``{"speaker", "text"}`` turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mwz_datasets.corpus import Corpus
from mwz_datasets.multiwoz_raw import evaluation_key as dialogue_id
from mwz_metrics.placeholders import delexicalize_21, has_placeholders, normalize_placeholders
from mwz_plugins.errors import InputError

USER, SYSTEM = "user", "system"


def dialogue_domains(turns: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """Domains named by a 2.1 dialogue's acts (``Restaurant-Inform`` -> ``restaurant``), general excluded."""
    domains = set()
    for turn in turns:
        acts = turn.get("dialog_act") or {}
        if isinstance(acts, Mapping):
            for act in acts:
                domain = str(act).split("-", 1)[0].lower()
                if domain not in ("general", "booking"):
                    domains.add(domain)
    return frozenset(domains)


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
            raise InputError(f"dialogue {name!r}, system turn {index}: no 'response' key")
        entry = entry["response"]
    if not isinstance(entry, str):
        raise InputError(
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
        raise InputError(f"on_mismatch must be 'error' or 'skip', got {on_mismatch!r}")
    if not isinstance(predictions, Mapping):
        raise InputError(f"predictions must map dialogue ids to lists of turns, got {type(predictions).__name__}")
    sessions: dict[str, list[dict[str, str]]] = {}
    skipped: list[str] = []
    for raw_name, turns in predictions.items():
        name = dialogue_id(str(raw_name))
        if name not in corpus.dialogues:
            raise InputError(f"dialogue {raw_name!r} is not in the MultiWOZ 2.1 {corpus.split} set")
        if not isinstance(turns, Sequence) or isinstance(turns, str):
            raise InputError(f"dialogue {raw_name!r}: predictions must be a list of turns")
        gold = corpus.dialogues[name]
        users = gold[0::2]
        n_system = len(gold) // 2
        if len(turns) != n_system:
            message = f"dialogue {raw_name!r}: {len(turns)} predicted system turns, the gold dialogue has {n_system}"
            if on_mismatch == "skip":
                skipped.append(name)
                continue
            raise InputError(message)
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
        raise InputError(f"sessions must map ids to lists of turns, got {type(sessions).__name__}")
    checked: dict[str, list[dict[str, str]]] = {}
    for name, turns in sessions.items():
        if not isinstance(turns, Sequence) or isinstance(turns, str):
            raise InputError(f"session {name!r}: must be a list of turns")
        session = []
        for index, turn in enumerate(turns):
            if isinstance(turn, Mapping):
                speaker, text = turn.get("speaker"), turn.get("text")
            else:
                raise InputError(f"session {name!r}, turn {index}: expected a {{'speaker', 'text'}} mapping")
            if not isinstance(text, str):
                raise InputError(f"session {name!r}, turn {index}: text must be a string, got {type(text).__name__}")
            if not isinstance(speaker, str):
                raise InputError(f"session {name!r}, turn {index}: speaker must be a string")
            session.append({"speaker": speaker, "text": text})
        checked[str(name)] = session
    return checked

"""Scoring entry points shared by the ``evaluate`` module, the CLI and the train script."""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from mwz_metrics.coherence import data as cdata
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)


def _scorer(scorer):
    if scorer is not None:
        return scorer
    from mwz_metrics.coherence.scorer import CoherenceScorer

    return CoherenceScorer()


def _signature(
    scorer: Any, setting: str, options: Mapping[str, object], sources: list[dict[str, Any]]
) -> dict[str, Any]:
    from mwz_metrics.signature import Signature, source_checksums

    model = scorer.signature()
    details = {
        "metric": "mwz_session_coherence",
        "version": __version__,
        "setting": setting,
        "model": model,
        "sources": sources,
        "options": dict(options),
    }
    weights = str(model.get("weights_sha256", ""))[:12]
    head = str(model.get("head_sha256", ""))[:12]
    return Signature.build(
        "mwz_session_coherence",
        data=source_checksums(sources),
        model=f"minilm={weights}+head={head}",
        options={"setting": setting, **options},
        details=details,
    ).as_dict()


def _prime_gold(scorer, corpus, *, system: bool, delexicalized: bool) -> None:
    """Embed the gold test turns canonically (and from disk after the first run)."""
    prime = getattr(scorer.encoder, "prime", None)
    if prime is None:
        return
    from mwz_metrics.coherence.data import normalize_placeholders

    sessions = cdata.gold_sessions(corpus, delexicalized=delexicalized)
    user = [
        normalize_placeholders(t["text"]) for turns in sessions.values() for t in turns if t["speaker"] == cdata.USER
    ]
    prime(user, f"{corpus.split}-user")
    if system:
        texts = [
            normalize_placeholders(t["text"])
            for turns in sessions.values()
            for t in turns
            if t["speaker"] != cdata.USER
        ]
        prime(texts, f"{corpus.split}-system-{'delex' if delexicalized else 'lex'}")


def looks_like_sessions(data: Any) -> bool:
    """Full sessions are lists of {"speaker", "text"} turns; mwzeval predictions have "response"."""
    if not isinstance(data, Mapping):
        return False
    for turns in data.values():
        if isinstance(turns, Sequence) and not isinstance(turns, str) and turns:
            first = turns[0]
            return isinstance(first, Mapping) and "speaker" in first
    return False


def score_predictions(
    predictions: Mapping[str, Sequence[Any]],
    *,
    delexicalized: bool | None = None,
    on_mismatch: str = "error",
    with_gold: bool = False,
    scorer=None,
    data_dir: str | None = None,
) -> dict[str, Any]:
    """Traditional setting: each predicted response between the gold user turns of the 2.1 test set.

    ``delexicalized=None`` detects it (any known ``[placeholder]``); then the gold
    system turns are delexicalized too wherever gold is scored (``with_gold``).
    """
    predictions = copy.deepcopy(predictions)  # never touch the caller's object
    corpus = cdata.load_corpus("test", data_dir)
    if delexicalized is None:
        delexicalized = cdata.is_delexicalized(predictions) if isinstance(predictions, Mapping) else False
    sessions, skipped = cdata.spliced_sessions(
        predictions, corpus, delexicalized=delexicalized, on_mismatch=on_mismatch
    )
    if skipped:
        logger.warning("skipped %d dialogue(s) whose turn count differs from the gold one: %s", len(skipped), skipped)
    scorer = _scorer(scorer)
    _prime_gold(scorer, corpus, system=False, delexicalized=delexicalized)
    result = scorer.score(sessions)
    result["delexicalized"] = delexicalized
    result["skipped_dialogues"] = skipped
    result["missing_dialogues"] = len(set(corpus.dialogues) - set(sessions) - set(skipped))
    if with_gold:
        gold = score_gold(scorer=scorer, delexicalized=delexicalized, ids=sorted(sessions), data_dir=data_dir)
        result["gold_coherence"] = gold["coherence"]
        result["gold_coherence_per_session"] = gold["coherence_per_session"]
    options = {"delexicalized": delexicalized, "on_mismatch": on_mismatch, "with_gold": with_gold}
    result["signature"] = _signature(scorer, "traditional", options, [corpus.source])
    return result


def score_gold(
    *,
    delexicalized: bool = False,
    ids: Sequence[str] | None = None,
    scorer=None,
    data_dir: str | None = None,
) -> dict[str, Any]:
    """The gold test sessions (optionally delexicalized, optionally only ``ids``)."""
    corpus = cdata.load_corpus("test", data_dir)
    if ids is not None:
        unknown = [i for i in ids if cdata.dialogue_id(i) not in corpus.dialogues]
        if unknown:
            raise ValueError(f"dialogue(s) not in the MultiWOZ 2.1 test set: {unknown[:5]}")
        ids = [cdata.dialogue_id(i) for i in ids]
    sessions = cdata.gold_sessions(corpus, delexicalized=delexicalized, ids=ids)
    scorer = _scorer(scorer)
    # System turns are primed only for the whole gold set (the CLI's --gold), where it pays.
    _prime_gold(scorer, corpus, system=ids is None, delexicalized=delexicalized)
    result = scorer.score(sessions)
    result["delexicalized"] = delexicalized
    options = {"delexicalized": delexicalized, "dialogues": "all" if ids is None else len(ids)}
    result["signature"] = _signature(scorer, "gold", options, [corpus.source])
    return result


def score_sessions(sessions: Mapping[str, Sequence[Mapping[str, str]]], *, scorer=None) -> dict[str, Any]:
    """Full sessions as given (simulator or interactive evaluation)."""
    checked = cdata.validate_sessions(sessions)  # copies
    scorer = _scorer(scorer)
    result = scorer.score(checked)
    result["signature"] = _signature(scorer, "sessions", {}, [])
    return result

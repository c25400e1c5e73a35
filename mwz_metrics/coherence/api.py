"""Scoring entry points shared by the ``evaluate`` module, the CLI and the probes."""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from mwz_datasets import corpus as corpora
from mwz_metrics.coherence import data as cdata
from mwz_metrics.coherence import report
from mwz_plugins.errors import InputError
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)

_SHARED: dict[str, Any] = {}


def shared_scorer():
    """One scorer (model and pair memo) per process, so that many systems share it."""
    if "scorer" not in _SHARED:
        from mwz_metrics.coherence.scorer import CoherenceScorer

        _SHARED["scorer"] = CoherenceScorer()
    return _SHARED["scorer"]


def _scorer(scorer):
    return scorer if scorer is not None else shared_scorer()


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
    base = str(model.get("base_sha256", ""))[:12]
    adapter = str(model.get("adapter_sha256", ""))[:12]
    training = str(model.get("training_data_sha256", ""))[:12]
    return Signature.build(
        "mwz_session_coherence",
        data=source_checksums(sources),
        model=f"minilm={base}+delta={adapter}+train={training}",
        options={"setting": setting, **options},
        details=details,
    ).as_dict()


def looks_like_sessions(data: Any) -> bool:
    """Full sessions are lists of {"speaker", "text"} turns; mwzeval predictions have "response"."""
    if not isinstance(data, Mapping):
        return False
    for turns in data.values():
        if isinstance(turns, Sequence) and not isinstance(turns, str) and turns:
            first = turns[0]
            return isinstance(first, Mapping) and "speaker" in first
    return False


def _report(result: dict[str, Any], sessions, domains, explain: int) -> None:
    per_pair = result["pair_probabilities"]
    result["ci95"] = report.bootstrap(per_pair)
    if domains is not None:
        result["per_domain"] = report.per_domain(per_pair, domains)
    if explain:
        result["least_coherent"] = report.least_coherent(sessions, per_pair, explain)


def test_domains(corpus: corpora.Corpus) -> dict[str, frozenset[str]]:
    """Domains of each dialogue of a corpus (from its dialogue acts)."""

    return {name: cdata.dialogue_domains(turns) for name, turns in corpus.dialogues.items()}


def score_predictions(
    predictions: Mapping[str, Sequence[Any]],
    *,
    delexicalized: bool | None = None,
    on_mismatch: str = "error",
    with_gold: bool = False,
    explain: int = 0,
    scorer=None,
    data_dir: str | None = None,
    description: str = "coherence",
) -> dict[str, Any]:
    """Traditional setting: each predicted response between the gold user turns of the 2.1 test set.

    ``delexicalized=None`` detects it (any known ``[placeholder]``); then the gold
    system turns are delexicalized too wherever gold is scored (``with_gold``).
    With ``with_gold``, the result adds gold on the same dialogues and the
    paired-bootstrap difference gold - system.
    """
    predictions = copy.deepcopy(predictions)  # never touch the caller's object
    corpus = corpora.load_corpus("test", data_dir)
    if delexicalized is None:
        delexicalized = cdata.is_delexicalized(predictions) if isinstance(predictions, Mapping) else False
    sessions, skipped = cdata.spliced_sessions(
        predictions, corpus, delexicalized=delexicalized, on_mismatch=on_mismatch
    )
    if skipped:
        logger.warning("skipped %d dialogue(s) whose turn count differs from the gold one: %s", len(skipped), skipped)
    scorer = _scorer(scorer)
    result = scorer.score(sessions, description)
    result["delexicalized"] = delexicalized
    result["skipped_dialogues"] = skipped
    result["missing_dialogues"] = len(set(corpus.dialogues) - set(sessions) - set(skipped))
    _report(result, sessions, test_domains(corpus), explain)
    if with_gold:
        gold = score_gold(scorer=scorer, delexicalized=delexicalized, ids=sorted(sessions), data_dir=data_dir)
        result["gold_coherence"] = gold["coherence"]
        result["gold_coherence_per_session"] = gold["coherence_per_session"]
        result["gold_ci95"] = gold["ci95"]
        result["gold_minus_system"] = report.paired_difference(result["pair_probabilities"], gold["pair_probabilities"])
    options = {"delexicalized": delexicalized, "on_mismatch": on_mismatch, "with_gold": with_gold}
    result["signature"] = _signature(scorer, "traditional", options, [corpus.source])
    return result


def _gold_scores(scorer: Any, sessions: Mapping[str, Sequence[Mapping[str, str]]]) -> dict[str, Any]:
    """Gold's pair probabilities, cached by content (the pairs the model reads and the model's
    checksums): ``--with-gold`` for many systems, or run after run, scores gold's pairs once."""
    import hashlib
    import json
    from pathlib import Path

    import numpy as np

    from mwz_datasets import derived
    from mwz_metrics.coherence.scorer import session_pairs, summarize

    pairs = {name: session_pairs(name, turns) for name, turns in sorted(sessions.items())}
    content = hashlib.sha256(json.dumps(pairs, sort_keys=True).encode()).hexdigest()
    model = json.dumps(scorer.signature(), sort_keys=True, default=str)
    code = derived.code_fingerprint(Path(__file__).parent)
    built: list[bool] = []

    def build() -> dict[str, list[float]]:
        built.append(True)
        return scorer.score(sessions, "coherence (gold)")["pair_probabilities"]

    per_pair = derived.cached("coherence-gold", [content, model, code], build)
    if not built:
        logger.info("gold coherence of %d sessions read from the cache (same pairs, same model)", len(per_pair))
    result = summarize({name: np.asarray(values, dtype=np.float64) for name, values in per_pair.items()})
    result["pair_probabilities"] = per_pair
    return result


def score_gold(
    *,
    delexicalized: bool = False,
    ids: Sequence[str] | None = None,
    explain: int = 0,
    scorer=None,
    data_dir: str | None = None,
) -> dict[str, Any]:
    """The gold test sessions (optionally delexicalized, optionally only ``ids``)."""
    corpus = corpora.load_corpus("test", data_dir)
    if ids is not None:
        unknown = [i for i in ids if cdata.dialogue_id(i) not in corpus.dialogues]
        if unknown:
            raise InputError(f"dialogue(s) not in the MultiWOZ 2.1 test set: {unknown[:5]}")
        ids = [cdata.dialogue_id(i) for i in ids]
    sessions = cdata.gold_sessions(corpus, delexicalized=delexicalized, ids=ids)
    scorer = _scorer(scorer)
    result = _gold_scores(scorer, sessions)
    result["delexicalized"] = delexicalized
    _report(result, sessions, test_domains(corpus), explain)
    options = {"delexicalized": delexicalized, "dialogues": "all" if ids is None else len(ids)}
    result["signature"] = _signature(scorer, "gold", options, [corpus.source])
    return result


def score_sessions(
    sessions: Mapping[str, Sequence[Mapping[str, str]]], *, explain: int = 0, scorer=None
) -> dict[str, Any]:
    """Full sessions as given (simulator or interactive evaluation)."""
    checked = cdata.validate_sessions(sessions)  # copies
    scorer = _scorer(scorer)
    result = scorer.score(checked)
    _report(result, checked, None, explain)
    result["signature"] = _signature(scorer, "sessions", {}, [])
    return result

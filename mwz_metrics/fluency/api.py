"""Sentence fluency (Cheng et al. 2022, section 3.2.3): each response's Sent-Score, a system's mean.

A response's Sent-Score is its mean token cross-entropy (nats) under a language model of
MultiWOZ system turns; lower is more fluent. A system scores the mean over its responses, with a
bootstrap 95% interval over dialogues, per-domain means and, on request, its least fluent
responses. Placeholders of every style read alike (``[value_name]``, ``[restaurant_name]`` and
mwzeval's ``NAME`` are one word, ``[name]``), so delexicalized systems of different styles are
comparable; lexicalized ones are scored as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mwz_plugins.errors import InputError
from mwz_plugins.version import __version__

_SHARED: dict[tuple, Any] = {}


def shared_model(model: str | None = None, *, data_dir: str | None = None) -> Any:
    """One model per process and name (systems scored together share it and its memo)."""
    from mwz_metrics.fluency.model import load

    key = (model or "default", data_dir)
    if key not in _SHARED:
        _SHARED[key] = load(model, data_dir=data_dir)
    return _SHARED[key]


def _interval(scores: Mapping[str, Sequence[float]], resamples: int, seed: int) -> list[float] | None:
    # the interval mwz compare shows for this figure: the same dialogues, resamples and order
    from mwz_metrics import bootstrap

    found = bootstrap.interval(bootstrap.means(scores), resamples=resamples, seed=seed)
    return list(found) if found is not None else None


def report(
    responses: Mapping[str, Sequence[str]],
    scores: Mapping[str, Sequence[float]],
    domains: Mapping[str, Sequence[str]] | None = None,
    *,
    explain: int = 0,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Mean, interval, per-dialogue and per-domain means and the least fluent responses."""
    names = [n for n in responses if len(scores[n])]
    if not names:
        raise InputError("no response to score")
    sums = np.array([sum(scores[n]) for n in names], dtype=np.float64)
    counts = np.array([len(scores[n]) for n in names], dtype=np.float64)
    result: dict[str, Any] = {
        "fluency": float(sums.sum() / counts.sum()),
        "responses": int(counts.sum()),
        "dialogues": len(names),
        "ci95": _interval({n: scores[n] for n in names}, resamples, seed),
        "per_dialogue": {n: float(s / c) for n, s, c in zip(names, sums, counts)},
    }
    if domains is not None:
        grouped: dict[str, list[float]] = {}
        for name in names:
            for domain, score in zip(domains.get(name, ()), scores[name]):
                grouped.setdefault(domain, []).append(score)
        result["per_domain"] = {
            d: {"fluency": float(np.mean(v)), "responses": len(v)} for d, v in sorted(grouped.items())
        }
    if explain:
        ranked = sorted(
            ((score, name, index) for name in names for index, score in enumerate(scores[name])), reverse=True
        )[:explain]
        result["least_fluent"] = [
            {"dialogue": name, "turn": index, "score": score, "response": responses[name][index]}
            for score, name, index in ranked
        ]
    return result


def _signature(model: Any, setting: str, options: Mapping[str, Any], sources: list[dict[str, Any]]) -> dict[str, Any]:
    from mwz_metrics.signature import Signature, source_checksums

    identity = model.identity()
    return Signature.build(
        "mwz_fluency",
        data=source_checksums(sources),
        model=model.short(),
        options={"setting": setting, "unit": "nats per token", "tokens": model.tokens, **options},
        details={"metric": "mwz_fluency", "version": __version__, "model": identity, "sources": sources},
    ).as_dict()


def _test_domains(keys: Sequence[str], data_dir: str | None) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """Per test dialogue and system turn, the domain of the gold turn (and the corpus' provenance)."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.fluency.text import turn_domains

    corpus = load_corpus("test", data_dir)
    return {k: turn_domains(corpus.dialogues[k]) for k in keys if k in corpus.dialogues}, corpus.source


def score_predictions(
    predictions: Mapping[str, Sequence[Any]] | str,
    *,
    model: Any = None,
    explain: int = 0,
    resamples: int = 1000,
    seed: int = 0,
    data_dir: str | None = None,
) -> dict[str, Any]:
    """Sent-Score of mwzeval predictions (a mapping or a JSON path; the caller's object untouched).

    Domains: each turn's ``active_domains`` when given, else the gold test turn's."""
    from mwz_metrics.inputs import InputError, load_predictions

    loaded = load_predictions(predictions)  # validated copies: the caller's object is never touched
    if not loaded or not any(loaded.values()):
        raise InputError("predictions hold no response to score")
    model = model if model is not None else shared_model(data_dir=data_dir)
    responses = {k: [t.response for t in v] for k, v in loaded.items()}
    scores = {k: model.scores(v) for k, v in responses.items()}
    given = all(t.active_domains is not None for v in loaded.values() for t in v)
    sources: list[dict[str, Any]] = []
    if given:
        domains = {k: [(t.active_domains or ("none",))[0] for t in v] for k, v in loaded.items()}
    else:
        domains, source = _test_domains(list(loaded), data_dir)
        sources.append(source)
    result = report(responses, scores, domains, explain=explain, resamples=resamples, seed=seed)
    result["domains"] = "given active_domains" if given else "the gold test turn's (MultiWOZ 2.1 acts)"
    result["per_response"] = scores
    result["signature"] = _signature(model, "predictions", {"resamples": resamples}, sources)
    return result


def score_gold(
    *,
    model: Any = None,
    delexicalized: bool = True,
    ids: Sequence[str] | None = None,
    explain: int = 0,
    resamples: int = 1000,
    seed: int = 0,
    data_dir: str | None = None,
) -> dict[str, Any]:
    """Sent-Score of the MultiWOZ 2.1 test system turns (spans as placeholders when ``delexicalized``)."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.fluency.text import system_turn_texts, turn_domains

    corpus = load_corpus("test", data_dir)
    chosen = list(corpus.dialogues) if ids is None else [i for i in ids if i in corpus.dialogues]
    responses = {k: system_turn_texts(corpus.dialogues[k], delexicalized=delexicalized) for k in chosen}
    domains = {k: turn_domains(corpus.dialogues[k]) for k in chosen}
    model = model if model is not None else shared_model(data_dir=data_dir)
    scores = {k: model.scores(v) for k, v in responses.items()}
    result = report(responses, scores, domains, explain=explain, resamples=resamples, seed=seed)
    result["per_response"] = scores
    options = {"delexicalized": delexicalized, "resamples": resamples}
    result["signature"] = _signature(model, "gold", options, [corpus.source])
    return result


def score_sessions(
    sessions: Sequence[Mapping[str, Any]],
    *,
    model: Any = None,
    explain: int = 0,
    resamples: int = 1000,
    seed: int = 0,
    data_dir: str | None = None,
) -> dict[str, Any]:
    """Sent-Score of the system turns of interactive sessions (:mod:`mwz_metrics.interactive`)."""
    model = model if model is not None else shared_model(data_dir=data_dir)
    from mwz_metrics.records.session import system_turns

    responses = {s["id"]: [t["text"] for t in system_turns(s)] for s in sessions}
    domains = {s["id"]: [(t.get("active_domains") or ["none"])[0] for t in system_turns(s)] for s in sessions}
    scores = {k: model.scores(v) for k, v in responses.items()}
    result = report(responses, scores, domains, explain=explain, resamples=resamples, seed=seed)
    result["per_response"] = scores
    result["signature"] = _signature(model, "sessions", {"resamples": resamples}, [])
    return result

"""The probe table: does the metric separate gold from systems, and can it be gamed?

``python -m mwz_metrics.coherence.research.probes --predictions DIR [--metrics compare.json] --out probes.json``

Everything is scored through :mod:`mwz_metrics.coherence.api`, the code behind
``mwz coherence``, on the MultiWOZ 2.1 **test** dialogues (never trained on):

- held-out ROC-AUC of the pair classifier: gold pairs against one negative each,
  a random same-role turn of another dialogue, or the same-role turn two turns
  away in the same dialogue (the hard case), overall and per direction (a system
  turn after a user turn, a user turn after a system turn);
- the same AUCs on as many dialogues of the split the adapter learned from: how well
  the model fits its own training dialogues, the ceiling its held-out AUC sits under;
- gold sessions (delexicalized, as the systems write) against every system, with
  the paired-bootstrap difference over the dialogues both have;
- degenerate systems built from the test set (:data:`~.negatives.DEGENERATES`);
- placeholder invariance: one system rewritten in three placeholder styles;
- optionally, Spearman's rank correlation of the systems' coherence with BLEU and
  Success from a ``mwz compare --format json`` file;
- optionally (``--mix LABEL=ADAPTER``), other adapters trained on other data mixes: their
  AUCs, gold score and gaps to the systems closest to gold, on the same dialogues, so the
  card shows what each mix did.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from mwz_datasets import corpus as corpora
from mwz_metrics import placeholders
from mwz_metrics.coherence import api
from mwz_metrics.coherence import data as cdata
from mwz_metrics.coherence.model import pair_text
from mwz_metrics.coherence.research.negatives import DEGENERATES, NegativeSampler, degenerate_predictions
from mwz_metrics.records.turns import speaker_of
from mwz_metrics.settings import parse_pair

logger = logging.getLogger("mwz_metrics.coherence.research.probes")
SEED = 7
# direction of a pair -> how its first side starts (model.pair_text)
DIRECTIONS = {"user->system": pair_text("", True), "system->user": pair_text("", False)}


def ranks(values) -> np.ndarray:
    """1-based ranks, ties sharing their mean rank."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    out = np.empty(len(values), dtype=np.float64)
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        out[order[start : end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return out


def roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Rank-based ROC-AUC (ties count half)."""
    labels = np.asarray(labels, dtype=bool)
    ranks_ = ranks(scores)
    n_pos, n_neg = labels.sum(), (~labels).sum()
    return float((ranks_[labels].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def separation(positives: np.ndarray, negatives: np.ndarray) -> float:
    """ROC-AUC of positive against negative scores, rounded as the probe table shows it."""
    labels = np.concatenate([np.ones(len(positives)), np.zeros(len(negatives))])
    return round(roc_auc(labels, np.concatenate([positives, negatives])), 4)


def auc_probes(scorer, corpus: corpora.Corpus, ids: list[str] | None = None, seed: int = SEED) -> dict[str, Any]:
    """Held-out ROC-AUC with random and with neighbouring-turn negatives (delexicalized gold pairs)."""
    chosen = ids or sorted(corpus.dialogues)
    texts = {
        name: [placeholders.normalize_placeholders(t["text"]) for t in session]
        for name, session in cdata.gold_sessions(corpus, delexicalized=True, ids=chosen).items()
    }
    sampler = NegativeSampler(texts, {})
    rng = random.Random(seed)
    positives: list[tuple[str, str]] = []
    negatives: dict[str, list[tuple[str, str]]] = {"random": [], "neighbour": []}
    for name in sorted(texts):
        turns = texts[name]
        for position in range(1, len(turns)):
            user_first = position % 2 == 1
            first = pair_text(turns[position - 1], user_first)
            positives.append((first, pair_text(turns[position], not user_first)))
            for kind in negatives:
                text = sampler.negative(kind, name, position, rng)
                if text is not None:
                    negatives[kind].append((first, pair_text(text, not user_first)))
    pos = scorer.logits(positives, "coherence (AUC positives)")
    out: dict[str, Any] = {"split": corpus.split, "dialogues": len(texts), "positives": len(positives)}
    for kind, pairs in negatives.items():
        neg = scorer.logits(pairs, f"coherence (AUC {kind})")
        by_direction = {}
        for direction, role in DIRECTIONS.items():
            keep_pos = np.array([first.startswith(role) for first, _ in positives], dtype=bool)
            keep_neg = np.array([first.startswith(role) for first, _ in pairs], dtype=bool)
            by_direction[direction] = separation(pos[keep_pos], neg[keep_neg])
        out[kind] = {"roc_auc": separation(pos, neg), "negatives": len(pairs), "by_direction": by_direction}
    return out


def fit_probes(scorer, adapter_meta: dict[str, str], dialogues: int | None, data_dir: str | None) -> dict[str, Any]:
    """:func:`auc_probes` on the first ``dialogues`` dialogues (all where None) of the MultiWOZ 2.1
    split the adapter learned from (its metadata's ``splits``; validation before that was stored):
    positives it was trained on, negatives drawn afresh. Held-out AUC sits under this figure."""
    split = adapter_meta.get("splits", "validation").split("+")[0]
    corpus = corpora.load_corpus(split, data_dir)
    ids = sorted(corpus.dialogues)[:dialogues] if dialogues else None
    return auc_probes(scorer, corpus, ids)


DOMAINS = ("restaurant", "hotel", "attraction", "train", "taxi", "hospital", "police")


def _style_names(prefixes: tuple[str, ...]) -> dict[str, str]:
    """Slot -> a placeholder name with one of ``prefixes`` that the registered styles map to it."""
    from mwz_plugins import get_registry

    names: dict[str, str] = {}
    for name, slot in sorted(get_registry().placeholder_map().items()):
        if name.startswith(prefixes):
            names.setdefault(slot, name)
    return names


def rewrite_placeholders(predictions: dict, style: str) -> dict:
    """The same predictions with every known placeholder written in ``style``: ``value``
    (``[value_name]``), ``domain`` (``[restaurant_name]``...) or ``bare`` (mwzeval's ``NAME``)."""
    pattern = re.compile(r"\[([A-Za-z_ ]+)\]")
    names = {"value": _style_names(("value_",)), "domain": _style_names(tuple(f"{d}_" for d in DOMAINS))}.get(style, {})

    def rewrite(text: str) -> str:
        def one(match: re.Match) -> str:
            slot = placeholders.normalize_placeholders(match.group(0))[1:-1]
            if slot != slot.upper():  # unknown placeholder: keep
                return match.group(0)
            if style == "bare":
                return slot
            return f"[{names[slot]}]" if slot in names else f"[{slot}]"

        return pattern.sub(one, text)

    return {
        name: [{**turn, "response": rewrite(turn["response"])} for turn in turns] for name, turns in predictions.items()
    }


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation."""
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def metric_table(path: Path) -> dict[str, dict[str, float]]:
    """Each system's total of every metric in a ``mwz compare --format json`` file."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)["rows"]
    table: dict[str, dict[str, float]] = {}
    for row in rows:
        if row["domain"] == "total" and isinstance(row["value"], (int, float)):
            table.setdefault(row["system"], {})[row["metric"]] = float(row["value"])
    return table


def _subset(predictions: dict, chosen: set[str] | None) -> dict:
    """The predictions of the ``chosen`` dialogues (all where None)."""
    return predictions if chosen is None else {k: v for k, v in predictions.items() if cdata.dialogue_id(k) in chosen}


def _versus_gold(scored: dict[str, Any], gold_pairs: Any) -> dict[str, Any]:
    """A scored system's row: its coherence and interval, and gold minus it, paired over dialogues."""
    from mwz_metrics.coherence.report import paired_difference

    difference = paired_difference(scored["pair_probabilities"], gold_pairs)
    return {
        "coherence": round(scored["coherence"], 2),
        "ci95": scored["ci95"],
        "sessions": scored["n_sessions"],
        "gold_minus_system": difference,
    }


def _system_rows(
    scorer, predictions_dir: Path, chosen: set[str] | None, gold_pairs: Any, data_dir: str | None
) -> dict[str, Any]:
    """Each system of ``predictions_dir`` against gold, with the seconds its scoring took."""
    systems = {}
    for path in sorted(Path(predictions_dir).glob("*.json")):
        with open(path, encoding="utf-8") as f:
            predictions = _subset(json.load(f), chosen)
        one = time.time()
        scored = api.score_predictions(
            predictions, scorer=scorer, on_mismatch="skip", data_dir=data_dir, description=f"coherence ({path.stem})"
        )
        systems[path.stem] = {**_versus_gold(scored, gold_pairs), "seconds": round(time.time() - one, 1)}
        logger.info(
            "%s: %.2f (gold - system %.2f)",
            path.stem,
            scored["coherence"],
            systems[path.stem]["gold_minus_system"]["difference"],
        )
    return systems


def _degenerate_rows(
    scorer, corpus: corpora.Corpus, ids: list[str] | None, gold_pairs: Any, data_dir: str | None
) -> dict[str, Any]:
    """Each degenerate system built from the gold sessions (:data:`~.negatives.DEGENERATES`) against gold."""
    sessions = cdata.gold_sessions(corpus, delexicalized=True, ids=ids)
    users = {n: [t["text"] for t in s if speaker_of(t) == cdata.USER] for n, s in sessions.items()}
    responses = {n: [t["text"] for t in s if speaker_of(t) == cdata.SYSTEM] for n, s in sessions.items()}
    degenerate = {}
    for kind in DEGENERATES:
        predictions = degenerate_predictions(users, responses, kind, seed=SEED)
        scored = api.score_predictions(
            predictions, scorer=scorer, delexicalized=True, data_dir=data_dir, description=f"coherence ({kind})"
        )
        degenerate[kind] = _versus_gold(scored, gold_pairs)
        logger.info("degenerate %s: %.2f", kind, scored["coherence"])
    return degenerate


def _placeholder_styles(
    scorer, predictions_dir: Path, first: str, chosen: set[str] | None, data_dir: str | None
) -> dict[str, Any]:
    """System ``first`` scored with its placeholders in each style, and the spread of those scores."""
    with open(Path(predictions_dir) / f"{first}.json", encoding="utf-8") as f:
        predictions = _subset(json.load(f), chosen)
    styles = {}
    for style in ("value", "domain", "bare"):
        scored = api.score_predictions(
            rewrite_placeholders(predictions, style),
            scorer=scorer,
            delexicalized=True,
            on_mismatch="skip",
            data_dir=data_dir,
            description=f"coherence ({first}, {style} placeholders)",
        )
        styles[style] = round(scored["coherence"], 4)
    return {
        "system": first,
        "scores": styles,
        "spread": round(max(styles.values()) - min(styles.values()), 4),
    }


def _spearman_row(metrics: Path, systems: dict[str, Any]) -> dict[str, Any]:
    """Spearman's correlation of the systems' coherence with each BLEU, Success and Inform column of ``metrics``."""
    table = metric_table(metrics)
    names = [n for n in sorted(systems) if n in table]
    coherence = [systems[n]["coherence"] for n in names]
    correlations = {}
    for metric in ("bleu", "success", "inform"):
        keys = sorted({k for n in names for k in table[n] if k == metric or k.startswith(metric + ":")})
        for key in keys:
            values = [table[n].get(key, float("nan")) for n in names]
            if not any(np.isnan(values)):
                correlations[key] = round(spearman(coherence, values), 3)
    return {"systems": len(names), "with": correlations}


def run(
    predictions_dir: Path, *, metrics: Path | None = None, data_dir: str | None = None, dialogues: int | None = None
) -> dict[str, Any]:
    """Every probe; returns the table as a dict (what the model card shows). ``dialogues``: only
    the first N test dialogues (sorted ids), for every probe alike."""
    scorer = api.shared_scorer()
    corpus = corpora.load_corpus("test", data_dir)
    ids = sorted(corpus.dialogues)[:dialogues] if dialogues else None
    chosen = set(ids) if ids else None

    started = time.time()
    result: dict[str, Any] = {"model": scorer.signature(), "dialogues": len(ids) if ids else len(corpus.dialogues)}

    gold = api.score_gold(scorer=scorer, delexicalized=True, ids=ids, data_dir=data_dir)
    result["gold"] = {"coherence": round(gold["coherence"], 2), "ci95": gold["ci95"], "sessions": gold["n_sessions"]}
    gold_pairs = gold["pair_probabilities"]
    result["auc"] = auc_probes(scorer, corpus, ids)
    result["auc_training_dialogues"] = fit_probes(scorer, scorer.classifier.training, dialogues, data_dir)
    systems = _system_rows(scorer, predictions_dir, chosen, gold_pairs, data_dir)
    result["systems"] = systems
    result["degenerate"] = _degenerate_rows(scorer, corpus, ids, gold_pairs, data_dir)
    if systems:
        result["placeholder_styles"] = _placeholder_styles(
            scorer, predictions_dir, sorted(systems)[0], chosen, data_dir
        )
    if metrics is not None and systems:
        result["spearman"] = _spearman_row(metrics, systems)
    result["seconds"] = round(time.time() - started, 1)
    return result


CLOSEST = 3  # systems nearest to gold whose gaps a mix row repeats


def mix_row(label: str, adapter: Path, systems: dict[str, Any], predictions_dir: Path, *, ids, data_dir) -> dict:
    """The probes that decide between training mixes, under another adapter: AUCs, gold, and
    gold minus each of the CLOSEST systems nearest to gold in ``systems`` (the main run's)."""
    from mwz_metrics.coherence.model import PairClassifier
    from mwz_metrics.coherence.report import paired_difference
    from mwz_metrics.coherence.research.train import read_adapter
    from mwz_metrics.coherence.scorer import CoherenceScorer

    scorer = CoherenceScorer(PairClassifier(adapter))
    corpus = corpora.load_corpus("test", data_dir)
    chosen = set(ids) if ids else None
    gold = api.score_gold(scorer=scorer, delexicalized=True, ids=ids, data_dir=data_dir)
    closest = sorted(systems, key=lambda name: systems[name]["gold_minus_system"]["difference"])[:CLOSEST]
    gaps = {}
    for name in closest:
        with open(predictions_dir / f"{name}.json", encoding="utf-8") as f:
            predictions = json.load(f)
        if chosen is not None:
            predictions = {k: v for k, v in predictions.items() if cdata.dialogue_id(k) in chosen}
        scored = api.score_predictions(predictions, scorer=scorer, on_mismatch="skip", data_dir=data_dir)
        gaps[name] = paired_difference(scored["pair_probabilities"], gold["pair_probabilities"])
    _, meta = read_adapter(adapter)
    return {
        "label": label,
        "adapter_sha256": scorer.classifier.adapter_sha256,
        "stages": json.loads(meta.get("stages", "[]")),
        "steps": int(meta.get("steps", 0)),
        "extra_corpora": {k[len("extra_") : -len("_sha256")]: v for k, v in meta.items() if k.startswith("extra_")},
        "auc": auc_probes(scorer, corpus, ids),
        "auc_training_dialogues": fit_probes(scorer, meta, len(ids) if ids else None, data_dir),
        "gold": round(gold["coherence"], 2),
        "gold_minus_closest": gaps,
    }


def main(argv=None) -> int:
    """Run the probes and write them as JSON; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m mwz_metrics.coherence.research.probes", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--predictions", type=Path, required=True, help="folder of mwzeval predictions (*.json)")
    parser.add_argument("--metrics", type=Path, help="`mwz compare --format json` output for the Spearman row")
    parser.add_argument("--data-dir")
    parser.add_argument("--dialogues", type=int, help="only the first N test dialogues (sorted ids)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--mix",
        action="append",
        default=[],
        metavar="LABEL=ADAPTER",
        help="also probe an adapter trained on another data mix (AUCs, gold, closest systems)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    mixes = []
    for spec in args.mix:
        label, path = parse_pair(spec, "--mix", "LABEL=ADAPTER")
        if not Path(path).is_file():
            parser.error(f"--mix {spec!r}: expected LABEL=ADAPTER with an existing adapter file")
        mixes.append((label, Path(path)))
    result = run(args.predictions, metrics=args.metrics, data_dir=args.data_dir, dialogues=args.dialogues)
    corpus = corpora.load_corpus("test", args.data_dir)
    ids = sorted(corpus.dialogues)[: args.dialogues] if args.dialogues else None
    result["mixes"] = [
        mix_row(label, path, result["systems"], args.predictions, ids=ids, data_dir=args.data_dir)
        for label, path in mixes
    ]
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    logger.info("wrote %s", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

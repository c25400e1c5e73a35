"""The probes behind the fluency model card: ``python -m mwz_metrics.fluency.research.probes``.

On every MultiWOZ 2.1 test system turn (delexicalized), the default model scores the gold
response and, paired with it, the response broken six ways: words shuffled, reduced to keywords
(its placeholders and content words, as RL-trained systems answer), one word repeated, truncated
mid-sentence, replaced by the user's turn before it (an echo), replaced by a constant reply. Then
the 19 shared systems against gold, the placeholder styles against each other, the training mixes
against each other, and (with ``--metrics``, a ``mwz compare --format json`` file) Spearman's rank
correlation of the systems' fluency with BLEU, Success and the coherence card's scores.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mwz_metrics.fluency import api
from mwz_metrics.fluency.model import NgramFluency

logger = logging.getLogger("mwz_metrics.fluency.research.probes")
SEED = 7
CONSTANT = "is there anything else i can help you with ?"
# Function words dropped from a keyword list (what remains: placeholders and content words).
STOPWORDS = frozenset(
    "the a an is are was were be been it its of to and or in on at for with from by you your i we "
    "would like that this there these those can could will shall do does did have has had any anything "
    "else help please what which how when where who whom so as if then than also just am me my our "
    ". , ? ! ' \" ( ) : ;".split()
)


def _keywords(words: list[str]) -> list[str]:
    kept = [w for w in words if w.startswith("[") or w not in STOPWORDS]
    return kept or words[:1]


def _shuffled(words: list[str], rng: random.Random) -> list[str]:
    if len(set(words)) < 2:
        return list(words)
    shuffled = list(words)
    while shuffled == words:
        rng.shuffle(shuffled)
    return shuffled


def _repeated(words: list[str], rng: random.Random) -> list[str]:
    if not words:
        return words
    i = rng.randrange(len(words))
    return [*words[: i + 1], words[i], *words[i + 1 :]]


def _truncated(words: list[str], rng: random.Random) -> list[str]:
    if len(words) < 2:
        return words
    return words[: max(1, min(len(words) - 1, len(words) // 2))]


def gold_material(data_dir: str | None = None, dialogues: int | None = None) -> dict[str, Any]:
    """The gold responses (delexicalized), the user turns before them and their domains, per test dialogue."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.fluency.text import system_turn_texts, turn_domains

    corpus = load_corpus("test", data_dir)
    ids = sorted(corpus.dialogues)[:dialogues] if dialogues else sorted(corpus.dialogues)
    return {
        "responses": {k: system_turn_texts(corpus.dialogues[k]) for k in ids},
        "users": {k: [t["text"] for t in corpus.dialogues[k][0::2][: len(corpus.dialogues[k]) // 2]] for k in ids},
        "domains": {k: turn_domains(corpus.dialogues[k]) for k in ids},
        "source": corpus.source,
    }


def _words_probe(transform: Callable[[list[str], random.Random], list[str]]) -> Callable:
    def apply(
        responses: Mapping[str, list[str]], users: Mapping[str, list[str]], rng: random.Random
    ) -> dict[str, list[str]]:
        from mwz_metrics.tokens import model_words

        return {k: [" ".join(transform(model_words(r), rng)) for r in v] for k, v in responses.items()}

    return apply


PROBES: dict[str, Callable] = {
    "shuffled_words": _words_probe(_shuffled),
    "keyword_list": _words_probe(lambda words, rng: _keywords(words)),
    "repeated_word": _words_probe(_repeated),
    "truncated": _words_probe(_truncated),
    "echo_user": lambda responses, users, rng: {k: list(users[k][: len(v)]) for k, v in responses.items()},
    "constant": lambda responses, users, rng: {k: [CONSTANT] * len(v) for k, v in responses.items()},
}


def paired_difference(
    probe: Mapping[str, Sequence[float]], gold: Mapping[str, Sequence[float]], *, resamples: int = 1000, seed: int = 0
) -> dict[str, float]:
    """Mean of (probe - gold) over paired responses, with a bootstrap 95% CI over dialogues."""
    from mwz_metrics import bootstrap

    names = [n for n in gold if len(gold[n]) and n in probe]
    sums = np.array([sum(p - g for p, g in zip(probe[n], gold[n])) for n in names])
    counts = np.array([min(len(probe[n]), len(gold[n])) for n in names], dtype=np.float64)
    difference = float(sums.sum() / counts.sum())
    if resamples <= 0:
        return {"difference": difference, "low": float("nan"), "high": float("nan")}
    weights = bootstrap.resample_weights(len(names), resamples, seed)
    samples = (weights @ sums) / np.maximum(weights @ counts, 1.0)
    low, high = bootstrap.confidence_interval(samples)
    return {"difference": difference, "low": low, "high": high}


def _probe_table(model: Any, material: Mapping[str, Any], resamples: int) -> dict[str, Any]:
    gold_scores = {k: model.scores(v) for k, v in material["responses"].items()}
    gold = api.report(material["responses"], gold_scores, material["domains"], resamples=resamples)
    rows = {}
    for name, make in PROBES.items():
        responses = make(material["responses"], material["users"], random.Random(f"{SEED}:{name}"))
        scores = {k: model.scores(v) for k, v in responses.items()}
        rows[name] = {
            "fluency": api.report(responses, scores, resamples=0)["fluency"],
            "minus_gold": paired_difference(scores, gold_scores, resamples=resamples),
        }
    return {
        "gold": {k: gold[k] for k in ("fluency", "ci95", "responses", "per_domain")},
        "probes": rows,
        "gold_scores": gold_scores,
    }


def _systems(model: Any, predictions_dir: Path, material: Mapping[str, Any], resamples: int) -> dict[str, Any]:
    from mwz_metrics.inputs import load_predictions

    gold_scores = {k: model.scores(v) for k, v in material["responses"].items()}
    out = {}
    for path in sorted(predictions_dir.glob("*.json")):
        started = time.perf_counter()
        loaded = {
            k: [t.response for t in v] for k, v in load_predictions(str(path)).items() if k in material["responses"]
        }
        scores = {k: model.scores(v) for k, v in loaded.items()}
        result = api.report(loaded, scores, resamples=resamples)
        # gold minus system on the same dialogues: dialogue means, paired
        per_dialogue = {k: [float(np.mean(v))] for k, v in scores.items() if v}
        gold_means = {k: [float(np.mean(gold_scores[k]))] for k in per_dialogue if gold_scores.get(k)}
        difference = paired_difference(gold_means, {k: per_dialogue[k] for k in gold_means}, resamples=resamples)
        out[path.stem] = {
            "fluency": result["fluency"],
            "ci95": result["ci95"],
            "responses": result["responses"],
            "gold_minus_system": difference,
            "seconds": round(time.perf_counter() - started, 2),
        }
    return out


def _styles(model: Any, predictions_dir: Path) -> dict[str, float]:
    from mwz_metrics.coherence.research.probes import rewrite_placeholders

    path = predictions_dir / "augpt.json"
    if not path.is_file():
        return {}
    predictions = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for style in ("value", "domain", "bare"):
        rewritten = rewrite_placeholders(predictions, style)
        responses = {k: [t["response"] for t in v] for k, v in rewritten.items()}
        out[style] = api.report(responses, {k: model.scores(v) for k, v in responses.items()}, resamples=0)["fluency"]
    return out


def _mixes(material: Mapping[str, Any], systems_dir: Path, sgd: str | None, data_dir: str | None) -> dict[str, Any]:
    """The probe means under models trained on other text: + validation user turns, + SGD system turns."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.fluency.research.train import sgd_system_texts
    from mwz_metrics.fluency.text import training_sentences
    from mwz_metrics.tokens import model_words

    base = training_sentences(data_dir)
    corpus = load_corpus("validation", data_dir)
    users = [model_words(t["text"]) for turns in corpus.dialogues.values() for t in turns[0::2]]
    mixes: dict[str, list[list[str]]] = {
        "validation system turns (default)": base,
        "+ validation user turns": base + users,
    }
    if sgd:
        mixes["+ SGD system turns"] = base + [model_words(t) for t in sgd_system_texts(sgd)]
    out = {}
    for name, sentences in mixes.items():
        model = NgramFluency(sentences)
        table = _probe_table(model, material, resamples=0)
        systems = _systems(model, systems_dir, material, resamples=0) if systems_dir.is_dir() else {}
        values = [s["fluency"] for s in systems.values()]
        out[name] = {
            "sentences": len(sentences),
            "gold": table["gold"]["fluency"],
            "probes": {k: v["fluency"] for k, v in table["probes"].items()},
            "systems_spread": (max(values) - min(values)) if values else None,
        }
    return out


def run(
    predictions_dir: Path,
    *,
    metrics: Path | None = None,
    sgd: str | None = None,
    data_dir: str | None = None,
    dialogues: int | None = None,
    resamples: int = 1000,
) -> dict[str, Any]:
    """Every probe; the JSON the model card is written from."""
    from mwz_metrics.coherence.research.probes import metric_table, spearman

    material = gold_material(data_dir, dialogues)
    model = api.shared_model(data_dir=data_dir)
    table = _probe_table(model, material, resamples)
    table.pop("gold_scores")
    systems = _systems(model, predictions_dir, material, resamples) if predictions_dir.is_dir() else {}
    result: dict[str, Any] = {
        "dialogues": len(material["responses"]),
        "model": model.identity(),
        "source": material["source"],
        **table,
        "systems": systems,
        "styles": _styles(model, predictions_dir),
        "mixes": _mixes(material, predictions_dir, sgd, data_dir),
    }
    if metrics is not None and systems:
        others = metric_table(metrics)
        coherence = coherence_from_card()
        names = sorted(systems)
        for metric in ("bleu:mwz22", "success", "inform"):
            pairs = [(systems[n]["fluency"], others[n][metric]) for n in names if metric in others.get(n, {})]
            if len(pairs) > 2:
                result.setdefault("spearman", {})[metric] = spearman(*map(list, zip(*pairs)))
        pairs = [(systems[n]["fluency"], coherence[n]) for n in names if n in coherence]
        if len(pairs) > 2:
            result.setdefault("spearman", {})["coherence"] = spearman(*map(list, zip(*pairs)))
    return result


def coherence_from_card() -> dict[str, float]:
    """Each system's coherence as the coherence model card reports it (all test dialogues)."""
    card = Path(__file__).resolve().parents[2] / "coherence" / "MODEL_CARD.md"
    values = {}
    for line in card.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| ([a-z0-9-]+) \| ([0-9.]+) \| \[", line)
        if match:
            values[match.group(1)] = float(match.group(2))
    return values


def main(argv: Sequence[str] | None = None) -> int:
    """Run the probes and write their JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m mwz_metrics.fluency.research.probes", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--predictions", type=Path, required=True, help="a folder of mwzeval predictions (*.json)")
    parser.add_argument("--metrics", type=Path, help="`mwz compare --format json` output for the Spearman rows")
    parser.add_argument("--sgd", help="SGD turns (JSONL or dialogues_*.json) for the training-mix rows")
    parser.add_argument("--dialogues", type=int, help="only the first N test dialogues")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data-dir")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    started = time.perf_counter()
    result = run(args.predictions, metrics=args.metrics, sgd=args.sgd, data_dir=args.data_dir, dialogues=args.dialogues)
    result["seconds"] = round(time.perf_counter() - started, 1)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    logger.info("wrote %s in %.0f s", args.out, result["seconds"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

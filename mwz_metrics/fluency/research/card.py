"""Writes the fluency model card from a probe run: ``python -m mwz_metrics.fluency.research.card --probes probes.json``.

Every number in ``MODEL_CARD.md`` comes from the probe JSON (``python -m mwz_metrics.fluency.research.probes``)
or the shipped manifest; nothing is typed by hand.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

CARD = Path(__file__).resolve().parent.parent / "MODEL_CARD.md"  # shipped with the runtime package

_PROBE_NAMES = {
    "shuffled_words": "words shuffled",
    "keyword_list": "keyword list (placeholders and content words)",
    "repeated_word": "one word repeated",
    "truncated": "truncated mid-sentence",
    "echo_user": "the user's turn echoed",
    "constant": "a constant reply",
}


def _interval(block: Any) -> str:
    if not block:
        return ""
    low, high = (block["low"], block["high"]) if isinstance(block, dict) else block
    return f"[{low:.3f}, {high:.3f}]"


_SEPARATED = ("shuffled_words", "keyword_list", "repeated_word", "truncated", "echo_user")


def _separation(mix: dict[str, Any], probe: str) -> float:
    return (mix["probes"][probe] - mix["gold"]) / (mix["systems_spread"] or float("nan"))


def _mix_verdict(mixes: dict[str, Any]) -> list[str]:
    """Why the default mix, from the numbers: which alternative separates which probe better or worse."""
    if len(mixes) < 2:
        return []
    default_name, default = next(iter(mixes.items()))
    lines = [f"The default is the first row, {default_name.replace(' (default)', '')}."]
    dominated = False
    for name, mix in list(mixes.items())[1:]:
        better = [_PROBE_NAMES[p] for p in _SEPARATED if _separation(mix, p) > _separation(default, p)]
        worse = [_PROBE_NAMES[p] for p in _SEPARATED if _separation(mix, p) < _separation(default, p)]
        dominated = dominated or not worse
        lines.append(
            f"With {name}, separation is larger for {', '.join(better) or 'no probe'} and smaller for "
            f"{', '.join(worse) or 'no probe'}."
        )
    lines += [
        "An alternative separates every probe at least as well: reconsider the default."
        if dominated
        else "No alternative separates every probe better; the default keeps an echoed user turn far from gold",
        "(a system that parrots the user is not fluent as a system), needs nothing beyond MultiWOZ, and",
        "Schema-Guided Dialogue (CC BY-SA 4.0, Rastogi et al. 2020) is only read from a path the user gives,",
        "never shipped.",
    ]
    return lines


_INTRO = [
    "# Sentence fluency model (mwz-eval)",
    "",
    'Sent-Score, after Cheng et al. (2022), "Is MultiWOZ a Solved Task?", section 3.2.3: a response\'s',
    "mean token cross-entropy (nats per token, the sentence end included) under a language model of",
    "MultiWOZ system turns; lower is more fluent. Written by `python -m mwz_metrics.fluency.research.card` from the",
    "probe run; do not edit by hand.",
    "",
    "## Use",
    "",
    "```",
    "mwz fluency -i ubar.json -i damd.json --explain 10      # many systems, one model",
    "mwz fluency --gold                                      # the test system turns",
    "mwz fluency -i ubar.json --fluency-model gpt2           # any causal LM (the neural extra)",
    "python -m mwz_metrics.fluency.research.train                     # rebuilds the default, checks it",
    "python -m mwz_metrics.fluency.research.probes --predictions DIR --metrics compare.json --out probes.json",
    "```",
    "",
]


def _model_lines(model: dict[str, Any], systems: dict[str, Any]) -> list[str]:
    """The card's Model section: what was counted, from what, and why an n-gram model."""
    return [
        "## Model",
        "",
        f"- A {model['order']}-gram interpolated modified Kneser-Ney model (Chen & Goodman 1998), counted in pure",
        "  Python from the MultiWOZ 2.1 **validation** system turns (test is what it is reported on), their",
        "  annotated values written as placeholders, every placeholder style read as one word (`[value_name]`,",
        "  `[restaurant_name]` and `NAME` are all `[name]`), words split as MultiWOZ 2.1 splits them.",
        f"- {model['sentences']} sentences, checksum of the exact training text `{model['training_sha256']}`;",
        f"  vocabulary {model['vocabulary']}; n-grams {json.dumps(model['ngrams'], sort_keys=True)}.",
        "- No seed is involved: counting is deterministic, and the shipped manifest (`default_model.json`) holds",
        "  the identity and the mean score of the test system turns that a rebuilt model must give to 1e-6",
        "  (`python -m mwz_metrics.fluency.research.train` checks it; the CI test too).",
        "- Why an n-gram model: it needs no download and no torch (fluency is in the core install), scores a",
        f"  system in about {min((s['seconds'] for s in systems.values()), default=0):.1f}-"
        f"{max((s['seconds'] for s in systems.values()), default=0):.1f} s, and separates every broken",
        "  response below from gold by far more than the systems differ (the training-mix table shows the",
        "  alternatives). Scores are per word, not per GPT-2 sub-word: they are not on the paper's scale.",
        "",
    ]


def _probe_lines(probes: dict[str, Any], spread: float) -> list[str]:
    """The probe table: gold, each probe's paired difference from it, and the systems' spread."""
    gold = probes["gold"]
    lines = [
        f"## Probe table ({probes['dialogues']} MultiWOZ 2.1 test dialogues, {gold['responses']} system turns, delexicalized)",
        "",
        "Each probe changes every gold response; the difference is paired per response, with a bootstrap",
        "95% interval over dialogues (1000 resamples).",
        "",
        "| response | Sent-Score | minus gold | 95% CI |",
        "| --- | --- | --- | --- |",
        f"| gold | {gold['fluency']:.3f} {_interval(gold['ci95'])} | | |",
    ]
    for name, row in probes["probes"].items():
        diff = row["minus_gold"]
        lines.append(
            f"| {_PROBE_NAMES.get(name, name)} | {row['fluency']:.3f} | {diff['difference']:+.3f} | {_interval(diff)} |"
        )
    lines += [
        "",
        f"Spread of the 19 systems (highest minus lowest): {spread:.3f}. Shuffled words and keyword lists lie",
        f"{probes['probes']['shuffled_words']['minus_gold']['difference'] / spread:.1f} and "
        f"{probes['probes']['keyword_list']['minus_gold']['difference'] / spread:.1f} spreads above gold; a constant",
        "reply scores *better* than gold: fluency reads a response alone, not whether it fits (coherence does).",
        "",
    ]
    return lines


def _style_and_spearman_lines(probes: dict[str, Any]) -> list[str]:
    """The placeholder-style spread and the Spearman correlations, where the probe run has them."""
    lines: list[str] = []
    styles = probes.get("styles") or {}
    if styles:
        lines += [
            "Placeholder styles (augpt rewritten as `[value_*]`, `[domain_*]`, bare `NAME`): "
            + ", ".join(f"{k} {v:.6f}" for k, v in styles.items())
            + f"; spread {max(styles.values()) - min(styles.values()):.6f}.",
            "",
        ]
    if probes.get("spearman"):
        lines += [
            "Spearman's rank correlation over the 19 systems (lower Sent-Score is better, so a negative",
            "value means the more fluent systems score higher on the other metric): "
            + ", ".join(f"{k} {v:+.3f}" for k, v in probes["spearman"].items())
            + " (BLEU, Success and Inform from `mwz compare`, coherence from its model card).",
            "",
        ]
    return lines


def _mix_row(name: str, mix: dict[str, Any]) -> str:
    """One training mix's table row: each probe's score with its separation from gold."""
    mix_spread = mix["systems_spread"] or float("nan")

    def cell(probe: str) -> str:
        value = mix["probes"][probe]
        return f"{value:.3f} ({(value - mix['gold']) / mix_spread:.2f})"

    return (
        f"| {name} | {mix['sentences']} | {mix['gold']:.3f} | {cell('shuffled_words')} | {cell('keyword_list')} | "
        f"{cell('repeated_word')} | {cell('truncated')} | {cell('echo_user')} | {mix_spread:.3f} |"
    )


def _mix_lines(mixes: dict[str, Any]) -> list[str]:
    """The training-mix section: the table of mixes and the verdict on the default."""
    lines = [
        "## Training text: which mix, and why",
        "",
        "Each mix trains the same model; *separation* is a probe's distance from gold in spreads of the",
        "19 systems under that model (larger separates better).",
        "",
        "| training text | sentences | gold | shuffled (sep.) | keywords (sep.) | repeated (sep.) | truncated (sep.) | echo (sep.) | systems' spread |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [_mix_row(name, mix) for name, mix in mixes.items()]
    return lines + ["", *_mix_verdict(mixes), ""]


def _system_lines(systems: dict[str, Any]) -> list[str]:
    """The systems' table, most fluent first, and how it compares with the paper."""
    lines = [
        "## Systems (each response scored alone; gold minus system over the same dialogues)",
        "",
        "| system | Sent-Score | 95% CI | gold - system | 95% CI | seconds |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, row in sorted(systems.items(), key=lambda item: item[1]["fluency"]):
        diff = row["gold_minus_system"]
        lines.append(
            f"| {name} | {row['fluency']:.3f} | {_interval(row['ci95'])} | {diff['difference']:+.3f} | {_interval(diff)} | {row['seconds']:.1f} |"
        )
    return lines + [
        "",
        "Like the paper (test set 1.44, systems 1.09-1.14 under its GPT-2), every system scores as more fluent",
        "than the human wizards: systems write shorter, more frequent phrasings.",
        "",
    ]


def render(probes: dict[str, Any]) -> str:
    """The card's Markdown."""
    systems = probes.get("systems", {})
    values = [s["fluency"] for s in systems.values()]
    spread = max(values) - min(values) if values else float("nan")
    lines = [
        *_INTRO,
        *_model_lines(probes["model"], systems),
        *_probe_lines(probes, spread),
        *_style_and_spearman_lines(probes),
        *_mix_lines(probes.get("mixes") or {}),
        *_system_lines(systems),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Write MODEL_CARD.md from a probe JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m mwz_metrics.fluency.research.card", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--probes", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=CARD)
    args = parser.parse_args(argv)
    args.out.write_text(render(json.loads(args.probes.read_text(encoding="utf-8"))), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

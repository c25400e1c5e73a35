"""The metric flags of ``mwz evaluate``, ``mwz compare`` and ``mwz interact``: ``--metric NAME`` for any
registered metric of dialogues (:mod:`mwz_metrics.metric`), and the older spellings of two of them."""

from __future__ import annotations

import argparse

# Older flags, each the spelling of one registered metric: flag -> (metric, help).
ALIASES = {
    "--coherence": ("coherence", "also session coherence (= --metric coherence; the 'coherence' extra)"),
    "--fluency": ("fluency", "also sentence fluency, Sent-Score, lower is better (= --metric fluency)"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--metric`` (repeatable) and the older spellings."""
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME[:KEY=VALUE,...]",
        help="also a registered metric of dialogues, with its options (repeatable; `mwz plugins` lists them)",
    )
    for flag, (_, text) in ALIASES.items():
        parser.add_argument(flag, action="store_true", help=text)
    parser.add_argument(
        "--fluency-model",
        metavar="NAME_OR_PATH",
        help="fluency under a Hugging Face causal LM (= --metric fluency:model=NAME; the 'neural' extra)",
    )


def requests(args: argparse.Namespace) -> list:
    """The metrics the flags ask for, in order: the older spellings first, then each ``--metric``."""
    from mwz_metrics.metric import MetricRequest

    out = [MetricRequest(name) for flag, (name, _) in ALIASES.items() if getattr(args, flag[2:].replace("-", "_"))]
    if args.fluency_model:
        out = [r for r in out if r.name != "fluency"] + [MetricRequest("fluency", (("model", args.fluency_model),))]
    out += [MetricRequest.parse(text) for text in args.metric]
    return out

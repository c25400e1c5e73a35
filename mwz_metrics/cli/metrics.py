"""The metric flags of ``mwz evaluate``, ``mwz compare`` and ``mwz interact``: ``--metric NAME`` for any
registered metric of dialogues (:mod:`mwz_metrics.metric`), and the older spellings of six of them.

The spellings are a fixed table rather than read from the registry: ``mwz --help`` then loads no
plugin (it stays as fast as ``python -c pass`` plus argparse), and a new metric needs none.
"""

from __future__ import annotations

import argparse

# Older flags, each the spelling of one registered metric: flags -> (metric, help).
ALIASES: dict[tuple[str, ...], tuple[str, str]] = {
    ("-b", "--bleu"): ("bleu", "BLEU per delexicalization style (= --metric bleu)"),
    ("-s", "--success"): ("success", "Inform and Success rates (= --metric success)"),
    ("-r", "--richness"): ("richness", "lexical richness (= --metric richness)"),
    ("--dst",): ("dst", "dialogue state tracking, joint accuracy and slot F1 (= --metric dst)"),
    ("--coherence",): ("coherence", "also session coherence (= --metric coherence; the 'coherence' extra)"),
    ("--fluency",): ("fluency", "also sentence fluency, Sent-Score, lower is better (= --metric fluency)"),
}


def add_arguments(parser: argparse.ArgumentParser, *, mwzeval: bool = True) -> None:
    """``--metric`` (repeatable) and the older spellings (``mwzeval=False``: those of mwzeval's four left
    out, for a command that scores them its own way)."""
    for flags, (name, text) in ALIASES.items():
        if mwzeval or flags[-1] in ("--coherence", "--fluency"):
            parser.add_argument(*flags, dest=f"metric_{name}", action="store_true", help=text)
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME[:KEY=VALUE,...]",
        help="a registered metric of dialogues, with its options (repeatable; `mwz plugins` lists them)",
    )
    parser.add_argument(
        "--fluency-model",
        metavar="NAME_OR_PATH",
        help="fluency under a Hugging Face causal LM (= --metric fluency:model=NAME; the 'neural' extra)",
    )


def requests(args: argparse.Namespace) -> list:
    """The metrics the flags ask for: the older spellings, then each ``--metric``."""
    from mwz_metrics.metric import MetricRequest

    out = [MetricRequest(name) for name, _ in ALIASES.values() if getattr(args, f"metric_{name}", False)]
    if args.fluency_model:
        out = [r for r in out if r.name != "fluency"] + [MetricRequest("fluency", (("model", args.fluency_model),))]
    out += [MetricRequest.parse(text) for text in args.metric]
    return out


def add_delexicalize_argument(parser: argparse.ArgumentParser) -> None:
    """``--delexicalize``: how responses that carry values are read (every metric reads the same)."""
    parser.add_argument(
        "--delexicalize",
        choices=("auto", "always", "never"),
        default="auto",
        help="responses with values instead of placeholders: auto (default) replaces the values of a set that "
        "carries more values than placeholders by mwzeval's placeholders (venue database, the dialogue's "
        "states), always does it to every response, never reads them as written; the signature says which",
    )

"""The metric flags of ``mwz evaluate``, ``mwz compare`` and ``mwz interact``: ``--metric NAME`` for any
registered metric of dialogues (:mod:`mwz_metrics.metric`) by its name (``mwz_success``) or, until the next
release, its old name (``success``, said in one warning line), and the older flags of six of them.

The spellings are a fixed table rather than read from the registry: ``mwz --help`` then loads no
plugin (it stays as fast as ``python -c pass`` plus argparse), and a new metric needs none.
"""

from __future__ import annotations

import argparse

# Older flags, each the spelling of one registered metric: flags -> (metric, help). The metric's old name
# (the long flag's) is the flag's dest, ``metric_success``.
ALIASES: dict[tuple[str, ...], tuple[str, str]] = {
    ("-b", "--bleu"): ("mwz_bleu", "BLEU per delexicalization style (= --metric mwz_bleu)"),
    ("-s", "--success"): ("mwz_success", "Inform and Success rates (= --metric mwz_success)"),
    ("-r", "--richness"): ("mwz_richness", "lexical richness (= --metric mwz_richness)"),
    ("--dst",): ("mwz_dst", "dialogue state tracking, joint accuracy and slot F1 (= --metric mwz_dst)"),
    ("--coherence",): (
        "mwz_session_coherence",
        "also session coherence (= --metric mwz_session_coherence; the 'coherence' extra)",
    ),
    ("--fluency",): ("mwz_fluency", "also sentence fluency, Sent-Score, lower is better (= --metric mwz_fluency)"),
}
_SAID = "_metric_renamed"  # the namespace's old metric names already said (requests() may run twice)


def _dest(flags: tuple[str, ...]) -> str:
    return "metric_" + flags[-1].lstrip("-")


def add_arguments(parser: argparse.ArgumentParser, *, mwzeval: bool = True) -> None:
    """``--metric`` (repeatable) and the older spellings (``mwzeval=False``: those of mwzeval's four left
    out, for a command that scores them its own way)."""
    for flags, (_, text) in ALIASES.items():
        if mwzeval or flags[-1] in ("--coherence", "--fluency"):
            parser.add_argument(*flags, dest=_dest(flags), action="store_true", help=text)
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
        help="fluency under a Hugging Face causal LM (= --metric mwz_fluency:model=NAME; the 'neural' extra)",
    )


def requests(args: argparse.Namespace) -> list:
    """The metrics the flags ask for: the older spellings, then each ``--metric`` (an old name of a metric
    taken as spelt, and said once in a warning line: :func:`~mwz_metrics.cli.registry.renamed`)."""
    from mwz_metrics.cli.registry import renamed
    from mwz_metrics.metric import MetricRequest, old_name

    out = [MetricRequest(name) for flags, (name, _) in ALIASES.items() if getattr(args, _dest(flags), False)]
    if args.fluency_model:
        fluency = "mwz_fluency"
        out = [r for r in out if r.name != fluency] + [MetricRequest(fluency, (("model", args.fluency_model),))]
    asked = [MetricRequest.parse(text, warn=False) for text in args.metric]
    said = getattr(args, _SAID, None) or set()
    for request in asked:
        new = old_name(request.name)
        if new is not None and request.name not in said:
            renamed(f"--metric {request.name}", f"--metric {new}")
            said.add(request.name)
    setattr(args, _SAID, said)
    return out + asked


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

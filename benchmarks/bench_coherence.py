"""Throughput of session coherence on this CPU: ``python benchmarks/bench_coherence.py``.

Scores the gold test sessions (user turns encoded once and cached), then one or
more systems' predictions in the traditional setting, where only the systems'
own responses are encoded. Prints turn pairs per second for each step.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MWZ_SHARED", ROOT.parent / "shared"))
DEFAULT_PREDICTIONS = SHARED / "data" / "mwzeval" / "predictions"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--predictions", type=Path, default=DEFAULT_PREDICTIONS)
    parser.add_argument("--systems", nargs="*", default=["damd", "mintl"])
    parser.add_argument("--dialogues", type=int, default=0, help="only the first N test dialogues (0: all)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    os.environ.setdefault("MWZ_MIRROR", str(SHARED / "data" / "mirror"))

    import torch

    torch.set_num_threads(args.threads)
    from mwz_metrics.coherence import api, data
    from mwz_metrics.coherence.scorer import CoherenceScorer

    started = time.perf_counter()
    scorer = CoherenceScorer()
    print(f"load encoder + head: {time.perf_counter() - started:.1f} s")
    corpus = data.load_corpus("test")
    ids = sorted(corpus.dialogues)[: args.dialogues] if args.dialogues else None

    for label, delex in (("gold (lexicalized)", False), ("gold (delexicalized)", True)):
        before = scorer.encoder.encoded
        started = time.perf_counter()
        result = api.score_gold(scorer=scorer, delexicalized=delex, ids=ids)
        seconds = time.perf_counter() - started
        print(
            f"{label}: {result['n_pairs']} pairs in {seconds:.1f} s = {result['n_pairs'] / seconds:.0f} pairs/s "
            f"({scorer.encoder.encoded - before} texts encoded); coherence {result['coherence']:.2f}"
        )
    for system in args.systems:
        with open(args.predictions / f"{system}.json", encoding="utf-8") as f:
            predictions = json.load(f)
        if ids is not None:
            predictions = {k: v for k, v in predictions.items() if k in set(ids)}
        before = scorer.encoder.encoded
        started = time.perf_counter()
        result = api.score_predictions(predictions, scorer=scorer, on_mismatch="skip")
        seconds = time.perf_counter() - started
        print(
            f"{system}: {result['n_pairs']} pairs in {seconds:.1f} s = {result['n_pairs'] / seconds:.0f} pairs/s "
            f"({scorer.encoder.encoded - before} texts encoded, user turns cached); coherence {result['coherence']:.2f}"
        )
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())

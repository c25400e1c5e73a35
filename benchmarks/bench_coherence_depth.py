"""What encoder depth costs session coherence: ``python benchmarks/bench_coherence_depth.py [--out depth.json]``.

The cross-encoder reads every pair whole, so its time per system grows with the MiniLM layers
kept. This times the base encoder cut to 1..6 layers on a seeded sample of one system's
pairs (the pairs ``mwz coherence`` reads: its responses between the gold user turns), in one
process, and extrapolates to all of the system's pairs. Then it times the shipped command,
``mwz coherence -i SYSTEM.json``, as one whole process (interpreter, imports, model load, data,
the encoder's first and only pass, bootstrap), the figure the card quotes beside the depths.
``--out`` writes the figures for ``python -m mwz_metrics.coherence.research.card --speed``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time

from whole_process import mwz_command, shared_root, timed

SAMPLE = 2000


def system_pairs(path) -> list[tuple[str, str]]:
    """The (first, second) model texts ``mwz coherence -i path`` scores."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.coherence import data as cdata
    from mwz_metrics.coherence.scorer import session_pairs

    with open(path, encoding="utf-8") as f:
        predictions = json.load(f)
    corpus = load_corpus("test")
    sessions, _ = cdata.spliced_sessions(
        predictions, corpus, delexicalized=cdata.is_delexicalized(predictions), on_mismatch="skip"
    )
    return [pair for name in sorted(sessions) for pair in session_pairs(name, sessions[name])]


def pairs_per_second(pairs: list[tuple[str, str]], layers: int) -> float:
    """Pairs a second through the bottom ``layers`` layers of MiniLM (the best of two passes)."""
    import torch

    from mwz_metrics.coherence import model as cmodel

    tokenizer, encoder = cmodel.load_base()
    cmodel.keep_layers(encoder, layers)
    firsts, seconds = [a for a, _ in pairs], [b for _, b in pairs]
    order = sorted(range(len(pairs)), key=lambda i: len(firsts[i]) + len(seconds[i]))

    def one_pass(chosen: list[int]) -> None:
        with torch.inference_mode():
            for start in range(0, len(chosen), cmodel.BATCH_SIZE):
                batch = chosen[start : start + cmodel.BATCH_SIZE]
                encoded = cmodel.encode_pairs(tokenizer, [firsts[i] for i in batch], [seconds[i] for i in batch])
                encoder(**encoded)

    one_pass(order[: cmodel.BATCH_SIZE * 2])  # warm-up
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        one_pass(order)
        best = min(best, time.perf_counter() - started)
    return len(pairs) / best


def main(argv=None) -> int:
    """Print seconds per system for each depth and the whole command's; optionally write them as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="hdsa")
    parser.add_argument("--layers", type=int, nargs="*", default=[1, 2, 3, 4, 5, 6])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    shared = shared_root()
    os.environ.setdefault("MWZ_MIRROR", str(shared / "data" / "mirror"))
    path = shared / "data" / "mwzeval" / "predictions" / f"{args.system}.json"
    pairs = system_pairs(path)
    sample = random.Random(0).sample(pairs, min(SAMPLE, len(pairs)))
    rates = {}
    for layers in args.layers:
        rates[str(layers)] = round(pairs_per_second(sample, layers), 1)
        print(
            f"{layers} layer(s): {rates[str(layers)]:.0f} pairs/s, {len(pairs) / rates[str(layers)]:.0f} s for {len(pairs)} pairs"
        )
    whole = timed(mwz_command("coherence", "-i", str(path)), dict(os.environ))
    from mwz_metrics.coherence.model import LAYERS

    # No "overhead" = whole - pairs / rate: the rates are warm passes, the command's one pass is cold.
    print(f"mwz coherence -i {args.system}.json, whole process ({LAYERS} layers): {whole:.1f} s")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    if args.out:
        result = {
            "system": args.system,
            "pairs": len(pairs),
            "sample": len(sample),
            "pairs_per_second": rates,
            "whole_process_s": round(whole, 1),
            "machine": f"{os.cpu_count()}-core {platform.machine()} CPU",
        }
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

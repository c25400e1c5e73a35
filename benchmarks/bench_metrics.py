"""Time mwz_metrics per system: normalization, BLEU, Inform/Success, richness, total.

Usage: python benchmarks/bench_metrics.py [--shared DIR] [--systems a,b,...]

Cold = a fresh process state and an empty derived-data cache (test set, database
and references built from the mirror); warm = the same Evaluator again, caches
loaded. The mirror's MultiWOZ 2.2 test files are truncated, so BLEU is timed
against another system's normalized responses standing in as references (same
corpus size as the real test set). mwzeval's own time (from the parity files,
same machine class) is printed for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.environ.get("MWZ_SHARED", str(ROOT.parent / "shared")))
    parser.add_argument("--systems", help="comma-separated (default: every system in parity/mwzeval)")
    args = parser.parse_args()
    shared = Path(args.shared)
    os.environ["MWZ_MIRROR"] = str(shared / "data" / "mirror")
    os.environ["MWZ_CACHE"] = tempfile.mkdtemp(prefix="mwz-bench-")
    os.environ["MWZ_OFFLINE"] = "1"

    from mwz_metrics.multiwoz import bleu as bleu_lib
    from mwz_metrics.multiwoz.evaluator import Evaluator

    parity = shared / "parity" / "mwzeval"
    systems = (
        args.systems.split(",")
        if args.systems
        else sorted(
            p.name[: -len(".expected.json")] for p in parity.glob("*.expected.json") if "hf_dummy" not in p.name
        )
    )
    stand_in = json.loads((parity / "ubar.expected.json").read_text())["normalized_responses"]

    header = (
        f"{'system':15}{'run':>6}{'normalize':>11}{'bleu':>8}{'success':>9}{'richness':>10}{'total':>8}{'mwzeval':>9}"
    )
    print(header)
    totals = {"cold": [], "warm": []}
    successes = []
    for system in systems:
        expected = json.loads((parity / f"{system}.expected.json").read_text())
        predictions = json.loads((shared / "data/mwzeval/predictions" / f"{system}.json").read_text())
        has_states = bool(expected.get("inform"))
        evaluator = Evaluator(bleu=False, success=has_states, richness=True)
        for run in ("cold", "warm"):
            if run == "warm":
                evaluator.normalizer._cache.clear()  # warm test set, but normalize this system's text afresh
            started = time.perf_counter()
            result = evaluator.evaluate(predictions)
            hypotheses = evaluator.normalizer.normalize_all(
                {k.lower(): [t["response"] for t in v] for k, v in predictions.items()}
            )
            t_bleu = time.perf_counter()
            refs = {"stand-in": {k: (stand_in.get(k, []) + [""] * len(v))[: len(v)] for k, v in hypotheses.items()}}
            bleu_lib.bleu(hypotheses, refs)
            t_bleu = time.perf_counter() - t_bleu
            total = time.perf_counter() - started
            timing = evaluator.timings
            success = timing.get("success", float("nan"))
            if has_states and run == "warm":
                successes.append(success)
            totals[run].append(total)
            print(
                f"{system:15}{run:>6}{timing['normalize']:>11.3f}{t_bleu:>8.3f}{success:>9.3f}"
                f"{timing['richness']:>10.3f}{total:>8.3f}{expected.get('elapsed_s', float('nan')):>9.1f}"
            )
        assert result["richness"] is not None
    print()
    for run, values in totals.items():
        print(f"median total per system ({run}): {statistics.median(values):.3f} s")
    if successes:
        print(f"median Inform+Success per system (warm): {statistics.median(successes):.3f} s")


if __name__ == "__main__":
    main()

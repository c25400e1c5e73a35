"""Reproduce Table 5 of Nekvinda & Dusek (2021): mwzeval's and the optimistic Inform/Success.

Usage: python benchmarks/table5.py [--shared DIR] [--systems a,b,...]

For each system of the paper's Table 5 whose outputs are in ``<shared>/data/mwzeval/predictions``,
prints our default Inform/Success (mwzeval @7f19ee0's computation), our optimistic one
(``--optimistic``: intersection matching, name-only constraints, gold active domains as DAMD
derives them), the paper's "ours" and "opt." figures from ``<shared>/parity/paper/table5.json``
where it has them, and the differences (ours minus paper). Needs ``MWZ_MIRROR`` (or a download)
for the MultiWOZ 2.1 test set.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The 13 systems of Table 5: the six in table5.json and the other seven with outputs in mwzeval's
# repository at the time of the paper (August 2021).
TABLE5 = ("damd", "ubar", "augpt", "hdsa", "lava", "sfn", "marco", "hdno", "mintl", "soloist", "labes", "dots", "pptod")


def _cell(value: float | None) -> str:
    return f"{value:5.1f}" if value is not None else "  n/a"


def _diff(ours: float, paper: float | None) -> str:
    return f"{ours - paper:+5.1f}" if paper is not None else "     "


def main() -> None:
    """Print the side-by-side table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.environ.get("MWZ_SHARED", str(ROOT.parent / "shared")))
    parser.add_argument("--systems", help="comma-separated (default: the 13 systems of Table 5)")
    args = parser.parse_args()
    shared = Path(args.shared)
    paper = json.loads((shared / "parity" / "paper" / "table5.json").read_text())["systems"]
    systems = args.systems.split(",") if args.systems else list(TABLE5)

    from mwz_metrics.multiwoz.evaluator import Evaluator
    from mwz_metrics.multiwoz.testset import TestSet

    testset = TestSet()
    default = Evaluator(bleu=False, richness=False, testset=testset)
    optimistic = Evaluator(bleu=False, richness=False, testset=testset, optimistic=True)
    header = f"{'system':10} {'metric':8} {'ours':>5} {'paper':>5} {'diff':>5} | {'opt.':>5} {'paper':>5} {'diff':>5}"
    print(header)
    print("-" * len(header))
    for system in systems:
        path = shared / "data" / "mwzeval" / "predictions" / f"{system}.json"
        predictions = json.loads(path.read_text())
        if not all("state" in turn for turns in predictions.values() for turn in turns):
            print(f"{system:10} (no predicted states: needs the full MultiWOZ 2.2 gold states)")
            continue
        ours = default.evaluate(predictions)["success"]
        opt = optimistic.evaluate(predictions)["success"]
        reported = paper.get(system, {})
        for metric in ("inform", "success"):
            a, b = ours[metric]["total"], opt[metric]["total"]
            pa, pb = reported.get(metric), reported.get(f"{metric}_optimistic")
            print(
                f"{system:10} {metric:8} {_cell(a)} {_cell(pa)} {_diff(a, pa)} | {_cell(b)} {_cell(pb)} {_diff(b, pb)}"
            )


if __name__ == "__main__":
    main()

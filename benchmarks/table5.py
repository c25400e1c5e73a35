"""Reproduce Table 5 of Nekvinda & Dusek (2021): mwzeval's and the optimistic Inform/Success.

Usage: python benchmarks/table5.py [--shared DIR] [--systems a,b,...]

For each system of the paper's Table 5 whose outputs are in ``<shared>/data/mwzeval/predictions``,
prints our default Inform/Success (mwzeval @7f19ee0's computation), our optimistic one
(``--optimistic``: intersection matching, name-only constraints, gold active domains as DAMD
derives them), the paper's "ours" and "opt." figures from ``<shared>/parity/paper/table5.json``
where it has them, and the differences (ours minus paper). Needs ``MWZ_MIRROR`` (or a download)
for the MultiWOZ 2.1 test set.

Systems that predict no states are scored by mwzeval on the MultiWOZ 2.2 gold states, which this
machine lacks (its 2.2 copy is truncated). With ``--stand-in-21`` they are scored on the 2.1 gold
belief states (``metadata[domain]["semi"]``, filled slots) instead, marked ``*``: an approximation,
not mwzeval's number.
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


def _with_21_states(predictions: dict, testset) -> dict:
    """A copy of ``predictions`` whose turns carry the 2.1 gold belief states (filled ``semi`` slots)."""
    from mwz_datasets import multiwoz_raw

    files = testset._resolve("2.1", "test")
    states = {}
    for key, raw in multiwoz_raw.iter_raw_dialogues("2.1", "test", files):
        states[key] = [
            {
                domain: {s: v for s, v in parts.get("semi", {}).items() if v and v != "not mentioned"}
                for domain, parts in (turn.get("metadata") or {}).items()
                if any(v and v != "not mentioned" for v in parts.get("semi", {}).values())
            }
            for turn in raw["log"][1::2]
        ]
    return {
        key: [{**turn, "state": states[key.lower()][i]} for i, turn in enumerate(turns)]
        for key, turns in predictions.items()
    }


def main() -> None:
    """Print the side-by-side table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.environ.get("MWZ_SHARED", str(ROOT.parent / "shared")))
    parser.add_argument("--systems", help="comma-separated (default: the 13 systems of Table 5)")
    parser.add_argument("--stand-in-21", action="store_true", help="2.1 gold states for systems without states")
    args = parser.parse_args()
    shared = Path(args.shared)
    paper = json.loads((shared / "parity" / "paper" / "table5.json").read_text())["systems"]
    systems = args.systems.split(",") if args.systems else list(TABLE5)

    from mwz_metrics.multiwoz.evaluator import Evaluator
    from mwz_metrics.multiwoz.testset import TestSet

    testset = TestSet()
    default = Evaluator(bleu=False, richness=False, testset=testset)
    optimistic = Evaluator(bleu=False, richness=False, testset=testset, optimistic=True)
    columns = f"{'ours':>5} {'paper':>5} {'diff':>5} | {'opt.':>5} {'paper':>5} {'diff':>5}"
    header = f"{'system':10} {'metric':8} {columns} | gain diff"
    print(header)
    print("-" * len(header))
    for system in systems:
        path = shared / "data" / "mwzeval" / "predictions" / f"{system}.json"
        predictions = json.loads(path.read_text())
        mark = " "
        if not all("state" in turn for turns in predictions.values() for turn in turns):
            if not args.stand_in_21:
                print(f"{system:10} (no predicted states: needs the full MultiWOZ 2.2 gold states)")
                continue
            predictions = _with_21_states(predictions, testset)
            mark = "*"
        ours = default.evaluate(predictions)["success"]
        opt = optimistic.evaluate(predictions)["success"]
        reported = paper.get(system, {})
        for metric in ("inform", "success"):
            a, b = ours[metric]["total"], opt[metric]["total"]
            pa, pb = reported.get(metric), reported.get(f"{metric}_optimistic")
            left = f"{_cell(a)} {_cell(pa)} {_diff(a, pa)}"
            right = f"{_cell(b)} {_cell(pb)} {_diff(b, pb)}"
            # the optimistic gain (opt. - ours) against the paper's: independent of the states used
            gain = f"{(b - a) - (pb - pa):+5.1f}" if pa is not None and pb is not None else ""
            print(f"{system:9}{mark} {metric:8} {left} | {right} | {gain}")


if __name__ == "__main__":
    main()

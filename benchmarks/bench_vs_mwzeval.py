"""Whole-process speed of ``mwz evaluate`` against mwzeval's, as a user sees it from the shell.

Both run as separate processes, paired and alternated, on the same predictions and the same
work: ``-s -r`` (Inform/Success with predicted states, richness) and ``-b -s -r`` (plus BLEU
against mwzeval's real mwz22 reference file, which mwzeval reads from its data folder and we
get through ``--reference-file``). Our cache is warm (one untimed run first), as is mwzeval's
(its reference file is on disk). Also times ``mwz --help``.

    MWZEVAL_CMD=/path/to/mwzeval-wrapper python benchmarks/bench_vs_mwzeval.py [--repeats 3]

``MWZEVAL_CMD`` is a command that runs mwzeval @7f19ee0's ``evaluate.py`` with its own flags
(``-i PRED -s -r -o OUT``); without it only our figures are printed. ``MWZ_SHARED`` (default
``../shared``) holds the predictions and references; ``MWZ_MIRROR`` defaults to its mirror.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

from whole_process import mwz_command, shared_root, timed

SYSTEMS = ("ubar", "damd", "augpt", "pptod", "labes")


def main(argv: list[str] | None = None) -> int:
    """Print median whole-process seconds per system and mode, ours against mwzeval's, and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS))
    args = parser.parse_args(argv)
    shared = shared_root()
    predictions = shared / "data/mwzeval/predictions"
    references = shared / "data/mwzeval/references/mwz22.test.json"
    env = {**os.environ, "MWZ_MIRROR": os.environ.get("MWZ_MIRROR", str(shared / "data/mirror"))}
    mwz = mwz_command()
    reference = shlex.split(os.environ.get("MWZEVAL_CMD", ""))
    out = Path(tempfile.mkdtemp()) / "out.json"
    modes = {
        "-s -r": (["-s", "-r"], ["-s", "-r"]),
        "-b -s -r": (
            ["-b", "-s", "-r", "--style", "mwz22", "--reference-file", f"mwz22={references}"],
            ["-b", "-s", "-r"],
        ),
    }
    help_times = [timed([*mwz, "--help"], env) for _ in range(5)]
    print(f"mwz --help: median {statistics.median(help_times):.3f} s over 5 runs")
    if not reference:
        print("MWZEVAL_CMD not set: mwzeval's figures skipped")
    print(f"{'system':10} {'work':9} {'ours (s)':>9} {'mwzeval (s)':>12} {'ratio':>7}")
    totals: dict[str, list[tuple[float, float]]] = {mode: [] for mode in modes}
    for system in args.systems:
        path = str(predictions / f"{system}.json")
        for mode, (ours_flags, their_flags) in modes.items():
            ours_command = [*mwz, "evaluate", "-i", path, *ours_flags]
            timed(ours_command, env)  # warm our derived-data cache
            ours, theirs = [], []
            for _ in range(args.repeats):
                ours.append(timed(ours_command, env))
                if reference:
                    theirs.append(timed([*reference, "-i", path, *their_flags, "-o", str(out)], env))
            ours_median = statistics.median(ours)
            if theirs:
                their_median = statistics.median(theirs)
                totals[mode].append((ours_median, their_median))
                print(
                    f"{system:10} {mode:9} {ours_median:9.2f} {their_median:12.2f} {their_median / ours_median:6.1f}x"
                )
            else:
                print(f"{system:10} {mode:9} {ours_median:9.2f} {'-':>12} {'-':>7}")
    for mode, pairs in totals.items():
        if pairs:
            ours_sum, their_sum = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
            print(f"all {mode}: ours {ours_sum:.2f} s, mwzeval {their_sum:.2f} s, {their_sum / ours_sum:.1f}x faster")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())

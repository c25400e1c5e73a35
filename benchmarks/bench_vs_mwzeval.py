"""Whole-process speed of ``mwz evaluate`` against mwzeval's, as a user sees it from the shell.

Both run as separate processes on the same predictions and the same work: ``-s -r``
(Inform/Success with predicted states, richness) and ``-b -s -r`` (plus BLEU against mwzeval's
real mwz22 reference file, which mwzeval reads from its data folder and we get through
``--reference-file``). Our cache is warm (one untimed run first), as is mwzeval's (its
reference file is on disk). Also times ``mwz --help``.

mwzeval's time depends on Python's hash seed (its database queries iterate over sets), so it
runs once per ``PYTHONHASHSEED`` in ``--seeds``; ours runs ``--ours`` times under each of them,
interleaved. The ratio is our median against mwzeval's fastest seed (what a lucky user sees) and
its median seed. CPU seconds (user + system of the process) are printed beside the wall time: on
a shared virtual machine the wall time also counts what the neighbours take.

    MWZEVAL_CMD=/path/to/mwzeval-wrapper python benchmarks/bench_vs_mwzeval.py [--seeds 0 1 2 3 4 5]

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

from whole_process import mwz_command, shared_root, timed, timed_cpu

SYSTEMS = ("ubar",)


def _medians(values: list[float]) -> str:
    return f"{min(values):.2f}/{statistics.median(values):.2f}"


def main(argv: list[str] | None = None) -> int:
    """Print whole-process seconds per system and mode, ours against mwzeval's fastest and median seed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2, 3, 4, 5])
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS))
    parser.add_argument("--ours", type=int, default=3, help="our runs per seed")
    parser.add_argument(
        "--modes", nargs="*", default=["-s -r", "-b -s -r"], help="the work timed (-b -s -r needs mwzeval's mwz22 file)"
    )
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
    print(f"PYTHONHASHSEED {args.seeds}; times are min/median over them")
    if not reference:
        print("MWZEVAL_CMD not set: mwzeval's figures skipped")
    print(f"{'system':8} {'work':9} {'ours (s)':>10} {'mwzeval (s)':>12} {'vs fastest':>11} {'vs median':>10}")
    for system in args.systems:
        path = str(predictions / f"{system}.json")
        for mode, (ours_flags, their_flags) in ((m, modes[m]) for m in args.modes):
            ours_command = [*mwz, "evaluate", "-i", path, *ours_flags]
            timed(ours_command, env)  # warm our derived-data cache
            ours, theirs, ours_cpu, their_cpu = [], [], [], []
            for seed in args.seeds:
                seeded = {**env, "PYTHONHASHSEED": str(seed)}
                for _ in range(args.ours):
                    wall, cpu = timed_cpu(ours_command, seeded)
                    ours.append(wall)
                    ours_cpu.append(cpu)
                if reference:
                    wall, cpu = timed_cpu([*reference, "-i", path, *their_flags, "-o", str(out)], seeded)
                    theirs.append(wall)
                    their_cpu.append(cpu)
            ours_median = statistics.median(ours)
            if theirs:
                fastest, median = min(theirs), statistics.median(theirs)
                print(
                    f"{system:8} {mode:9} {_medians(ours):>10} {_medians(theirs):>12} "
                    f"{fastest / ours_median:10.1f}x {median / ours_median:9.1f}x"
                )
                print(f"{'':8} mwzeval per seed: " + ", ".join(f"{t:.1f}" for t in theirs))
                cpu_ratio = min(their_cpu) / statistics.median(ours_cpu)
                print(
                    f"{'':8} CPU seconds: ours {_medians(ours_cpu)}, mwzeval {_medians(their_cpu)}, "
                    f"{cpu_ratio:.1f}x against its fastest seed"
                )
            else:
                print(f"{system:8} {mode:9} {_medians(ours):>10} {'-':>12} {'-':>11} {'-':>10}")
    print("ratios: mwzeval's fastest (or median) seed over our median; min/median over all runs")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""All 19 shared systems in one ``mwz compare`` process (BLEU + Inform/Success + richness).

Runs the command as a user would, as one whole process, with ``MWZ_MIRROR`` at the
full-scale synthetic 2.2 mirror (so BLEU is against 7372 references) and a warm cache (one
untimed run first), and prints its wall time. With ``MWZEVAL_CMD`` (mwzeval @7f19ee0's
``evaluate.py`` as a command) it also times mwzeval on every system, one process each, as a
user comparing 19 systems with it would.

    MWZEVAL_CMD=/path/to/mwzeval python benchmarks/bench_compare.py
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from pathlib import Path

from whole_process import mwz_command, shared_root, timed


def main() -> int:
    """Print our whole-process time for 19 systems and, if given, mwzeval's."""
    shared = shared_root()
    predictions = sorted((shared / "data/mwzeval/predictions").glob("*.json"))
    env = {**os.environ, "MWZ_MIRROR": str(shared / "data/mirror-synth22")}
    mwz = mwz_command("compare", "-b", "-s", "-r", "-o", os.devnull)
    command = [*mwz, *(arg for p in predictions for arg in ("-i", str(p)))]
    timed(command, env)  # warm the derived-data cache
    ours = [timed(command, env) for _ in range(2)]
    print(
        f"mwz compare, {len(predictions)} systems, -b -s -r, 1000 resamples: {min(ours):.1f} s (runs: "
        + ", ".join(f"{t:.1f}" for t in ours)
        + ")"
    )
    reference = shlex.split(os.environ.get("MWZEVAL_CMD", ""))
    if reference:
        out = Path(tempfile.mkdtemp()) / "out.json"
        total = sum(timed([*reference, "-i", str(p), "-b", "-s", "-r", "-o", str(out)], env) for p in predictions)
        print(f"mwzeval, one process per system: {total:.1f} s ({total / min(ours):.1f}x ours)")
    else:
        print("MWZEVAL_CMD not set: mwzeval skipped")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())

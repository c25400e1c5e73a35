"""Session coherence of one system as a user runs it: ``python benchmarks/bench_coherence.py``.

Times ``mwz coherence -i SYSTEM.json`` as one whole process (model load, 7372 responses
between the gold user turns of the MultiWOZ 2.1 test set, about 14,700 pairs read by the
cross-encoder, bootstrap CI and per-domain scores) on this machine's CPU, and then the same
command over several systems at once (``-i A -i B``), where the model loads once. The goal is
at most 30 s per system on a 2-core CPU (it was 3 minutes before); what each encoder layer costs
is ``bench_coherence_depth.py``. There is no reference implementation to run beside it: the
paper's scorer is not public.
"""

from __future__ import annotations

import argparse
import os
import sys

from whole_process import mwz_command, shared_root, timed


def main(argv=None) -> int:
    """Print the wall time of one system and of several in one process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="*", default=["hdsa", "damd"])
    args = parser.parse_args(argv)
    shared = shared_root()
    predictions = shared / "data" / "mwzeval" / "predictions"
    env = {**os.environ, "MWZ_MIRROR": str(shared / "data" / "mirror")}
    one = timed(mwz_command("coherence", "-i", str(predictions / f"{args.systems[0]}.json")), env)
    print(f"mwz coherence, one system ({args.systems[0]}): {one:.1f} s (goal: 30 s)")
    if len(args.systems) > 1:
        inputs = [arg for system in args.systems for arg in ("-i", str(predictions / f"{system}.json"))]
        many = timed(mwz_command("coherence", *inputs), env)
        print(
            f"mwz coherence, {len(args.systems)} systems in one process: {many:.1f} s ({many / len(args.systems):.1f} s each)"
        )
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())

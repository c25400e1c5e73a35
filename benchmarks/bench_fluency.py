"""Sentence fluency of one system as a user runs it: ``python benchmarks/bench_fluency.py``.

Times ``mwz fluency -i SYSTEM.json`` as whole processes (the default n-gram model counted from the
MultiWOZ 2.1 validation turns at start, 7372 responses scored, bootstrap interval, per-domain
means), first with a fresh cache (the training text derived and cached) and then warm (median of
``--repeats``). The goal: at most 30 s per system on a 2-core CPU. Session coherence's time for
one system (``benchmarks/bench_coherence.py``) is the figure to set it beside. No reference
implementation runs beside it: the paper's scorer (a fine-tuned GPT-2) is not public.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

from whole_process import mwz_command, shared_root, timed


def main(argv=None) -> int:
    """Print the cold and warm wall time of one system."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="hdsa")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    shared = shared_root()
    path = shared / "data" / "mwzeval" / "predictions" / f"{args.system}.json"
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "MWZ_MIRROR": str(shared / "data" / "mirror"), "MWZ_CACHE": cache}
        command = mwz_command("fluency", "-i", str(path))
        cold = timed(command, env)
        warm = [timed(command, env) for _ in range(args.repeats)]
    print(
        f"mwz fluency, one system ({args.system}, 7372 responses): cold {cold:.2f} s, warm median "
        f"{statistics.median(warm):.2f} s ({', '.join(f'{w:.2f}' for w in warm)}; goal 30 s)"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

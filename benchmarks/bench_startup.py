"""What every command pays before it does anything: ``python benchmarks/bench_startup.py``.

Times whole processes, run from a neutral folder: ``python -c "import mwz_metrics"`` (every ``mwz``
command and every ``import mwz_metrics`` pays it), ``python -c "import mwz_metrics, mwz_datasets"``
and ``mwz --help`` (which builds the parser from every command module). Prints the median and the
fastest of ``--repeats`` runs of each, interleaved so that a busy moment hits all of them alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from whole_process import timed


def main() -> int:
    """Print the start-up times."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    python = sys.executable
    commands = {
        "import mwz_metrics": [python, "-c", "import mwz_metrics"],
        "import mwz_metrics, mwz_datasets": [python, "-c", "import mwz_metrics, mwz_datasets"],
        "mwz --help": [str(Path(python).parent / "mwz"), "--help"],
        "python alone": [python, "-c", "pass"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as folder:  # not the project folder: nothing imported from the checkout
        os.chdir(folder)
        for _ in range(args.repeats):
            for name, command in commands.items():
                times[name].append(timed(command, env))
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.repeats} runs each")
    for name, values in times.items():
        print(f"{name:34} median {statistics.median(values) * 1000:6.1f} ms, fastest {min(values) * 1000:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A run against a system mixing every bad answer (issue 40's "Done when"): the oracle behind a local
HTTP server where one system turn in eight misbehaves (tests/hostile_system.py: lone surrogates,
line separators, ANSI escapes, a drip, a hang, 5 MB, 20,000 characters, not JSON, a list, 100,000-deep
JSON, a connection cut mid-body, HTTP 500), through the ``mwz`` console script.

Usage: python benchmarks/bench_hostile.py [--goals 200] [--jobs 16] [--timeout 2] [--retries 1]

Prints the run's wall time, the sessions recorded, the end reasons and failures counted, and
whether ``--score-only`` gives the same figures. MWZ_MIRROR must hold MultiWOZ 2.1 (the synth22
mirror by default).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--retries", type=int, default=1)
    args = parser.parse_args()
    os.environ.setdefault("MWZ_MIRROR", str(ROOT.parent / "shared" / "data" / "mirror-synth22"))
    from hostile_system import HostileSystem, MixedPlan

    from mwz_metrics.interactive.harness import sessions as session_files
    from mwz_metrics.interactive.harness.context import InteractiveContext
    from mwz_metrics.interactive.systems.reference import OracleSystem

    oracle = OracleSystem(InteractiveContext())
    mwz = str(Path(sys.executable).with_name("mwz"))
    with tempfile.TemporaryDirectory() as folder, HostileSystem(MixedPlan(), oracle.respond, lifetime=3600) as system:
        out = Path(folder) / "mixed.jsonl"
        command = [mwz, "-q", "interact", "--system", system.url, "--user-acts", "--goals", str(args.goals)]
        command += [
            "-j",
            str(args.jobs),
            "-o",
            str(out),
            "--timeout",
            str(args.timeout),
            "--retries",
            str(args.retries),
        ]
        started = time.monotonic()
        ran = subprocess.run([*command, "--json"], capture_output=True, text=True)
        took = time.monotonic() - started
        if ran.returncode:
            sys.exit(f"the run failed ({ran.returncode}): {ran.stderr}")
        result = json.loads(ran.stdout)
        again = json.loads(
            subprocess.run(
                [mwz, "-q", "interact", "--score-only", "-i", str(out), "--json"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout  # fmt: skip
        )
        found = session_files.read_file(out)
        bad = [b for (_, _, b, _) in system.requests if b != "ok"]
    keys = ("inform", "success", "complete", "book_rate", "inform_f1", "turns", "end_reasons", "system_failures")
    print(f"{args.goals} goals, -j {args.jobs}, --timeout {args.timeout:g}, --retries {args.retries}: {took:.1f} s")
    print(
        f"requests {len(system.requests)}, bad answers {len(bad)}: "
        + ", ".join(f"{b} {bad.count(b)}" for b in sorted(set(bad)))
    )
    print(f"sessions recorded {len(found.sessions)} (duplicates {found.duplicates}), result {result['sessions']}")
    print(f"end reasons {result['end_reasons']}")
    print(f"system failures {result['system_failures']}")
    print(f"inform {result['inform']:.2f}, success {result['success']:.2f}, complete {result['complete']:.2f}")
    same = all(again[k] == result[k] for k in keys)
    print(f"--score-only identical on {', '.join(keys)}: {same}")


if __name__ == "__main__":
    main()

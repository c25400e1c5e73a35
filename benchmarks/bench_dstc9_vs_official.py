"""Whole-process speed of ``mwz dstc9 score`` against the official DSTC9 Track 1 scorer.

Both run as separate processes from the shell, paired and alternated, on the same entries.
Ours runs on a cache of its own (``MWZ_CACHE`` in a temporary folder), warmed by scoring one
entry (the first found), as for a participant who has scored once before. Each further entry
is then timed on its first run, never scored before (its new words looked up in WordNet, its
new shapes checked by jsonschema), and again (every word and shape from the cache). ``DSTC9_OFFICIAL_CMD`` is a command taking
``ENTRY.json OUT.json`` that runs the official ``scripts/scores.py`` on the test labels;
without it only our figures are printed.

    DSTC9_OFFICIAL_CMD=/path/to/dstc9-score python benchmarks/bench_dstc9_vs_official.py
"""

from __future__ import annotations

import os
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

from whole_process import mwz_command, shared_root, timed


def main() -> int:
    """Print per-entry whole-process seconds, ours and the official scorer's, and the ratio."""
    shared = shared_root()
    entries = sorted((shared / "data/dstc9/results").glob("*/entry*.json"))
    entries = [e for e in entries if e.name.count(".") == 1][: int(os.environ.get("ENTRIES", "10")) + 1]
    work = Path(tempfile.mkdtemp())
    env = {
        **os.environ,
        "MWZ_MIRROR": os.environ.get("MWZ_MIRROR", str(shared / "data/mirror")),
        "MWZ_CACHE": str(work / "cache"),
    }
    out = str(work / "scores.json")
    ours_cmd = mwz_command("dstc9", "score", "--split", "test", "-o", out)
    official = shlex.split(os.environ.get("DSTC9_OFFICIAL_CMD", ""))
    warm_up, entries = entries[0], entries[1:]
    timed([*ours_cmd, "--entry", str(warm_up)], env)
    print(f"cache warmed by {warm_up.parent.name}/{warm_up.name}")
    ours_all, theirs_all, firsts = [], [], []
    for entry in entries:
        cold = timed([*ours_cmd, "--entry", str(entry)], env)
        firsts.append(cold)
        ours = timed([*ours_cmd, "--entry", str(entry)], env)
        ours_all.append(ours)
        line = f"{entry.parent.name}/{entry.name}: ours {cold:.2f} s never scored before, {ours:.2f} s again"
        if official:
            theirs = timed([*official, str(entry), out], env)
            theirs_all.append(theirs)
            line += f", official {theirs:.2f} s, {theirs / ours:.1f}x"
        print(line)
    summary = (
        f"median per entry: ours {statistics.median(firsts):.2f} s for an entry never scored before, "
        f"{statistics.median(ours_all):.2f} s again"
    )
    if theirs_all:
        summary += f", official {statistics.median(theirs_all):.2f} s"
    print(summary + f" (load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

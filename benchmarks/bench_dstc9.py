"""Time the DSTC9 Track 1 scorer per entry (warm: WordNet, labels and caches loaded).

Usage: MWZ_MIRROR=../shared/data/mirror [MWZ_SHARED=../shared] python benchmarks/bench_dstc9.py [ENTRY.json ...]
(default: every ../shared/data/dstc9/results/*/entry*.json). Goal: <= 0.3 s per entry warm.
"""

from __future__ import annotations

import glob
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path

from mwz_metrics.dstc9 import score_split

logger = logging.getLogger("bench_dstc9")


def main(paths: list[str]) -> int:
    shared = Path(os.environ.get("MWZ_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
    paths = paths or sorted(glob.glob(str(shared / "data/dstc9/results/*/entry[0-9].json")))
    entries = [json.load(open(p, encoding="utf-8")) for p in paths]
    start = time.perf_counter()
    score_split(entries[0], "test")
    print(f"cold (first entry, loads WordNet and labels): {time.perf_counter() - start:.2f} s")
    times = []
    for _path, entry in zip(paths, entries):
        start = time.perf_counter()
        score_split(entry, "test")
        times.append(time.perf_counter() - start)
    print(f"warm: {len(times)} entries, median {statistics.median(times):.3f} s, max {max(times):.3f} s per entry")
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(main(sys.argv[1:]))

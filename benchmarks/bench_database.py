"""Time VenueDatabase queries: all test-goal queries plus every state query of a few systems.

Usage: python benchmarks/bench_database.py [--shared DIR] [--systems ubar pptod augpt]

"cold" is a fresh process state (new database, empty fuzzy memo); "warm" repeats
the same queries on the same database (whole-query memo hits).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from mwz_datasets import database
from mwz_datasets.database import DOMAINS, VenueDatabase, column_name


def state_queries(path: Path) -> list[tuple[str, dict]]:
    from mwz_plugins import get_registry

    normalize = get_registry().chain("mwzeval")
    queries = []
    for dialogue in json.loads(path.read_text()).values():
        for turn in dialogue:
            for domain, slots in turn.get("state", {}).items():
                if domain in DOMAINS:
                    state = {column_name(s): normalize(None, column_name(s), v) for s, v in slots.items()}
                    queries.append((domain, state))
    return queries


def timed(db: VenueDatabase, queries: list[tuple[str, dict]]) -> float:
    start = time.perf_counter()
    for domain, constraints in queries:
        db.query(domain, constraints)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", default=os.environ.get("MWZ_SHARED", "../shared"))
    parser.add_argument("--systems", nargs="+", default=["ubar", "pptod", "augpt"])
    args = parser.parse_args()
    shared = Path(args.shared)
    os.environ.setdefault("MWZ_MIRROR", str(shared / "data" / "mirror"))
    os.environ.setdefault("MWZ_OFFLINE", "1")

    goals = json.loads((shared / "parity" / "mwzeval" / "goals_test.json").read_text())
    goal_queries = [(d, g["informable"]) for goal in goals.values() for d, g in goal.items()]

    start = time.perf_counter()
    VenueDatabase.from_pinned()
    print(f"load (pinned db, incl. checksums): {time.perf_counter() - start:.3f} s")
    for system in args.systems:
        queries = goal_queries + state_queries(shared / "data" / "mwzeval" / "predictions" / f"{system}.json")
        database._fuzzy_match.cache_clear()
        db = VenueDatabase.from_pinned()
        cold = timed(db, queries)
        warm = timed(db, queries)
        print(f"{system}: {len(queries)} queries (goals + states)  cold {cold:.3f} s  warm {warm:.3f} s")


if __name__ == "__main__":
    main()

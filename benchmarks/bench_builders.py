"""Time building MultiWOZ 2.1 validation+test from the mirror, and loading it back.

Usage: python benchmarks/bench_builders.py [--mirror DIR] [--repeat N]

MWZ_MIRROR (or --mirror; default $MWZ_SHARED/data/mirror, MWZ_SHARED defaulting to
../shared from the project root)
must hold budzianowski/multiwoz/data/MultiWOZ_2.1.zip. Each repeat builds into
a fresh cache directory, then loads the same config again from that cache.
Also times the raw reader alone (no Arrow) for comparison.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = Path(os.environ.get("MWZ_SHARED", ROOT.parent / "shared"))
    parser.add_argument("--mirror", default=os.environ.get("MWZ_MIRROR", str(shared / "data/mirror")))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ["MWZ_MIRROR"] = args.mirror
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "MWZ_OFFLINE"):
        os.environ.setdefault(name, "1")

    import datasets

    import mwz_datasets  # noqa: F401  (routes "multiwoz")
    from mwz_datasets import multiwoz_raw, sources

    datasets.disable_progress_bars()
    builds, loads, raws = [], [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as cache:
            start = time.perf_counter()
            built = datasets.load_dataset("multiwoz", "2.1", cache_dir=cache)
            builds.append(time.perf_counter() - start)
            rows = built["validation"].num_rows + built["test"].num_rows
            start = time.perf_counter()
            loaded = datasets.load_dataset("multiwoz", "2.1", cache_dir=cache)
            loads.append(time.perf_counter() - start)
            assert loaded["validation"].num_rows + loaded["test"].num_rows == rows
        files = {k: f.path for k, f in sources.resolve(multiwoz_raw.sources("2.1")).items()}
        start = time.perf_counter()
        reader = multiwoz_raw.RawReader("2.1", files)
        raw_rows = sum(1 for split in ("validation", "test") for _ in reader.iter_dialogues(split))
        raws.append(time.perf_counter() - start)

    def fmt(values):
        median = statistics.median(values)
        return f"median {median:.2f} s (min {min(values):.2f}, max {max(values):.2f}, n={len(values)})"

    print(f"datasets {datasets.__version__}; MultiWOZ 2.1 validation+test from {args.mirror}: {rows} dialogues")
    print(f"build, fresh cache:      {fmt(builds)}")
    print(f"load again from cache:   {fmt(loads)}")
    print(f"raw reader only ({raw_rows}): {fmt(raws)}")


if __name__ == "__main__":
    main()

"""Whole-process speed of ``mwz evaluate`` at two commits, in paired runs on one machine.

The project's packages at each commit (``git archive``) are put first on ``PYTHONPATH`` (the editable
install's finder is taken out), and the same ``mwz`` runs them in turn, the order rotating each round,
so that what the neighbours of a shared machine take falls on both alike. Prints the median and
minimum wall and CPU seconds (user + system of the process) of each, and the load average.

    python benchmarks/bench_paired.py c2b8d49 HEAD [--rounds 15] [-- -s -r]

The work is ``mwz -q evaluate -i ubar.json`` with the flags after ``--`` (default ``-s -r``) on
``MWZ_SHARED``'s predictions; ``MWZ_MIRROR`` defaults to its mirror. Bytecode is written under the
temporary copies (``PYTHONDONTWRITEBYTECODE`` unset), as a user's installation has it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from whole_process import mwz_command, shared_root, timed_cpu

# The import name of each package folder (pyproject's package-dir).
PACKAGES = {
    "mwz_metrics": "mwz_metrics",
    "mwz_datasets": "mwz_datasets",
    "mwz_plugins": "plugins",
    "mwz_hub": "hub_cards",
}
# Imported first by the interpreter (site): the editable install's finder would find the working tree.
WITHOUT_EDITABLE = "import sys\nsys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]\n"


def snapshot(revision: str, root: Path, into: Path) -> Path:
    """The packages at ``revision`` under ``into``, named as installed; the folder for ``PYTHONPATH``."""
    tree = into / "tree"
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", revision, *PACKAGES.values()], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    path = into / "path"
    path.mkdir()
    for name, folder in PACKAGES.items():
        (path / name).symlink_to(tree / folder)
    (path / "sitecustomize.py").write_text(WITHOUT_EDITABLE, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """Print each commit's wall and CPU seconds over paired, rotating rounds."""
    argv = list(sys.argv[1:] if argv is None else argv)
    flags = argv[argv.index("--") + 1 :] if "--" in argv else ["-s", "-r"]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="commits to compare (e.g. c2b8d49 HEAD)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--system", default="ubar")
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    root = Path(__file__).resolve().parent.parent
    shared = shared_root()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("MWZ_MIRROR", str(shared / "data/mirror"))
    predictions = shared / "data/mwzeval/predictions" / f"{args.system}.json"
    command = [*mwz_command(), "evaluate", "-i", str(predictions), *flags]
    with tempfile.TemporaryDirectory() as folder:
        paths = {rev: snapshot(rev, root, Path(folder) / str(i)) for i, rev in enumerate(args.revisions)}
        os.chdir(folder)  # not the project: its folders would shadow the snapshots
        times: dict[str, tuple[list[float], list[float]]] = {rev: ([], []) for rev in paths}
        for rev in paths:  # untimed: bytecode written, caches warm
            timed_cpu(command, {**env, "PYTHONPATH": str(paths[rev])})
        order = list(paths)
        for round_ in range(args.rounds):
            for rev in order[round_ % len(order) :] + order[: round_ % len(order)]:
                wall, cpu = timed_cpu(command, {**env, "PYTHONPATH": str(paths[rev])})
                times[rev][0].append(wall)
                times[rev][1].append(cpu)
    print(f"mwz evaluate -i {args.system}.json {' '.join(flags)}: {args.rounds} paired rounds")
    for rev, (walls, cpus) in times.items():
        print(
            f"{rev:12} wall median {statistics.median(walls):.3f} min {min(walls):.3f}   "
            f"CPU median {statistics.median(cpus):.3f} min {min(cpus):.3f}"
        )
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What every command pays before it does anything: ``python benchmarks/bench_startup.py``.

Times whole processes, run from a neutral folder: ``python -c "import mwz_metrics"`` (every ``mwz``
command and every ``import mwz_metrics`` pays it), ``python -c "import mwz_metrics, mwz_datasets"``
and ``mwz --help`` (which builds the parser from every command module). Prints the median and the
fastest of ``--repeats`` runs of each, interleaved so that a busy moment hits all of them alike.

``--against CHECKOUT`` times another checkout of the project (a ``git worktree`` of an older commit)
beside this one, each imported from its own folder through the same wrapper (the installed
editable finder set aside), interleaved: a before/after of a change on the same machine minutes.
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
    parser.add_argument("--against", metavar="CHECKOUT", help="another checkout to time beside this one")
    args = parser.parse_args()
    python = sys.executable
    if args.against:
        return _against(python, Path(args.against).resolve(), args.repeats)
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


# The installed packages' names and the checkout folders they come from.
_PACKAGES = {
    "mwz_metrics": "mwz_metrics",
    "mwz_datasets": "mwz_datasets",
    "mwz_plugins": "plugins",
    "mwz_hub": "hub_cards",
}
_WRAPPER = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]; "
    "sys.path.insert(0, {links!r}); "
)


def _links(checkout: Path, folder: Path) -> str:
    """A folder of links naming ``checkout``'s packages as installed."""
    folder.mkdir()
    for name, source in _PACKAGES.items():
        (folder / name).symlink_to(checkout / source)
    return str(folder)


def _against(python: str, other: Path, repeats: int) -> int:
    """This checkout and ``other``, each command interleaved, through the same wrapper."""
    this = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        checkouts = {"this": _links(this, Path(folder) / "this"), "other": _links(other, Path(folder) / "other")}
        snippets = {
            "import mwz_metrics": "import mwz_metrics",
            "import mwz_metrics, mwz_datasets": "import mwz_metrics, mwz_datasets",
            "mwz --help": "from mwz_metrics.cli import main; main(['--help'])",
        }
        commands = {
            f"{name} ({label})": [python, "-c", _WRAPPER.format(links=links) + snippet]
            for name, snippet in snippets.items()
            for label, links in checkouts.items()
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeats):
            for name, command in commands.items():
                times[name].append(timed(command, dict(os.environ)))
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {repeats} runs each")
    print(f"this: {this}; other: {other}")
    for name, values in times.items():
        print(f"{name:42} median {statistics.median(values) * 1000:6.1f} ms, fastest {min(values) * 1000:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

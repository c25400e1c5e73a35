"""``mwz view``: the sessions of interactive runs on one self-contained HTML page."""

from __future__ import annotations

import argparse
from pathlib import Path

from mwz_metrics.cli import metrics as metric_flags
from mwz_metrics.cli.registry import command

EXIT_CODES = """exit codes:
  0  the page was written
  2  bad input (one line: the file, the session), or missing data"""


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="a session file of mwz interact (JSONL) or its --predictions export; several are shown side by side "
        "on the same goals (and trials)",
    )
    parser.add_argument(
        "--no-profiles",
        action="store_true",
        help="show only the runs given: not the profiles' runs beside a default user's run of mwz interact "
        "--profiles (runs/x.terse.jsonl beside runs/x.jsonl), shown by default with the run's robustness and "
        "which user broke which sessions",
    )
    parser.add_argument("-o", "--output", help="write the page here (default: the first run's name with .html)")
    parser.add_argument("--title", help="the page's title (default: the runs' file names)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for the intervals")
    metric_flags.add_delexicalize_argument(parser)
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")


def default_output(run: str) -> str:
    """Where the page of ``run`` goes by default: beside it, ``runs/x.jsonl`` -> ``runs/x.html``."""
    return str(Path(run).with_suffix(".html"))


@command(
    "view",
    "one HTML page to browse, filter and read the sessions of interactive runs (no server, no network)",
    _arguments,
    exit_codes=EXIT_CODES,
    example="mwz view runs/oracle.jsonl runs/mine.jsonl -o runs/view.html",
)
def run(args: argparse.Namespace) -> int:
    """Score the runs as mwz interact --score-only does and write their page."""
    from mwz_metrics.outputs import check_outputs
    from mwz_metrics.viewer import write

    output = args.output or default_output(args.runs[0])
    check_outputs(args.runs, [("-o", output)])
    write(
        args.runs,
        output,
        title=args.title,
        resamples=args.resamples,
        delexicalize=args.delexicalize,
        data_dir=args.data_dir,
        profiles=not args.no_profiles,
    )
    print(f"wrote {output}")
    return 0

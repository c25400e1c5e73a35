"""``mwz compare``: several systems in one process, with intervals, p-values, tables and a plot."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import logging
from pathlib import Path
from typing import Any

from mwz_metrics.cli import metrics as metric_flags
from mwz_metrics.cli.evaluate import add_metric_arguments, evaluator_options
from mwz_metrics.cli.registry import OneOf, command, old_spelling, output_file, require_extra
from mwz_plugins.errors import InputError

logger = logging.getLogger("mwz.compare")
FORMATS = ("table", "markdown", "latex", "csv", "json", "html")


def _args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-i",
        "--input",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="predictions file, a folder of them, or NAME=PATH (repeatable)",
    )
    parser.add_argument("--published", action="store_true", help="add mwzeval's published systems (pinned files)")
    add_metric_arguments(parser)
    parser.add_argument("--all", action="store_true", help="mwzeval's metrics: BLEU, Success, richness")
    parser.add_argument("--baseline", help="system to test the others against (paired bootstrap p-values)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (0: no intervals)")
    parser.add_argument(
        "--common-dialogues",
        action="store_true",
        help="score every system on the dialogues all of them have (every figure changes; the signature says so)",
    )
    parser.add_argument(
        "--exclude-infra",
        action="store_true",
        help="interactive runs: leave out sessions ended by a system timeout or error or a simulator error",
    )
    parser.add_argument(
        "--plan",
        type=float,
        metavar="DIFF",
        help="interactive runs: the goals x trials needed to detect DIFF points of Success (80%% power, alpha 0.05), "
        "from the paired variance of each run and the baseline run",
    )
    parser.add_argument("--sort", metavar="METRIC", help="rank the plot's systems by this metric (default: the first)")
    parser.add_argument("--bootstrap-seed", type=int, default=0, metavar="SEED", help="the bootstrap's seed (0)")
    old_spelling(parser, "--seed", "--bootstrap-seed")  # --seed is the sessions' seed (mwz interact)
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="workers: N systems scored at once, in processes (default: one per CPU; the numbers do not depend on it)",
    )
    parser.add_argument(
        "--format",
        action=OneOf,
        among=FORMATS,
        hints={kind: "the plot is --plot FILE" for kind in ("plot", "png", "pdf", "svg")},
        default="table",
        help="how to render the comparison: table (default), markdown, latex, csv, json, html (the plot: --plot FILE)",
    )
    parser.add_argument("-o", "--output", help="write the rendered comparison here instead of stdout")
    parser.add_argument(
        "--no-views",
        action="store_true",
        help="--format html -o REPORT: write no page of the interactive runs' sessions (default: REPORT's name "
        "with .view.html, the runs side by side, linked from the report)",
    )
    parser.add_argument("--per-dialogue-csv", metavar="CSV", help="write per-dialogue Inform/Success/BLEU as CSV")
    old_spelling(parser, "--per-dialogue", "--per-dialogue-csv")  # --per-dialogue is a flag of mwz evaluate
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="Inform/Success and BLEU vs Success with intervals (extra 'plot'); .png, or vector .pdf or .svg",
    )


@command(
    "compare",
    "compare systems: every metric in one process, 95%% intervals and p-values, tables and a plot",
    _args,
    example="mwz compare -i ubar.json -i mine=out/mine.json --published --baseline ubar --format latex",
)
def run(args: argparse.Namespace) -> int:
    """Score the systems, print or write the comparison, the per-dialogue CSV and the plot."""
    from mwz_metrics.comparison import compare, published_systems, resolve_inputs
    from mwz_metrics.comparison.formats import csv_row

    systems: dict[str, object] = dict(resolve_inputs(args.input))
    if args.published:
        for name, path in published_systems(args.data_dir).items():
            systems.setdefault(name, path)
    if not systems:
        raise InputError("nothing to compare: give -i PATH (repeatable) or --published")
    from mwz_metrics.outputs import check_outputs

    view = Path(args.output).with_name(Path(args.output).stem + ".view.html") if args.output else None
    written = [("-o", args.output), ("--per-dialogue-csv", args.per_dialogue_csv), ("--plot", args.plot)]
    check_outputs([str(p) for p in systems.values()], [*written, ("the runs' page", view)])
    from mwz_metrics.metric import with_defaults

    requests = metric_flags.requests(args)
    if args.all:
        requests = with_defaults([]) + requests  # mwzeval's three, beside whatever else is asked
    if args.plot:
        require_extra("plot", "matplotlib")
        from mwz_metrics.comparison.plot import plot_format

        plot_type = plot_format(args.plot)  # before the scoring: a wrong extension fails at once
    result = compare(
        systems,  # type: ignore[arg-type]
        bleu=False,
        success=False,
        richness=False,
        dst=False,
        metrics=requests,  # with the registry's defaults where none of theirs is asked
        baseline=args.baseline,
        resamples=args.resamples,
        seed=args.bootstrap_seed,
        per_dialogue=bool(args.per_dialogue_csv),
        evaluator_options=evaluator_options(args),
        jobs=args.jobs,
        common_dialogues=args.common_dialogues,
        exclude_infra=args.exclude_infra,
        plan_difference=args.plan,
    )
    image = None
    # the HTML report embeds the plot (PNG) whenever matplotlib is there
    if args.format == "html" and importlib.util.find_spec("matplotlib") is not None:
        from mwz_metrics.comparison.plot import png

        image = png(result, sort=args.sort)
    if args.plot:
        from mwz_metrics.comparison.plot import render as render_plot

        with output_file(args.plot, "wb", log=logger) as f:
            f.write(render_plot(result, plot_type, sort=args.sort))
    from mwz_metrics.comparison.formats import render

    views = _views(args, {n: systems[n] for n in result.settings.get("interactive") or {}})
    # printed, the table's signatures are shortened (whole in a file, and in --format json)
    text = render(result, args.format, image, views, terminal=not args.output)
    if args.output:
        # a system's name may hold what no UTF-8 spells (a lone surrogate from its JSON): an escape (UNSPELLABLE)
        with output_file(args.output, encoding="utf-8", log=logger) as f:
            f.write(text if text.endswith("\n") else text + "\n")
    else:
        print(text)
    if args.per_dialogue_csv:
        with output_file(args.per_dialogue_csv, newline="", encoding="utf-8", log=logger) as f:
            fields = list(dict.fromkeys(k for row in result.per_dialogue for k in row))
            writer = csv.DictWriter(f, fields)
            writer.writeheader()
            writer.writerows(csv_row(row) for row in result.per_dialogue)  # no cell starts a formula
    return 0


def _views(args: argparse.Namespace, runs: dict[str, Any]) -> dict[str, str] | None:
    """With ``--format html -o REPORT``: the interactive runs' page of sessions written beside the report
    (``mwz view``, every run on one page), and each run's link to it, relative to the report."""
    from pathlib import Path

    if args.format != "html" or not args.output or args.no_views or not runs:
        return None
    from mwz_metrics.viewer import write

    report = Path(args.output)
    page = report.with_name(report.stem + ".view.html")
    write(list(runs.values()), page, title=f"mwz view: the interactive runs of {report.name}", data_dir=args.data_dir)
    return {name: f"{page.name}#run={i}" for i, name in enumerate(runs)}

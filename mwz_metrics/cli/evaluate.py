"""``mwz evaluate``: mwzeval's command line, with a signature, coverage and warnings."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import time
from typing import Any

from mwz_metrics import settings
from mwz_metrics.cli import metrics as metric_flags
from mwz_metrics.cli.registry import command, write_json
from mwz_metrics.settings import EvaluationSettings

# BLEU's styles, a list of --style flags (a repeatable flag: not one of settings.add_arguments' kinds)
_STYLES = next(f for f in dataclasses.fields(settings.BleuConfig) if f.name == "styles")

logger = logging.getLogger("mwz.evaluate")


def _args(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "-i",
        "--input",
        help="predictions JSON in mwzeval's format, or a session file of mwz interact (JSONL) or its --predictions "
        "export (scored as those sessions)",
    )
    source.add_argument(
        "--oracle", action="store_true", help="score the MultiWOZ 2.2 references themselves (gold states)"
    )
    add_metric_arguments(parser)
    parser.add_argument("--per-dialogue", action="store_true", help="include per-dialogue inform/success")
    parser.add_argument("-o", "--output", help="write the full result as JSON")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON instead of the table")


def add_metric_arguments(parser: argparse.ArgumentParser) -> None:
    """The metric flags (any registered metric; mwzeval's three by default) and the evaluation settings
    shared by ``mwz evaluate`` and ``mwz compare``."""
    metric_flags.add_arguments(parser)
    settings.add_arguments(parser, settings.SuccessConfig)  # --gold-states
    metric_flags.add_delexicalize_argument(parser)
    parser.add_argument(
        "--chain",
        default="mwzeval",
        help="value-normalizer chain: mwzeval (@7f19ee0, default), mwzeval-2023 (@1d03eb4)",
    )
    settings.add_arguments(parser, settings.SuccessConfig, settings.VARIANT, title=settings.VARIANT)
    parser.add_argument("--style", action="append", dest="styles", help=_STYLES.metadata["help"])
    parser.add_argument(
        "--reference-file",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="extra BLEU style NAME from a reference file in mwzeval's format (repeatable)",
    )
    parser.add_argument("--data-dir", help="a local copy of budzianowski/multiwoz (else MWZ_MIRROR or download)")


def evaluator_options(args: argparse.Namespace) -> EvaluationSettings:
    """The evaluation settings of :func:`add_metric_arguments`, as every metric reads them (metrics excluded)."""
    return settings.EvaluationSettings(
        **vars(settings.from_arguments(settings.SuccessConfig, args)),
        chain=args.chain,
        styles=tuple(args.styles) if args.styles else None,
        data_dir=args.data_dir,
        reference_files=_reference_files(args.reference_file),
        delexicalize=args.delexicalize,
    )


def _table(result: dict, scored: dict, shown: dict) -> str:
    """The readable report: each metric's section in the order of the JSON (as ``shown`` prints it),
    coverage, warnings, signature."""
    from mwz_metrics import metric

    lines = []
    for key in result:
        if key in scored:
            lines += metric.section_lines(scored[key], shown[key])
    coverage = result.get("coverage")
    if coverage:
        lines.append(
            f"coverage: {coverage['dialogues']}/{coverage['dialogues_in_test']} dialogues, "
            f"{coverage['turns']}/{coverage['turns_in_reference']} turns"
        )
    for warning in result.get("warnings", []):
        lines.append(f"warning: {warning['kind']} x{warning.get('count', 1)}: {warning.get('effect', '')}")
    lines.append(f"signature: {result['signature']['line']}")
    return "\n".join(lines)


def _reference_files(values: list[str]) -> dict[str, str]:
    """``NAME=PATH`` arguments as a mapping; a malformed one is an input error."""
    from mwz_metrics.settings import parse_pairs

    return parse_pairs(values, "--reference-file", "NAME=PATH")


@command(
    "evaluate",
    "score predictions on the MultiWOZ test set (mwzeval-compatible)",
    _args,
    example="mwz evaluate -i predictions.json -b -s -r --json > results.json",
)
def run(args: argparse.Namespace) -> int:
    """Score one system (or the oracle) with the metrics asked for and print the table or JSON."""
    from mwz_metrics import metric
    from mwz_metrics.inputs import holds_sessions
    from mwz_metrics.outputs import check_outputs

    check_outputs([args.input], [("-o", args.output)])
    if args.input and holds_sessions(args.input):  # only then the interactive room is imported
        from mwz_metrics.interactive.harness.api import load_sessions

        sessions = load_sessions(args.input)
        if sessions is not None:  # a session file, or its export as predictions
            logger.info("%s holds the sessions of an interactive run: scored as mwz interact scores them", args.input)
            return _sessions(args, *sessions)
    loaded = metric.load_all(metric.with_defaults(metric_flags.requests(args)))  # mwzeval's three by default
    given = evaluator_options(args).replace(per_dialogue=args.per_dialogue)
    started = time.perf_counter()
    predictions = None
    if args.oracle:
        from mwz_metrics.inputs import InputError
        from mwz_metrics.multiwoz.testset import TestSet

        logger.info("building the MultiWOZ 2.2 test references")
        given = given.replace(test_set=TestSet(chain=args.chain, styles=args.styles, data_dir=args.data_dir))
        truncated = given.test_set.truncated("2.2")
        if truncated:  # its oracle would score a handful of dialogues, confidently
            raise InputError(f"--oracle: {truncated}")
        predictions = given.test_set.oracle_predictions()  # scored on the same test set
    inputs = metric.MetricInputs(predictions=predictions, source=args.input, data_dir=args.data_dir, settings=given)
    logger.info("evaluating")
    scored = metric.score(loaded, inputs)
    shown = metric.presentations(loaded)
    result = metric.assemble(scored, shown)
    logger.info("done in %.2f s", time.perf_counter() - started)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(_table(result, scored, shown))
    write_json(result, args.output)
    return 0


def _sessions(args: argparse.Namespace, config: dict[str, Any], sessions: list[dict[str, Any]]) -> int:
    """Sessions (a session file, or its export): scored as ``mwz interact`` scores them (Inform/Success
    against each session's goal)."""
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.scoring.report import table

    result = api.score(
        sessions, config, chain=args.chain, metrics=metric_flags.requests(args), delexicalize=args.delexicalize
    )
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "per_session"}, indent=2, ensure_ascii=False))
    else:
        print(table(result, config))
    write_json(result, args.output)
    return 0

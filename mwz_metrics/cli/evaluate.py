"""``mwz evaluate``: mwzeval's command line, with a signature, coverage and warnings."""

from __future__ import annotations

import argparse
import json
import logging
import time
from typing import Any

from mwz_metrics.cli import metrics as metric_flags
from mwz_metrics.cli.registry import command, write_json

logger = logging.getLogger("mwz.evaluate")


def _args(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "-i", "--input", help="predictions JSON in mwzeval's format, or a session file of mwz interact (JSONL)"
    )
    source.add_argument(
        "--oracle", action="store_true", help="score the MultiWOZ 2.2 references themselves (gold states)"
    )
    add_metric_arguments(parser)
    parser.add_argument("--per-dialogue", action="store_true", help="include per-dialogue inform/success")
    parser.add_argument("-o", "--output", help="write the full result as JSON")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON instead of the table")


def add_metric_arguments(parser: argparse.ArgumentParser) -> None:
    """The metric and option flags shared by ``mwz evaluate`` and ``mwz compare``."""
    parser.add_argument("-b", "--bleu", action="store_true", help="BLEU per delexicalization style")
    parser.add_argument("-s", "--success", action="store_true", help="Inform and Success rates")
    parser.add_argument("-r", "--richness", action="store_true", help="lexical richness")
    parser.add_argument("--dst", action="store_true", help="dialogue state tracking (joint accuracy, slot F1)")
    metric_flags.add_arguments(parser)
    parser.add_argument("--gold-states", action="store_true", help="Inform/Success with MultiWOZ 2.2 gold states")
    parser.add_argument(
        "--chain",
        default="mwzeval",
        help="value-normalizer chain: mwzeval (@7f19ee0, default), mwzeval-2023 (@1d03eb4)",
    )
    variant = parser.add_argument_group("Inform/Success variant (default: mwzeval's)")
    variant.add_argument("--matching", choices=("subset", "intersection"), help="offered venues vs goal venues")
    variant.add_argument(
        "--name-constraints", choices=("all", "name_only"), help="name_only: a named venue/train is looked up by name"
    )
    variant.add_argument(
        "--active-domains", choices=("predicted", "gold"), help="gold: the dataset's, from its dialogue acts (DAMD)"
    )
    variant.add_argument(
        "--optimistic", action="store_true", help="the paper's optimistic setting: intersection, name_only, gold"
    )
    parser.add_argument("--style", action="append", dest="styles", help="delex style(s) for BLEU (default: all)")
    parser.add_argument(
        "--reference-file",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="extra BLEU style NAME from a reference file in mwzeval's format (repeatable)",
    )
    parser.add_argument("--data-dir", help="a local copy of budzianowski/multiwoz (else MWZ_MIRROR or download)")


def evaluator_options(args: argparse.Namespace) -> dict[str, Any]:
    """Evaluator keyword arguments from the flags of :func:`add_metric_arguments` (metrics excluded)."""
    return {
        "gold_states": args.gold_states,
        "chain": args.chain,
        "styles": args.styles,
        "data_dir": args.data_dir,
        "reference_files": _reference_files(args.reference_file),
        "matching": args.matching,
        "name_constraints": args.name_constraints,
        "active_domains": args.active_domains,
        "optimistic": args.optimistic,
    }


def add_metrics(result: dict[str, Any], predictions: Any, args: argparse.Namespace) -> list[str]:
    """The registered metrics the flags ask for, each into ``result`` under its name and into its
    signature; returns their sections of the table."""
    from mwz_metrics import metric
    from mwz_metrics.inputs import read_json

    loaded = metric.load_all(metric_flags.requests(args))
    if not loaded:
        return []
    data = read_json(predictions, "predictions") if isinstance(predictions, str) else predictions
    inputs = metric.MetricInputs(predictions=data, data_dir=args.data_dir)
    lines = []
    for name, scored in metric.score(loaded, inputs).items():
        result[name] = scored.section()
        result["signature"] = metric.signed(result["signature"], scored)
        lines += scored.section_lines()
    return lines


def _table(result: dict, metric_lines: list[str]) -> str:
    lines = []
    for section in ("bleu", "success", "richness", "dst"):
        values = result.get(section)
        if values is None:
            continue
        lines.append(f"====== {section.upper()} ======")
        if section == "success":
            domains = sorted(set(values["inform"]) - {"total"}) + ["total"]
            lines.append(f"{'':15}{'inform':>10}{'success':>10}")
            for domain in domains:
                lines.append(f"{domain:15}{values['inform'].get(domain, 0):>10}{values['success'].get(domain, 0):>10}")
            lines.append(f"(states: {values['states']}; active domains: {values['active_domains']})")
        else:
            for key, value in values.items():
                shown = f"{value:.4f}" if isinstance(value, float) else value
                lines.append(f"{key:15}{shown}")
        lines.append("")
    lines += metric_lines  # the registered metrics asked for
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
    from mwz_metrics.inputs import InputError

    out = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise InputError(f"--reference-file {value!r}: expected NAME=PATH")
        out[name] = path
    return out


@command(
    "evaluate",
    "score predictions on the MultiWOZ test set (mwzeval-compatible)",
    _args,
    example="mwz evaluate -i predictions.json -b -s -r --json > results.json",
)
def run(args: argparse.Namespace) -> int:
    """Score one system (or the oracle) and print the table or JSON."""
    from mwz_metrics.interactive.sessions import looks_like_session_file
    from mwz_metrics.multiwoz.evaluator import Evaluator

    if args.input and looks_like_session_file(args.input):
        return _sessions(args)
    flags = (args.bleu, args.success, args.richness, args.dst)
    if not any(flags):
        args.bleu = args.success = args.richness = True  # mwzeval demands one; we default to its three
    evaluator = Evaluator(
        bleu=args.bleu,
        success=args.success,
        richness=args.richness,
        dst=args.dst,
        per_dialogue=args.per_dialogue,
        **evaluator_options(args),
    )
    started = time.perf_counter()
    if args.oracle:
        logger.info("building the MultiWOZ 2.2 test references")
        predictions = evaluator.testset.oracle_predictions()
    else:
        predictions = args.input
    logger.info("evaluating")
    result = evaluator.evaluate(predictions)
    metric_lines = add_metrics(result, predictions, args)
    logger.info(
        "done in %.2f s (%s)",
        time.perf_counter() - started,
        ", ".join(f"{k} {v:.2f}s" for k, v in evaluator.timings.items()),
    )
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(_table(result, metric_lines))
    write_json(result, args.output)
    return 0


def _sessions(args: argparse.Namespace) -> int:
    """A session file: scored as ``mwz interact`` scores it (Inform/Success against each session's goal)."""
    from mwz_metrics.cli.interact import table
    from mwz_metrics.interactive import api

    config, sessions = api.load_session_file(args.input)
    result = api.score(
        sessions,
        config,
        bleu=True if args.bleu else None,
        chain=args.chain,
        metrics=metric_flags.requests(args),
    )
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "per_session"}, indent=2, ensure_ascii=False))
    else:
        print(table(result, config))
    write_json(result, args.output)
    return 0

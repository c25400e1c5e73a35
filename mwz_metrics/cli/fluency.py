"""``mwz fluency``: sentence fluency (Sent-Score, lower is better) of systems, sessions or gold."""

from __future__ import annotations

import argparse
import json
from typing import Any

from mwz_metrics.cli.registry import command, old_spelling, write_json

EXIT_CODES = """exit codes:
  0  scored
  2  bad input (one line: file, dialogue, turn), a missing extra (--fluency-model), or missing data"""


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-i",
        "--input",
        action="append",
        default=[],
        help="mwzeval predictions (JSON) or an mwz interact session file (JSONL), a folder of them, or NAME=PATH",
    )
    parser.add_argument("--gold", action="store_true", help="also score the MultiWOZ 2.1 test system turns")
    parser.add_argument(
        "--fluency-model",
        metavar="NAME_OR_PATH",
        help="a Hugging Face causal LM (name or path; the neural extra) instead of the default",
    )
    old_spelling(parser, "--model", "--fluency-model")  # --model is the LLM's (mwz interact)
    parser.add_argument(
        "--explain", nargs="?", type=int, const=10, default=0, metavar="N", help="the N (10) least fluent responses"
    )
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for the interval")
    parser.add_argument("-o", "--output", help="write the full results (per dialogue and response) as JSON")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")


def score_path(
    path: Any, *, model: Any, explain: int = 0, resamples: int = 1000, data_dir: str | None = None
) -> dict[str, Any]:
    """A predictions file or a session file, scored."""
    from mwz_metrics.fluency import api
    from mwz_metrics.interactive.harness import sessions

    if sessions.looks_like_session_file(path):
        _, stored = sessions.read(path)
        return api.score_sessions(stored, model=model, explain=explain, resamples=resamples)
    return api.score_predictions(str(path), model=model, explain=explain, resamples=resamples, data_dir=data_dir)


def _ci(interval: Any) -> str:
    return f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ""


@command(
    "fluency",
    "sentence fluency (Sent-Score, Cheng et al. 2022) of predictions, sessions or gold",
    _arguments,
    exit_codes=EXIT_CODES,
    example="mwz fluency -i ubar.json -i damd.json --gold --explain 5",
)
def run(args: argparse.Namespace) -> int:
    """Score every input with one model and print a table (or JSON)."""
    from mwz_metrics.comparison import resolve_inputs
    from mwz_metrics.fluency import api
    from mwz_metrics.inputs import InputError

    if not args.input and not args.gold:
        raise InputError("give -i PREDICTIONS (repeatable) or --gold")
    from mwz_metrics.outputs import check_outputs

    check_outputs([str(p) for p in resolve_inputs(args.input).values()], [("-o", args.output)])
    model = api.shared_model(args.fluency_model, data_dir=args.data_dir)
    results: dict[str, dict[str, Any]] = {}
    if args.gold:
        results["gold"] = api.score_gold(
            model=model, explain=args.explain, resamples=args.resamples, data_dir=args.data_dir
        )
    for name, path in resolve_inputs(args.input).items():  # errors already name the file
        results[name] = score_path(
            path, model=model, explain=args.explain, resamples=args.resamples, data_dir=args.data_dir
        )
    if args.json:
        print(
            json.dumps({k: {x: y for x, y in v.items() if x != "per_response"} for k, v in results.items()}, indent=2)
        )
    else:
        print(f"{'system':<22} {'Sent-Score':>10}  {'95% CI':<18} {'responses':>9}")
        for name, result in results.items():
            print(f"{name:<22} {result['fluency']:>10.3f}  {_ci(result['ci95']):<18} {result['responses']:>9}")
        for name, result in results.items():
            domains = result.get("per_domain") or {}
            if domains:
                shown = "  ".join(f"{d} {v['fluency']:.3f}" for d, v in domains.items())
                print(f"{name} per domain: {shown}")
            for row in result.get("least_fluent", []):
                print(f"  {row['score']:6.2f}  {row['dialogue']} turn {row['turn']}: {row['response']}")
        print(f"signature: {next(iter(results.values()))['signature']['line']}")
    write_json(results, args.output)
    return 0

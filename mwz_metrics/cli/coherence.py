"""``mwz coherence``: session coherence of predictions, full sessions or the gold test sessions."""

from __future__ import annotations

import argparse
import logging
import math
from typing import Any

from mwz_metrics.cli.registry import command, require_extra, write_json
from mwz_plugins.errors import InputError

logger = logging.getLogger("mwz.coherence")


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-i",
        "--input",
        action="append",
        default=[],
        help="mwzeval predictions or full sessions (JSON), an mwz interact session file (JSONL), a folder of them, or NAME=PATH; repeatable",
    )
    parser.add_argument("--gold", action="store_true", help="score the gold MultiWOZ 2.1 test sessions")
    parser.add_argument("-o", "--output", help="write the full result (with per-session scores) as JSON")
    parser.add_argument(
        "--setting",
        choices=("auto", "traditional", "sessions"),
        default="auto",
        help="how to read --input (auto: sessions when turns carry 'speaker')",
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument(
        "--delex",
        dest="delexicalized",
        action="store_true",
        default=None,
        help="treat responses as delexicalized (gold: delexicalize its system turns)",
    )
    form.add_argument(
        "--no-delex",
        dest="delexicalized",
        action="store_false",
        help="treat responses as lexicalized (default for --gold)",
    )
    parser.add_argument(
        "--with-gold",
        action="store_true",
        help="also score gold on the same dialogues and in the same form, with the paired difference",
    )
    parser.add_argument(
        "--explain", nargs="?", type=int, const=20, default=0, metavar="N", help="list the N (20) least coherent turns"
    )
    parser.add_argument(
        "--skip-mismatched",
        action="store_true",
        help="skip dialogues whose predicted turn count differs from gold (default: error)",
    )
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")


def _score_one(api, name: str, path, args: argparse.Namespace) -> dict[str, Any]:
    from mwz_metrics.interactive.harness import sessions
    from mwz_metrics.interactive.scoring import export

    if sessions.looks_like_session_file(path):  # an mwz interact run: its sessions as they went
        _, stored = sessions.read(path)
        return api.score_sessions(export.dialogue_sessions(stored), explain=args.explain)
    from mwz_metrics.inputs import read_json, require_nonempty

    data = read_json(path, "predictions")
    require_nonempty(data, path, "dialogue")
    setting = args.setting
    if setting == "auto":
        setting = "sessions" if api.looks_like_sessions(data) else "traditional"
    if setting == "sessions":
        return api.score_sessions(data, explain=args.explain)
    return api.score_predictions(
        data,
        delexicalized=args.delexicalized,
        with_gold=args.with_gold,
        explain=args.explain,
        on_mismatch="skip" if args.skip_mismatched else "error",
        data_dir=args.data_dir,
        description=f"coherence ({name})",
    )


def _ci(block: dict[str, Any] | None) -> str:
    if not block or math.isnan(block.get("low", math.nan)):
        return ""
    return f"[{block['low']:.2f}, {block['high']:.2f}]"


def _print_table(results: dict[str, dict[str, Any]]) -> None:
    with_gold = any("gold_coherence" in r for r in results.values())
    header = f"{'system':<22} {'coherence':>9}  {'95% CI':<16} {'sessions':>8}"
    if with_gold:
        header += f"  {'gold':>6}  {'gold - system [95% CI]':<28} {'p':>6}"
    print(header)
    for name, r in results.items():
        line = f"{name:<22} {r['coherence']:>9.2f}  {_ci(r.get('ci95')):<16} {r['n_sessions']:>8}"
        if "gold_coherence" in r:
            d = r["gold_minus_system"]
            line += f"  {r['gold_coherence']:>6.2f}  {d['difference']:>6.2f} {_ci(d):<21} {d['p_value']:>6.3f}"
        print(line)


def _print_domains(result: dict[str, Any]) -> None:
    domains = result.get("per_domain")
    if not domains:
        return
    print("per domain: " + "  ".join(f"{d} {v['coherence']:.2f} ({v['sessions']})" for d, v in domains.items()))


def _print_explain(result: dict[str, Any]) -> None:
    for row in result.get("least_coherent", []):
        logit = f"  logit {row['logit']:7.2f}" if "logit" in row else ""
        print(f"  {row['probability']:6.2f}{logit}  {row['session']} turn {row['turn']}")
        if row["context"] is not None:
            print(f"          context: {row['context']}")
        print(f"          {row['first']['speaker']}: {row['first']['text']}")
        print(f"       -> {row['second']['speaker']}: {row['second']['text']}")


@command(
    "coherence",
    "session coherence (Cheng et al. 2022) of predictions, sessions or gold",
    _arguments,
    example="mwz coherence -i ubar.json -i damd.json --with-gold --explain",
)
def _run(args: argparse.Namespace) -> int:
    if not args.gold and not args.input:
        raise InputError("give -i PREDICTIONS (repeatable) or --gold")
    from mwz_metrics.comparison import resolve_inputs
    from mwz_metrics.outputs import check_outputs

    check_outputs([str(p) for p in resolve_inputs(args.input).values()], [("-o", args.output)])
    require_extra("coherence", "torch", "transformers")
    from mwz_metrics.coherence import api

    results: dict[str, dict[str, Any]] = {}
    if args.gold:
        results["gold"] = api.score_gold(
            delexicalized=bool(args.delexicalized), explain=args.explain, data_dir=args.data_dir
        )
    for name, path in resolve_inputs(args.input).items():
        results[name] = _score_one(api, name, path, args)

    first = next(iter(results.values()))
    print(f"signature: {first['signature']['line']}")
    _print_table(results)
    for name, result in results.items():
        if len(results) > 1 and (result.get("per_domain") or result.get("least_coherent")):
            print(f"\n{name}")
        _print_domains(result)
        if result.get("skipped_dialogues"):
            print(f"skipped (turn-count mismatch): {', '.join(result['skipped_dialogues'])}")
        if args.explain:
            print(
                f"{args.explain} least coherent turns (P(coherent) x 100, lowest first; the logit orders the ties at 0.00):"
            )
            _print_explain(result)
    write_json(results if len(results) > 1 else first, args.output)
    return 0

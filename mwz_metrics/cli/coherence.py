"""``mwz coherence``: session coherence of predictions, full sessions or the gold test sessions."""

from __future__ import annotations

import argparse
import json
import logging

from mwz_metrics.cli.registry import command, require_extra, write_json

logger = logging.getLogger("mwz.coherence")


def _arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("-i", "--input", help="mwzeval predictions or full sessions (JSON)")
    source.add_argument("--gold", action="store_true", help="score the gold MultiWOZ 2.1 test sessions")
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
        "--with-gold", action="store_true", help="also score gold on the same dialogues and in the same form"
    )
    parser.add_argument(
        "--skip-mismatched",
        action="store_true",
        help="skip dialogues whose predicted turn count differs from gold (default: error)",
    )
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")


@command(
    "coherence",
    "session coherence (Cheng et al. 2022) of predictions, sessions or gold",
    _arguments,
    example="mwz coherence -i predictions.json --with-gold",
)
def _run(args: argparse.Namespace) -> int:
    require_extra("coherence", "torch", "sentence_transformers")
    from mwz_metrics.coherence import api

    if args.gold:
        result = api.score_gold(delexicalized=bool(args.delexicalized), data_dir=args.data_dir)
    else:
        with open(args.input, encoding="utf-8") as f:
            data = json.load(f)
        setting = args.setting
        if setting == "auto":
            setting = "sessions" if api.looks_like_sessions(data) else "traditional"
        if setting == "sessions":
            result = api.score_sessions(data)
        else:
            result = api.score_predictions(
                data,
                delexicalized=args.delexicalized,
                with_gold=args.with_gold,
                on_mismatch="skip" if args.skip_mismatched else "error",
                data_dir=args.data_dir,
            )
    setting = result["signature"]["setting"]
    print(
        f"setting: {setting}"
        + (
            f" ({'delexicalized' if result.get('delexicalized') else 'lexicalized'})"
            if "delexicalized" in result
            else ""
        )
    )
    print(f"coherence (mean over pairs):    {result['coherence']:.2f}")
    print(f"coherence (mean over sessions): {result['coherence_per_session']:.2f}")
    if "gold_coherence" in result:
        print(f"gold on the same dialogues:     {result['gold_coherence']:.2f}")
    print(f"sessions: {result['n_sessions']}  pairs: {result['n_pairs']}")
    if result.get("skipped_dialogues"):
        print(f"skipped (turn-count mismatch): {', '.join(result['skipped_dialogues'])}")
    write_json(result, args.output)
    return 0

"""``mwz dstc9 score``: the official DSTC9 Track 1 scores of an entry, plus per-source scores."""

from __future__ import annotations

import argparse

from mwz_metrics.cli.registry import command, require_extra, write_json


def _score_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-i", "--entry", dest="input", required=True, help="system output JSON (the labels.json format)"
    )
    parser.add_argument("--split", default="test", choices=["train", "val", "test"], help="labels to score against")
    parser.add_argument(
        "--data-dir", default=None, help="a copy of the upstream repository (else MWZ_MIRROR/cache/download)"
    )
    parser.add_argument("-o", "--output", default=None, help="write the scores JSON here")


@command(
    "dstc9 score",
    "score a DSTC9 Track 1 entry as the official scorer does",
    _score_args,
    example="mwz dstc9 score --entry entry0.json --split test -o scores.json",
)
def _score(args: argparse.Namespace) -> int:
    require_extra("dstc9", "jsonschema")
    from mwz_metrics.dstc9 import score_split
    from mwz_metrics.inputs import InputError, read_json, require_nonempty
    from mwz_metrics.outputs import check_outputs

    check_outputs([args.input], [("-o", args.output)])
    entry = read_json(args.input, "DSTC9 entry")
    require_nonempty(entry, args.input, "instance")
    try:
        result = score_split(entry, args.split, data_dir=args.data_dir)
    except ValueError as error:
        message = str(error)
        raise InputError(message if message.startswith(str(args.input)) else f"{args.input}: {message}") from None
    rows = [("", result)] + [(f"[{name}] ", sub) for name, sub in result.get("by_source", {}).items()]
    for prefix, scores in rows:
        for group in ("detection", "selection", "generation"):
            values = "  ".join(f"{key} {value:.4f}" for key, value in scores[group].items())
            print(f"{prefix}{group}: {values}")
    write_json(result, args.output)
    return 0

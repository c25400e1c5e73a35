"""``mwz simulator agreement``, ``realism``, ``reader`` and ``user-reader``: is the simulated user fit to measure systems?

``agreement`` feeds the 1000 test dialogues to the simulator's goal tracker (the wizards' annotated
acts, and their delexicalized text through the system-act reader) and compares its verdicts with
mwzeval's Success on the same gold dialogues (:mod:`mwz_metrics.interactive.diagnostics.agreement`).
``realism`` scores the user turns the simulator says after oracle histories against the real ones
(BLEU, act F1) and sets figures of simulated sessions beside the real test dialogues'
(:mod:`mwz_metrics.interactive.diagnostics.realism`). ``reader`` and ``user-reader`` measure the readers
learnt from validation on held-out turns: the system-act reader (what a simulated user reads of a
system's words) and the user-act reader (what a reference system made with ``hear=words`` reads of a
user's words, :mod:`mwz_metrics.interactive.systems.user_acts`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from mwz_metrics.cli.registry import command, old_spelling, write_json


def _goals(parser: argparse.ArgumentParser, help: str) -> None:
    """``--goals N`` (as in mwz interact; ``--dialogues N`` until the next release)."""
    parser.add_argument("--goals", type=int, metavar="N", help=help)
    old_spelling(parser, "--dialogues", "--goals")


def _common(parser: argparse.ArgumentParser) -> None:
    _goals(parser, "only the first N test goals, with their dialogues (default: all 1000)")
    parser.add_argument("-o", "--output", help="write the full report as JSON")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")


def _agreement_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--source",
        action="append",
        choices=("acts", "text"),
        help="what the tracker reads of the wizards: their annotated acts, their delexicalized text (default: both)",
    )
    _common(parser)


LISTED = 12  # categories of disagreement printed per source


def _print_agreement(report: dict[str, Any]) -> None:
    from mwz_metrics.interactive.diagnostics.agreement import KINDS

    print(f"goal tracker against mwzeval's Success on {report['dialogues']} gold MultiWOZ 2.1 test dialogues")
    for source in ("acts", "text"):
        if source not in report:
            continue
        part = report[source]
        reading = "the wizards' annotated acts" if source == "acts" else "the wizards' delexicalized text, read"
        print(f"\n{reading}:")
        print(f"  mwzeval counts {part['successful']} dialogues successful; the tracker finds satisfied:")
        print(
            f"    {part['agreement_checked']:5.1f}% in what mwzeval checks (venue, booking, phone, address, postcode, reference, train id)"
        )
        print(f"    {part['agreement']:5.1f}% in the whole goal (every attribute the goal asks for)")
        print(f"  satisfied though mwzeval fails them: {part['satisfied_not_successful']}")
        for reason, count in part["satisfied_not_successful_by_reason"].items():
            print(f"    {count:4d}  {reason}")
        print("  successful by mwzeval, not satisfied, because:")
        for kind, count in part["not_satisfied_by_kind"].items():
            print(f"    {count:4d}  {KINDS[kind]}")
        print(f"  by domain and what was missing (the first {LISTED}; all of them with -o):")
        for item in part["disagreements"][:LISTED]:
            examples = ", ".join(item["examples"][:3])
            print(f"    {item['dialogues']:4d}  {item['category']}  (e.g. {examples})")
    print(f"\nmwzeval: {report['mwzeval_signature']}")


@command(
    "simulator agreement",
    "does the simulator's goal tracker understand the test wizards? (against mwzeval's Success)",
    _agreement_arguments,
    example="mwz simulator agreement --source acts",
)
def agreement(args: argparse.Namespace) -> int:
    """Print (or write) the agreement report."""
    from mwz_metrics.interactive.diagnostics import agreement as library
    from mwz_metrics.interactive.harness.context import InteractiveContext

    context = InteractiveContext(data_dir=args.data_dir)
    report = library.run(context, sources=args.source or library.SOURCES, dialogues=args.goals)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_agreement(report)
    write_json(report, args.output)
    return 0


def _realism_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-i",
        "--sessions",
        dest="input",
        metavar="FILE",
        help="simulated sessions to set beside the test dialogues (an mwz interact session file; "
        "default: agenda + oracle-text on the same goals, run here)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the simulated sessions and user turns (0)")
    parser.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="NAME",
        help="measure the agenda user playing this profile beside the default and the real users (repeatable)",
    )
    parser.add_argument("--profiles", choices=("all",), help="--profile for every registered profile")
    parser.add_argument(
        "--simulator",
        help="measure this registered simulator (agenda, llm, a plugin's) beside the real users, as the agenda user",
    )
    parser.add_argument(
        "--simulator-option", action="append", default=[], metavar="KEY=VALUE", help="a simulator option (repeatable)"
    )
    parser.add_argument("--endpoint", help="--simulator llm: an OpenAI-compatible base URL")
    parser.add_argument("--model", help="--simulator llm: the model name the endpoint serves")
    parser.add_argument(
        "-j", "--jobs", type=int, default=1, metavar="N", help="workers: N sessions in flight at once, in threads (1)"
    )
    _common(parser)


def _print_realism(report: dict[str, Any]) -> None:
    histories = report["oracle_histories"]
    acts = histories["acts"]
    print(f"the agenda user after oracle histories: {histories['user_turns']} user turns of the MultiWOZ 2.1 test set")
    print(
        f"  BLEU                    {histories['bleu']:6.2f}   (the real acts said by its templates: {histories['bleu_real_acts']:.2f})"
    )
    print(
        f"  act F1                  {acts['f1']:6.2f}   (precision {acts['precision']:.1f}, recall {acts['recall']:.1f})"
    )
    print(f"  act F1, without values  {acts['f1_slots']:6.2f}")
    print(f"  {histories['bleu_signature']}")
    simulated, real = report["distribution"]["simulated"], report["distribution"]["real"]
    print(f"\n{'whole sessions':32}{'simulated':>10}{'real':>10}")
    rows = (
        ("sessions", "sessions", 0),
        ("system turns per session", "system_turns_per_session", 2),
        ("words per user turn", "words_per_user_turn", 2),
        ("distinct unigrams (%)", "distinct_1", 2),
        ("distinct bigrams (%)", "distinct_2", 2),
        ("distinct user turns (%)", "unique_user_turns", 1),
        ("domains per user turn", "domains_per_user_turn", 2),
        ("user turns with two domains (%)", "user_turns_with_two_domains", 1),
    )
    for label, key, digits in rows:
        print(f"{label:32}{simulated[key]:10.{digits}f}{real[key]:10.{digits}f}")
    foreign = report["foreign_values"]
    print(
        f"\nuser turns naming a value outside their acts and goal: {foreign['with_foreign_values']} "
        f"of {foreign['user_turns']}"
    )
    for example in foreign["examples"][:5]:
        print(f"  {example['id']}: {example['text']}  ({', '.join(example['values'])})")


@command(
    "simulator realism",
    "how much the simulated user talks like a MultiWOZ user (BLEU and act F1 after oracle histories)",
    _realism_arguments,
    example="mwz simulator realism --sessions runs/oracle-text.jsonl",
)
def realism(args: argparse.Namespace) -> int:
    """Print (or write) the realism report."""
    from mwz_metrics.interactive.diagnostics import realism as library
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.harness.context import InteractiveContext

    context = InteractiveContext(data_dir=args.data_dir)
    if args.profile or args.profiles or args.simulator:
        from mwz_metrics.cli.realism_users import measure

        report = measure(args, context)
        if args.json:
            print(json.dumps(report, indent=2, ensure_ascii=False))
        write_json(report, args.output)
        return 0
    if args.input:
        from mwz_metrics.outputs import check_outputs

        check_outputs([args.input], [("-o", args.output)])
        _, sessions = api.load_session_file(args.input)
    else:
        run = api.prepare("oracle-text", goals=args.goals, seed=args.seed, context=context)
        sessions = api.run_sessions(run, output=None)
    report = library.run(context, sessions, seed=args.seed, dialogues=args.goals)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_realism(report)
    write_json(report, args.output)
    return 0


def _reader_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", default="test", choices=("test", "validation"), help="turns to read (test)")
    parser.add_argument("--lexicalized", action="store_true", help="read the text as written, not delexicalized")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")


@command(
    "simulator reader",
    "the system-act reader's precision, recall and F1 on held-out MultiWOZ 2.1 system turns",
    _reader_arguments,
    example="mwz simulator reader --split test",
)
def reader(args: argparse.Namespace) -> int:
    """Print the reader's scores on the system turns of a split (it was trained on validation)."""
    from mwz_metrics.interactive.user.reader import measure

    context, dialogues = _split_dialogues(args)
    result = measure(context.reader, dialogues, delexicalized=not args.lexicalized)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    form = "as written" if args.lexicalized else "delexicalized"
    print(
        f"system-act reader on {result['turns']} MultiWOZ 2.1 {args.split} system turns ({form}); trained on validation"
    )
    rows = [("request slots (micro)", result["request_slots"])] + list(result["labels"].items())
    _print_scores("label", rows, width=20, digits=3)
    return 0


def _split_dialogues(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The interactive context and the MultiWOZ 2.1 dialogues of ``--split`` (the first ``--goals`` where given)."""
    from mwz_datasets import multiwoz_raw
    from mwz_metrics.interactive.harness.context import InteractiveContext

    context = InteractiveContext(data_dir=args.data_dir)
    paths, _ = context.dialogue_files(args.split)
    dialogues = list(multiwoz_raw.iter_dialogues("2.1", args.split, paths))[: getattr(args, "goals", None)]
    return context, dialogues


def _print_scores(title: str, rows: list[tuple[str, dict[str, Any]]], *, width: int, digits: int) -> None:
    """A reader's precision, recall, F1 and support per row."""
    print(f"{title:{width}}{'precision':>10}{'recall':>10}{'F1':>10}{'support':>9}")
    for label, scores in rows:
        p, r, f = (f"{scores[k]:10.{digits}f}" for k in ("precision", "recall", "f1"))
        print(f"{label:{width}}{p}{r}{f}{scores['support']:9d}")


def _user_reader_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--split", default="test", choices=("test", "validation"), help="turns to read (test)")
    _goals(parser, "only the first N goals of the split, with their dialogues (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")


@command(
    "simulator user-reader",
    "the user-act reader's act precision, recall and F1 on held-out MultiWOZ 2.1 user turns",
    _user_reader_arguments,
    example="mwz simulator user-reader --split test",
)
def user_reader(args: argparse.Namespace) -> int:
    """Print the user-act reader's scores on the user turns of a split (it was trained on validation)."""
    from mwz_metrics.interactive.systems.user_acts import measure

    context, dialogues = _split_dialogues(args)
    result = measure(context.user_reader, dialogues)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"user-act reader on {result['turns']} MultiWOZ 2.1 {args.split} user turns of {len(dialogues)} dialogues; "
        "trained on validation"
    )
    rows = [("all, with values", result["acts"]), ("all, without values", result["slots"])]
    rows += [(f"  {intent}", scores) for intent, scores in result["intents"].items()]
    _print_scores("acts", rows, width=24, digits=2)
    print(f"turns read exactly (every act): {result['exact_turns']:.2f}%")
    return 0

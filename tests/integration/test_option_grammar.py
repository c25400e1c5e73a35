"""One grammar of options across ``mwz`` commands (issue 51, item 3): a name means one thing everywhere.

The test walks every subcommand's parser (two-word ones too: ``hub export``, ``dstc9 score``,
``simulator ...``), collects each option string's destination, kind (a flag, a value, a repeatable
value) and help, and fails where one name has two meanings: two destinations or kinds, a help that
contradicts :data:`MEANINGS`, a name two commands share that the table does not hold, or a retired
name still offered. An old spelling (:class:`~mwz_metrics.cli.registry.OldSpelling`) is exempt for
its release: hidden from ``--help``, it does what its new name does and says so in one warning line.
"""

from __future__ import annotations

import argparse
import logging
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pytest

from mwz_metrics.cli import build_parser, main
from mwz_metrics.cli.registry import OldSpelling


@dataclass(frozen=True)
class Meaning:
    """What an option name means in every command: its destination, the kinds it may take, what its help
    says (``says``, a regular expression, case-insensitive) and must never say (``never``)."""

    meaning: str
    dest: str
    kinds: tuple[str, ...]
    says: str
    never: str | None = None


OUTPUT = Meaning("an output file the command writes", "output", ("value",), r"\bwrit", r"\bread|score-only|\binput")
INPUT = Meaning("an input the command reads", "input", ("value", "append"), r"predictions|session|JSON", r"\bwrit")
JOBS = Meaning("workers: N at once", "jobs", ("value",), r"workers: N .*at once")

# Every option name two commands share, with its one meaning (a name of one command may be here too).
MEANINGS: dict[str, Meaning] = {
    "-o": OUTPUT,
    "--output": OUTPUT,
    "-i": INPUT,
    "--input": INPUT,
    "-j": JOBS,
    "--jobs": JOBS,
    "--seed": Meaning("the sessions' seed", "seed", ("value",), r"session", r"bootstrap"),
    "--bootstrap-seed": Meaning("the bootstrap's seed", "bootstrap_seed", ("value",), r"bootstrap"),
    "--goals": Meaning("the first N test goals", "goals", ("value",), r"first N"),
    "--model": Meaning("the LLM's model name at --endpoint", "model", ("value",), r"endpoint", r"causal LM"),
    "--fluency-model": Meaning("the fluency metric's causal LM", "fluency_model", ("value",), r"causal LM"),
    "--endpoint": Meaning("the LLM's OpenAI-compatible base URL", "endpoint", ("value",), r"OpenAI-compatible"),
    "--format": Meaning("how the report is rendered", "format", ("value",), r"render"),
    "--json": Meaning("print JSON instead of the table", "json", ("flag",), r"JSON"),
    "--data-dir": Meaning("a local copy of the upstream data", "data_dir", ("value",), r"copy"),
    "--resamples": Meaning("bootstrap resamples for the intervals", "resamples", ("value",), r"bootstrap resamples"),
    "--per-dialogue": Meaning("include per-dialogue figures", "per_dialogue", ("flag",), r"per-dialogue"),
    "--per-dialogue-csv": Meaning("write per-dialogue figures as CSV", "per_dialogue_csv", ("value",), r"CSV"),
    "--metric": Meaning("a registered metric (repeatable)", "metric", ("append",), r"metric"),
    "--explain": Meaning("print the N worst items", "explain", ("value",), r"\bN\b"),
    "--plan": Meaning("goals x trials to detect DIFF points", "plan", ("value",), r"detect DIFF"),
    "--exclude-infra": Meaning("leave out infrastructure failures", "exclude_infra", ("flag",), r"timeout"),
    "--gold": Meaning("the MultiWOZ 2.1 test turns", "gold", ("flag",), r"MultiWOZ 2\.1 test"),
    "--split": Meaning("which split", "split", ("value",), r"labels|turns"),
    "--delexicalize": Meaning("how responses with values are read", "delexicalize", ("value",), r"placeholders"),
    "--profile": Meaning("a user profile (repeatable)", "profile", ("append",), r"profile"),
    "--profiles": Meaning("every registered profile", "profiles", ("value",), r"every registered profile"),
    "--simulator": Meaning("the user simulator", "simulator", ("value",), r"simulator"),
    "--simulator-option": Meaning("a simulator option", "simulator_option", ("append",), r"simulator option"),
    "--coherence": Meaning("also the coherence metric", "metric_coherence", ("flag",), r"coherence"),
    "--fluency": Meaning("also the fluency metric", "metric_fluency", ("flag",), r"fluency"),
    # the global options, after the subcommand too
    "-v": Meaning("more logging", "verbose", ("flag",), r"logging"),
    "--verbose": Meaning("more logging", "verbose", ("flag",), r"logging"),
    "-q": Meaning("errors only", "quiet", ("flag",), r"errors only"),
    "--quiet": Meaning("errors only", "quiet", ("flag",), r"errors only"),
    "--debug": Meaning("the traceback of an error", "debug", ("flag",), r"traceback"),
    "--no-cache": Meaning("no derived data", "no_cache", ("flag",), r"derived data"),
}
# Names that must never be offered again but as an old spelling: name -> the one that replaced it.
RETIRED = {"--dialogues": "--goals"}
# Old spellings: (command, argv with the old name, argv with the new one).
OLD_SPELLINGS = [
    ("compare", ["--seed", "3"], ["--bootstrap-seed", "3"]),
    ("compare", ["--per-dialogue", "rows.csv"], ["--per-dialogue-csv", "rows.csv"]),
    ("fluency", ["--model", "gpt2"], ["--fluency-model", "gpt2"]),
    ("simulator realism", ["--dialogues", "4"], ["--goals", "4"]),
    ("simulator agreement", ["--dialogues", "4"], ["--goals", "4"]),
    ("simulator user-reader", ["--dialogues", "4"], ["--goals", "4"]),
]


@dataclass(frozen=True)
class Option:
    command: str
    name: str
    dest: str
    kind: str
    help: str


def _kind(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "flag"
    return "append" if isinstance(action, (argparse._AppendAction, argparse._ExtendAction)) else "value"


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every leaf command's parser, by its words (``hub export``)."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                words = f"{prefix} {name}".strip()
                inner = _commands(sub, words)
                found.update(inner or {words: sub})
    return found


@pytest.fixture(scope="module")
def commands() -> dict[str, argparse.ArgumentParser]:
    return _commands(build_parser())


def _options(commands: dict[str, argparse.ArgumentParser]) -> tuple[list[Option], list[tuple[str, OldSpelling]]]:
    options, old = [], []
    for command, parser in commands.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction) or not action.option_strings:
                continue
            if isinstance(action, OldSpelling):
                old.append((command, action))
                continue
            for name in action.option_strings:
                options.append(Option(command, name, action.dest, _kind(action), str(action.help or "")))
    return options, old


def _meanings(options: list[Option]) -> dict[str, list[Option]]:
    by_name: dict[str, list[Option]] = defaultdict(list)
    for option in options:
        by_name[option.name].append(option)
    return by_name


def test_the_walk_reaches_every_command(commands):
    assert {"evaluate", "compare", "interact", "view", "fluency", "coherence"} <= set(commands)
    assert {"hub export", "dstc9 score", "simulator realism", "simulator user-reader", "cache info"} <= set(commands)


def test_one_name_one_meaning_across_commands(commands):
    options, _ = _options(commands)
    problems = []
    for name, uses in sorted(_meanings(options).items()):
        if name in RETIRED:
            problems += [f"{o.command}: {name} is retired: {RETIRED[name]}" for o in uses]
        meaning = MEANINGS.get(name)
        if meaning is None:  # one definition shared (the same help everywhere), or a row in the table
            shapes = {(o.dest, o.kind, o.help) for o in uses}
            if len(shapes) > 1:
                ways = "; ".join(
                    f"{dest}, {kind} in {sorted(o.command for o in uses if (o.dest, o.kind, o.help) == (dest, kind, h))}"
                    for dest, kind, h in sorted(shapes)
                )
                problems.append(f"{name} is given {len(shapes)} ways ({ways}): one meaning, and a row in MEANINGS")
            continue
        for o in uses:
            if o.dest != meaning.dest or o.kind not in meaning.kinds:
                problems.append(f"{o.command}: {name} is ({o.dest}, {o.kind}), not {meaning.meaning}")
            if not re.search(meaning.says, o.help, re.IGNORECASE):
                problems.append(f"{o.command}: {name}'s help {o.help!r} does not say {meaning.meaning}")
            elif meaning.never and re.search(meaning.never, o.help, re.IGNORECASE):
                problems.append(f"{o.command}: {name}'s help {o.help!r} contradicts {meaning.meaning}")
    assert not problems, "\n".join(problems)


def test_old_spellings_are_hidden_and_stand_for_an_option_of_the_same_command(commands):
    _, old = _options(commands)
    assert {(command, action.option_strings[0]) for command, action in old} >= {
        (command, argv[0]) for command, argv, _ in OLD_SPELLINGS
    }
    for command, action in old:
        assert action.help == argparse.SUPPRESS, (command, action.option_strings)
        assert action.new in commands[command]._actions and action.dest == action.new.dest
        assert action.new.option_strings[-1] not in RETIRED


@pytest.mark.parametrize("command, old, new", OLD_SPELLINGS, ids=[f"{c} {o[0]}" for c, o, _ in OLD_SPELLINGS])
def test_an_old_spelling_does_what_the_new_one_does_and_says_so_once(command, old, new, caplog):
    from mwz_metrics.cli import registry

    parser = build_parser()
    given = parser.parse_args([*command.split(), *old, *old])
    spelt = parser.parse_args([*command.split(), *new])
    seen = dict(vars(given))
    assert seen.pop("_renamed") == [(old[0], new[0])] * 2 and seen == vars(spelt)
    assert given.run is registry.COMMANDS[command][2] and given.run.__wrapped__  # registered saying old names

    def run(args: Any) -> int:
        return 0  # the command's own work is not this test's

    with caplog.at_level(logging.WARNING, logger="mwz"):
        assert registry._saying_renamed(run)(given) == 0
    said_lines = [r.getMessage() for r in caplog.records]
    assert said_lines == [f"{old[0]} is now {new[0]} (the old name works until the next release)"]


def test_old_spellings_of_compare_give_the_same_comparison_with_a_warning_each(
    shared, mirror, tmp_path, caplog, capsys
):
    """``--seed`` and ``--per-dialogue CSV`` of ``mwz compare`` work as ``--bootstrap-seed`` and
    ``--per-dialogue-csv`` until the next release, each with one warning line."""
    import json

    ubar = json.loads((shared / "data" / "mwzeval" / "predictions" / "ubar.json").read_text())
    predictions = tmp_path / "ubar3.json"
    predictions.write_text(json.dumps(dict(sorted(ubar.items())[:3])))
    common = ["compare", "-i", str(predictions), "-s", "--resamples", "20", "--format", "json"]
    printed = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MWZ_MIRROR", str(mirror))
        spellings = {"old": ("--seed", "--per-dialogue"), "new": ("--bootstrap-seed", "--per-dialogue-csv")}
        for spelling, (seed, rows) in spellings.items():
            caplog.clear()
            capsys.readouterr()
            with caplog.at_level(logging.WARNING, logger="mwz"):
                assert main([*common, seed, "7", rows, str(tmp_path / f"{spelling}.csv")]) == 0
            printed[spelling] = capsys.readouterr().out
            warned = [r.getMessage() for r in caplog.records if "is now" in r.getMessage()]
            assert warned == (
                []
                if spelling == "new"
                else [
                    f"{seed} is now --bootstrap-seed (the old name works until the next release)",
                    f"{rows} is now --per-dialogue-csv (the old name works until the next release)",
                ]
            )
    assert printed["old"] == printed["new"] and json.loads(printed["new"])["bootstrap"]["seed"] == 7
    assert (tmp_path / "old.csv").read_text() == (tmp_path / "new.csv").read_text()


def test_format_refuses_in_one_line_naming_the_plot_option(commands, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["compare", "--format", "plot"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mwz: error: --format plot: ") and "--plot FILE" in err, err
    assert "--format {table,markdown,latex,csv,json,html}" in commands["compare"].format_help()

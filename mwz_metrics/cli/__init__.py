"""The ``mwz`` command line.

Subcommands print a readable report on stdout and, with ``-o``, write JSON.
Logging (progress, warnings) goes to stderr. Each built-in subcommand is a module
of this package that registers itself in :mod:`mwz_metrics.cli.registry`;
higher layers and other distributions add theirs through the ``mwz.cli``
entry-point group, so this layer never imports them.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import traceback
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from mwz_metrics.cli.registry import (
    COMMANDS,
    EXAMPLES,
    EXIT_TEXTS,
    MissingExtra,
    command,
    escaping_stdout,
    require_extra,
    write_json,
)
from mwz_metrics.outputs import RESOURCE_ERRORS, resource_error
from mwz_plugins.errors import MwzError

logger = logging.getLogger("mwz")

CLI_ENTRY_POINT_GROUP = "mwz.cli"
# Imported when the parser is built; each module imports its heavy dependencies lazily.
BUILTIN_COMMANDS = (
    "plugins",
    "evaluate",
    "compare",
    "dstc9",
    "coherence",
    "interact",
    "simulator",
    "fluency",
    "cache",
    "view",
)

__all__ = [
    "BUILTIN_COMMANDS",
    "CLI_ENTRY_POINT_GROUP",
    "MissingExtra",
    "build_parser",
    "command",
    "main",
    "require_extra",
    "write_json",
]

ENVIRONMENT = """environment:
  MWZ_MIRROR    a folder of upstream copies laid out <owner>/<repo>/<path> (offline use)
  MWZ_CACHE     downloads and derived data (default ~/.cache/mwz_eval); MWZ_NO_CACHE=1 never caches
  MWZ_PLUGINS   comma-separated allowlist of plugin entry points ('mwz-*': built-ins only)
  MWZ_DISABLE_PLUGINS=NAME[,NAME]   never load these plugins (entry-point or distribution names):
                a plugin that fails to load is left out with a warning; this runs without it
  HF_HUB_OFFLINE=1, HF_DATASETS_OFFLINE=1   never reach the network"""


BUG_EXIT = "  1  a bug of mwz-eval or of a plugin: one line asking for a report (--debug shows the traceback)"
EXIT_CODES = f"""exit codes:
  0  done
{BUG_EXIT}
  2  bad input or configuration, missing data, a missing extra, a system or simulator that cannot be
     used: one line on stderr naming the file, dialogue and turn where there is one"""

BUG_REPORT = (
    "this is a bug, not bad input: please report it on the project's issue tracker"
    " with the output of the same command run with --debug"
)


def _epilog(name: str) -> str:
    example = EXAMPLES.get(name)
    exits = EXIT_TEXTS.get(name, EXIT_CODES)
    if BUG_EXIT not in exits:  # a command's own exit codes say what 0 and 2 mean there; 1 is always a bug
        exits += "\n" + BUG_EXIT
    return (f"example:\n  {example}\n\n" if example else "") + ENVIRONMENT + "\n\n" + exits


def _load_subcommands() -> None:
    for name in BUILTIN_COMMANDS:
        importlib.import_module(f"{__name__}.{name}")
    for ep in sorted(metadata.entry_points(group=CLI_ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            ep.load()
        except Exception as error:  # a broken plugin must not break the other commands
            logger.warning("mwz.cli entry point %s (%s) failed to load: %s", ep.name, ep.value, error)


def _global_options(parser: argparse.ArgumentParser, *, after_subcommand: bool) -> None:
    """-v, -q and --debug. After the subcommand they default to "not given" (``SUPPRESS``), so that
    they only add to what was given before it."""

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if after_subcommand else value

    parser.add_argument("-v", "--verbose", action="count", default=default(0), help="more logging on stderr")
    parser.add_argument(
        "-q", "--quiet", action="store_true", default=default(False), help="errors only on stderr, no progress bars"
    )
    parser.add_argument("--debug", action="store_true", default=default(False), help="show the traceback of an error")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        default=default(False),
        help="neither read nor write derived data (MWZ_NO_CACHE)",
    )


# What ``mwz --help`` says first (the module docstring is for readers of the code).
DESCRIPTION = (
    "Evaluate task-oriented dialogue systems on MultiWOZ and DSTC9 Track 1: static scores identical\n"
    "to mwzeval's, comparisons with intervals, and interactive evaluation with a simulated user."
)


def build_parser() -> argparse.ArgumentParser:
    """The ``mwz`` argument parser with every registered subcommand."""
    _load_subcommands()
    from mwz_plugins.version import __version__

    parser = argparse.ArgumentParser(
        prog="mwz",
        description=DESCRIPTION,
        epilog="example:\n  mwz evaluate -i predictions.json -b -s -r\n\n" + ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mwz-eval {__version__}")
    _global_options(parser, after_subcommand=False)
    # The same options after the subcommand (``mwz compare ... -q``), where its --help shows them.
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, after_subcommand=True)
    sub = parser.add_subparsers(dest="command", required=True)
    groups: dict[str, argparse._SubParsersAction] = {}
    members: dict[str, list[str]] = {}  # a group's subcommands, named in the group's line of --help
    for name in sorted(COMMANDS):
        group, _, member = name.partition(" ")
        if member:
            members.setdefault(group, []).append(member)
    # one-word commands first, then two-word ones ("hub export", "dstc9 score") grouped
    for name, (help_text, add_arguments, run) in sorted(COMMANDS.items(), key=lambda item: len(item[0].split())):
        words = name.split()
        options: dict[str, Any] = {
            "help": help_text,
            "epilog": _epilog(name),
            "formatter_class": argparse.RawDescriptionHelpFormatter,
            "parents": [common],
        }
        if len(words) == 1:
            p = sub.add_parser(name, **options)
        else:
            if words[0] not in groups:
                g = sub.add_parser(words[0], help="commands: " + ", ".join(members[words[0]]))
                groups[words[0]] = g.add_subparsers(dest="subcommand", required=True)
            p = groups[words[0]].add_parser(words[1], **options)
        add_arguments(p)
        p.set_defaults(run=run)
    return parser


def _message(error: BaseException) -> str:
    # the message as raised (a KeyError's str() would quote it)
    return str(error.args[0]) if len(error.args) == 1 else str(error)


def _reader_went_away() -> int:
    """``mwz ... | head``: the reader closed the pipe, which is no error; stdout goes to /dev/null so
    that nothing left in its buffer is written (and fails) again at exit (Python's documented recipe)."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured in a test)
        pass
    return 0


def _bug(error: Exception, debug: bool) -> int:
    """A bug, never "bad input": one line asking for a report (the traceback under ``--debug``); exit 1."""
    if debug:
        traceback.print_exc()
    first_line = (_message(error).splitlines() or [""])[0]
    print(f"mwz: internal error ({type(error).__name__}: {first_line}); {BUG_REPORT}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mwz`` with ``argv`` (default: the process arguments); returns the exit code.

    An :class:`~mwz_plugins.errors.MwzError` (bad input, missing data or extra, an unusable system or
    simulator) is one line on stderr and exit code 2; any other exception is a bug: one line asking for
    a report, exit code 1. ``--debug`` adds the traceback (the exit code stays).
    """
    import os

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.no_cache:
        os.environ["MWZ_NO_CACHE"] = "1"
    if args.quiet:
        os.environ["MWZ_QUIET"] = "1"  # progress bars read it
        level = logging.ERROR
    else:
        level = logging.WARNING - 10 * min(args.verbose + 1, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    failures = logging.getLogger("mwz.failures")  # a failing system's or simulator's traceback
    shown = failures.level
    if args.debug:
        failures.setLevel(logging.DEBUG)
    try:
        with escaping_stdout():  # a lone surrogate printed is an escape, as in -o FILE
            code = int(args.run(args))
            sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
        return code
    except BrokenPipeError:
        return _reader_went_away()
    except MwzError as error:
        if args.debug:
            traceback.print_exc()
        print(f"mwz: error: {_message(error)}", file=sys.stderr)
        return 2
    except OSError as error:
        if error.errno not in RESOURCE_ERRORS:
            return _bug(error, args.debug)
        if args.debug:
            traceback.print_exc()
        print(f"mwz: error: {resource_error(error)}", file=sys.stderr)
        return 2
    except Exception as error:  # anything else is a bug, never "bad input"
        return _bug(error, args.debug)
    finally:
        failures.setLevel(shown)
        if argv is None:  # a command of its own, about to exit: what it loaded needs no last
            import gc  # garbage collection (50-90 ms with a DSTC9 split or a corpus in memory)

            gc.freeze()


if __name__ == "__main__":
    sys.exit(main())

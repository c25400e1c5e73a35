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
from collections.abc import Sequence
from importlib import metadata

from mwz_metrics.cli.registry import COMMANDS, command, write_json

logger = logging.getLogger("mwz")

CLI_ENTRY_POINT_GROUP = "mwz.cli"
# Imported when the parser is built; each module imports its heavy dependencies lazily.
BUILTIN_COMMANDS = ("plugins", "evaluate", "dstc9", "coherence")

__all__ = ["BUILTIN_COMMANDS", "CLI_ENTRY_POINT_GROUP", "build_parser", "command", "main", "write_json"]


def _load_subcommands() -> None:
    for name in BUILTIN_COMMANDS:
        importlib.import_module(f"{__name__}.{name}")
    for ep in sorted(metadata.entry_points(group=CLI_ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            ep.load()
        except Exception as error:  # a broken plugin must not break the other commands
            logger.warning("mwz.cli entry point %s (%s) failed to load: %s", ep.name, ep.value, error)


def build_parser() -> argparse.ArgumentParser:
    """The ``mwz`` argument parser with every registered subcommand."""
    _load_subcommands()
    parser = argparse.ArgumentParser(prog="mwz", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    groups: dict[str, argparse._SubParsersAction] = {}
    # one-word commands first, then two-word ones ("hub export", "dstc9 score") grouped
    for name, (help_text, add_arguments, run) in sorted(COMMANDS.items(), key=lambda item: len(item[0].split())):
        words = name.split()
        if len(words) == 1:
            p = sub.add_parser(name, help=help_text)
        else:
            if words[0] not in groups:
                g = sub.add_parser(words[0], help=f"{words[0]} commands")
                groups[words[0]] = g.add_subparsers(dest="subcommand", required=True)
            p = groups[words[0]].add_parser(words[1], help=help_text)
        add_arguments(p)
        p.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``mwz`` with ``argv`` (default: the process arguments); returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose + 1, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return int(args.run(args))
    except (ValueError, KeyError, FileNotFoundError, RuntimeError) as error:
        logger.error("%s", error)
        return 2


if __name__ == "__main__":
    sys.exit(main())

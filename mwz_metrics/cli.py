"""The ``mwz`` command line.

Subcommands print a readable report on stdout and, with ``-o``, write JSON.
Logging (progress, warnings) goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence

logger = logging.getLogger("mwz")

# name -> (help, add_arguments, run); subcommand modules add themselves here.
_COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}


def command(name: str, help: str, add_arguments: Callable[[argparse.ArgumentParser], None]):
    def decorate(run: Callable[[argparse.Namespace], int]):
        _COMMANDS[name] = (help, add_arguments, run)
        return run

    return decorate


def write_json(data: object, path: str | None) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, ensure_ascii=False)
            f.write("\n")
        logger.info("wrote %s", path)


def _plugins_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


@command("plugins", "list the loaded plugins and what each registers", _plugins_args)
def _plugins(args: argparse.Namespace) -> int:
    from mwz_plugins.manager import plugin_infos, registered_by

    rows = []
    for name, info in sorted(plugin_infos().items()):
        rows.append(
            {
                "plugin": name,
                "module": info.module,
                "distribution": info.distribution,
                "version": info.version,
                "registers": registered_by(name),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        dist = f"{row['distribution']} {row['version']}" if row["distribution"] else "(not installed)"
        print(f"{row['plugin']}  [{dist}]  {row['module']}")
        for kind, names in sorted(row["registers"].items()):
            print(f"    {kind}: {', '.join(sorted(names))}")
    return 0


CLI_ENTRY_POINT_GROUP = "mwz.cli"


def _load_subcommands() -> None:
    # Imported here so that `mwz plugins` stays fast.
    from mwz_metrics import cli_commands  # noqa: F401

    # Higher layers and other distributions add subcommands through the `mwz.cli`
    # entry-point group (a module that uses @command), so this layer never imports them.
    from importlib import metadata

    for ep in sorted(metadata.entry_points(group=CLI_ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            ep.load()
        except Exception as error:  # a broken plugin must not break the other commands
            logger.warning("mwz.cli entry point %s (%s) failed to load: %s", ep.name, ep.value, error)


def build_parser() -> argparse.ArgumentParser:
    _load_subcommands()
    parser = argparse.ArgumentParser(prog="mwz", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_arguments, run) in _COMMANDS.items():
        words = name.split()
        if len(words) == 1:
            p = sub.add_parser(name, help=help_text)
            add_arguments(p)
            p.set_defaults(run=run)
    # two-word commands: "hub export", "dstc9 score", ...
    groups: dict[str, argparse._SubParsersAction] = {}
    for name, (help_text, add_arguments, run) in _COMMANDS.items():
        words = name.split()
        if len(words) == 2:
            if words[0] not in groups:
                g = sub.add_parser(words[0], help=f"{words[0]} commands")
                groups[words[0]] = g.add_subparsers(dest="subcommand", required=True)
            p = groups[words[0]].add_parser(words[1], help=help_text)
            add_arguments(p)
            p.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose + 1, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return args.run(args)
    except (ValueError, KeyError, FileNotFoundError, RuntimeError) as error:
        logger.error("%s", error)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""``mwz plugins``: the loaded plugins and what each registers, and the plugins that failed to load."""

from __future__ import annotations

import argparse
import json
from typing import Any

from mwz_metrics.cli.registry import command

EXIT_CODES = """exit codes:
  0  listed, a plugin that failed to load included (listed as failed, with its error and the
     MWZ_DISABLE_PLUGINS setting that runs without it)
  2  a plugin registered something invalid or conflicting (the line names it)"""


def _args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


@command(
    "plugins",
    "list the loaded plugins and what each registers, and those that failed to load",
    _args,
    example="mwz plugins --json",
    exit_codes=EXIT_CODES,
)
def run(args: argparse.Namespace) -> int:
    """Print every plugin with its distribution, version and registered items; a plugin that failed to
    load (its import or one of its hooks raised) is listed with ``"status": "failed"``, the error and
    the setting that disables it."""
    from mwz_plugins.manager import plugin_failures, plugin_infos, registered_by

    rows: list[dict[str, Any]] = []
    for name, info in sorted(plugin_infos().items()):
        rows.append(
            {
                "plugin": name,
                "module": info.module,
                "distribution": info.distribution,
                "version": info.version,
                "registers": registered_by(name),
                "status": "loaded",
            }
        )
    for name, failure in sorted(plugin_failures().items()):
        rows.append(
            {
                "plugin": name,
                "module": failure.info.module,
                "distribution": failure.info.distribution,
                "version": failure.info.version,
                "registers": registered_by(name),  # nothing: a plugin is in whole or not at all
                "status": "failed",
                "stage": failure.stage,
                "error": failure.error,
                "disable": failure.disable,
            }
        )
    rows.sort(key=lambda row: row["plugin"])
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        dist = f"{row['distribution']} {row['version']}" if row["distribution"] else "(not installed)"
        print(f"{row['plugin']}  [{dist}]  {row['module']}")
        if row["status"] == "failed":
            hook = "" if row["stage"] == "load" else f" (raised by its hook {row['stage']})"
            print(f"    FAILED to load: {row['error']}{hook}")
            print(f"    run without it: {row['disable']}")
        for kind, names in sorted(row["registers"].items()):
            print(f"    {kind}: {', '.join(sorted(names))}")
    return 0

"""``mwz plugins``: the loaded plugins and what each registers."""

from __future__ import annotations

import argparse
import json
from typing import Any

from mwz_metrics.cli.registry import command


def _args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


@command("plugins", "list the loaded plugins and what each registers", _args, example="mwz plugins --json")
def run(args: argparse.Namespace) -> int:
    """Print every plugin with its distribution, version and registered items."""
    from mwz_plugins.manager import plugin_infos, registered_by

    rows: list[dict[str, Any]] = []
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

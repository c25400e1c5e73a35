"""MkDocs hook: the pages that are generated from the code at build time, never copied by hand.

Markers in a page's Markdown are replaced when the site is built:

- ``<!-- generated: cli -->``: every ``mwz`` command's ``--help``, walked from the parser that
  :func:`mwz_metrics.cli.build_parser` builds (higher layers' commands included);
- ``<!-- generated: exit-codes -->``: the exit codes each command states in its ``--help``;
- ``<!-- schema: NAME -->``: the JSON Schema ``mwz_metrics/records/schemas/NAME.schema.json`` as a code block,
  or, while that file does not exist, a visible note saying that it is pending (the build still passes).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "mwz_metrics" / "records" / "schemas"
_SCHEMA = re.compile(r"<!-- schema: ([a-z0-9_-]+) -->")
WIDTH = "100"  # argparse wraps --help to $COLUMNS


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps its subcommands here only
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def commands() -> list[tuple[str, argparse.ArgumentParser]]:
    """``(name, parser)`` of every ``mwz`` command, ``mwz`` itself first, two-word commands by their group."""
    from mwz_metrics.cli import build_parser

    root = build_parser()
    found = [("mwz", root)]

    def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
        for name, sub in sorted(_subparsers(parser).items()):
            children = _subparsers(sub)
            if children:
                walk(f"{prefix} {name}", sub)
            else:
                found.append((f"{prefix} {name}", sub))

    walk("mwz", root)
    return found


def _help(parser: argparse.ArgumentParser) -> str:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return parser.format_help()
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def cli_reference() -> str:
    """The CLI reference: a section per command with its ``--help`` as printed."""
    parts = []
    for name, parser in commands():
        anchor = name.replace(" ", "-")
        parts.append(f"## `{name}` {{#{anchor}}}\n\n```text\n{_help(parser).rstrip()}\n```\n")
    return "\n".join(parts)


def exit_codes() -> str:
    """A table of the commands whose exit codes say more than the common ones, from their ``--help``."""
    from mwz_metrics.cli.registry import EXIT_TEXTS

    commands()  # registers every command, the higher layers' too
    rows = ["| command | exit codes (as its `--help` prints them) |", "|---|---|"]
    for name, text in sorted(EXIT_TEXTS.items()):
        lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("exit codes")]
        joined = "<br>".join(_escape(line) for line in lines)
        rows.append(f"| `mwz {name}` | {joined} |")
    return "\n".join(rows)


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def schema(name: str) -> str:
    """The JSON Schema ``name`` as a fenced block, or a note that it is not generated yet."""
    path = SCHEMAS / f"{name}.schema.json"
    if not path.is_file():
        candidates = sorted(SCHEMAS.glob(f"*{name}*.json")) if SCHEMAS.is_dir() else []
        path = candidates[0] if candidates else path
    if path.is_file():
        text = json.dumps(json.loads(path.read_text(encoding="utf-8")), indent=2)
        where = path.relative_to(ROOT).as_posix()
        return f"`{where}` (generated from the typed records; shipped with the package):\n\n```json\n{text}\n```"
    return (
        f'!!! warning "Schema pending: `{name}`"\n'
        f"    This place includes `mwz_metrics/records/schemas/{name}.schema.json`, generated from the typed\n"
        "    records, once that file exists; until then the description and the example above are the\n"
        "    specification.\n"
    )


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: replace the markers of a page by what the code says now."""
    if "<!-- generated: cli -->" in markdown:
        markdown = markdown.replace("<!-- generated: cli -->", cli_reference())
    if "<!-- generated: exit-codes -->" in markdown:
        markdown = markdown.replace("<!-- generated: exit-codes -->", exit_codes())
    return _SCHEMA.sub(lambda match: schema(match.group(1)), markdown)

"""``mwz cache info`` and ``mwz cache clear``: what the cache holds, and emptying it."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from mwz_metrics.cli.registry import command


def _files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.rglob("*") if p.is_file())
    except OSError:
        return []


def _summary() -> dict[str, Any]:
    from mwz_datasets import derived as cache
    from mwz_datasets.sources import cache_root

    root = cache_root()
    derived = _files(root / "derived")
    downloads = _files(root / "downloads")
    aside = [p for p in derived + downloads if ".bad-" in p.name]
    kinds: dict[str, dict[str, int]] = {}
    for path in derived:
        if ".bad-" in path.name or path.suffix != ".json":
            continue
        kind = path.name.rsplit("-", 1)[0]
        entry = kinds.setdefault(kind, {"files": 0, "bytes": 0})
        entry["files"] += 1
        entry["bytes"] += path.stat().st_size
    return {
        "root": str(root),
        "usable": root.is_dir() or not root.exists(),
        "disabled": cache.disabled(),
        "derived": {
            "files": len([p for p in derived if p not in aside]),
            "bytes": sum(p.stat().st_size for p in derived if p not in aside),
            "kinds": kinds,
        },
        "downloads": {"files": len(downloads), "bytes": sum(p.stat().st_size for p in downloads)},
        "set_aside": [str(p) for p in aside],
    }


def _info_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")


@command("cache info", "where the cache is and what it holds", _info_arguments, example="mwz cache info")
def info(args: argparse.Namespace) -> int:
    """Print the cache's folder, its derived data by kind, its downloads and the files set aside."""
    summary = _summary()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    state = "disabled (MWZ_NO_CACHE)" if summary["disabled"] else ("usable" if summary["usable"] else "NOT usable")
    print(f"cache: {summary['root']} ({state})")
    derived, downloads = summary["derived"], summary["downloads"]
    print(f"derived data: {derived['files']} files, {derived['bytes'] / 1e6:.1f} MB")
    for kind, entry in sorted(derived["kinds"].items()):
        print(f"  {kind}: {entry['files']} file(s), {entry['bytes'] / 1e6:.1f} MB")
    print(f"downloads: {downloads['files']} files, {downloads['bytes'] / 1e6:.1f} MB")
    if summary["set_aside"]:
        print(f"set aside (failed their checks; safe to delete): {len(summary['set_aside'])}")
        for path in summary["set_aside"]:
            print(f"  {path}")
    return 0


def _clear_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--downloads", action="store_true", help="also the downloaded upstream files")


@command(
    "cache clear",
    "empty the cache's derived data (and, with --downloads, the downloads)",
    _clear_arguments,
    example="mwz cache clear",
)
def clear(args: argparse.Namespace) -> int:
    """Remove derived data (rebuilt on the next run) and, if asked, the downloads."""
    from mwz_datasets.sources import cache_root

    root = cache_root()
    removed = []
    for name in ("derived", *(("downloads",) if args.downloads else ())):
        folder = root / name
        if folder.is_dir():
            shutil.rmtree(folder)
            removed.append(str(folder))
    print("removed: " + (", ".join(removed) if removed else "nothing (already empty)"))
    return 0

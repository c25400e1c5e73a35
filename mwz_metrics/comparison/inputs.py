"""What ``mwz compare`` is given: files, folders, ``NAME=PATH``, mwzeval's published systems."""

from __future__ import annotations

from pathlib import Path

from mwz_metrics.inputs import InputError
from mwz_metrics.settings import parse_pair


def published_systems(data_dir: str | None = None) -> dict[str, Path]:
    """mwzeval's published predictions (pinned, verified; ``MWZ_MIRROR`` and the cache apply)."""
    from mwz_datasets import catalog, sources

    pinned = catalog.published_predictions()
    resolved = sources.resolve(list(pinned.values()), data_dir=data_dir)
    return {system: resolved[source.path].path for system, source in pinned.items()}


def resolve_inputs(specs: list[str]) -> dict[str, Path]:
    """``name=path``, a file (named by its stem) or a folder (every ``*.json`` predictions file and
    ``*.jsonl`` session file of ``mwz interact`` in it) -> name: path."""
    systems: dict[str, Path] = {}
    for spec in specs:
        if "=" in spec and not spec.startswith("=") and not Path(spec).exists():
            name, path = parse_pair(spec, "-i", "NAME=PATH or a path", empty_value=True)
            paths = {name: Path(path)}
        else:
            target = Path(spec)
            if target.is_dir():
                found = sorted([*target.glob("*.json"), *target.glob("*.jsonl")])
                paths = {p.stem: p for p in found}
                if not paths:
                    raise InputError(f"{target}: no *.json predictions (or *.jsonl sessions) in this folder")
            else:
                paths = {target.stem: target}
        for system, file in paths.items():
            if not file.is_file():
                raise InputError(f"{file}: no such predictions file (system {system})")
            if system in systems:
                raise InputError(f"system name {system!r} given twice ({systems[system]} and {file}); use name=path")
            systems[system] = file
    return systems

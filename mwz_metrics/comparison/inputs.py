"""What ``mwz compare`` is given: files, folders, ``NAME=PATH``, mwzeval's published systems.

A run of ``mwz interact --profiles`` (or ``--profile NAME``) is one session file per user: the default
user's ``runs/x.jsonl`` and each profile's beside it, ``runs/x.terse.jsonl`` (:func:`profile_file`). Given
the default user's file, ``mwz compare`` and ``mwz view`` find the others (:func:`profile_runs`) and show
the run's robustness; a folder lists the run once, under the default user's file.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.settings import parse_pair

logger = logging.getLogger(__name__)

# What a profile's run shares with the default user's run for the two to be one run with profiles.
SAME_RUN = ("system", "seed", "max_turns", "user_acts", "goals", "trials")


def published_systems(data_dir: str | None = None) -> dict[str, Path]:
    """mwzeval's published predictions (pinned, verified; ``MWZ_MIRROR`` and the cache apply)."""
    from mwz_datasets import catalog, sources

    pinned = catalog.published_predictions()
    resolved = sources.resolve(list(pinned.values()), data_dir=data_dir)
    return {system: resolved[source.path].path for system, source in pinned.items()}


def resolve_inputs(specs: list[str]) -> dict[str, Path]:
    """``name=path``, a file (named by its stem) or a folder (every ``*.json`` predictions file and
    ``*.jsonl`` session file of ``mwz interact`` in it, a run with profiles once: its default user's file,
    :func:`profile_runs`) -> name: path."""
    systems: dict[str, Path] = {}
    for spec in specs:
        if "=" in spec and not spec.startswith("=") and not Path(spec).exists():
            name, path = parse_pair(spec, "-i", "NAME=PATH or a path", empty_value=True)
            paths = {name: Path(path)}
        else:
            target = Path(spec)
            if target.is_dir():
                found = sorted([*target.glob("*.json"), *target.glob("*.jsonl")])
                profiles = {q for f in found for q in profile_runs(f).values()}  # listed with their default run
                found = [p for p in found if p not in profiles]
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


def profile_file(output: str | Path, name: str) -> Path:
    """The session file of a profile's run: the default user's name with the profile before its suffix
    (``runs/x.jsonl`` -> ``runs/x.terse.jsonl``)."""
    path = Path(output)
    return path.with_name(f"{path.stem}.{name}{path.suffix or '.jsonl'}")


def _header(path: Path) -> dict[str, Any] | None:
    """The run configuration in a session file's first line (None: not a session file, or unreadable)."""
    try:
        with open(path, "rb") as f:
            first = f.readline(10_000_000)
        header = json.loads(first)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    run = header.get("run") if isinstance(header, dict) and header.get("format") else None
    return run if isinstance(run, dict) else None


def _simulator(run: dict[str, Any]) -> dict[str, Any]:
    simulator = run.get("simulator")
    return simulator if isinstance(simulator, dict) else {}


def profile_runs(path: str | Path) -> dict[str, Path]:
    """The profiles' session files of the default user's run in ``path`` (profile -> file, by name): the
    files beside it named as :func:`profile_file` names them whose run plays that profile with the same
    simulator (name and version: a profile sets options of its own), system, seed, goals, trials, turn limit
    and level (``SAME_RUN``); another file of that name is left out with a log line. Empty for a file that
    is no session file of a default user's run."""
    path = Path(path)
    if path.suffix == ".json" or not path.is_file():  # predictions, or a run's export: no profiles beside
        return {}
    run = _header(path)
    if run is None or _simulator(run).get("profile"):
        return {}
    found: dict[str, Path] = {}
    prefix, suffix = f"{path.stem}.", path.suffix or ".jsonl"
    try:
        candidates = sorted(path.parent.iterdir())
    except OSError:
        return {}
    for candidate in candidates:
        name = candidate.name
        if not (name.startswith(prefix) and name.endswith(suffix)) or candidate == path:
            continue
        profile = name[len(prefix) : -len(suffix)]
        if not profile or "." in profile or not candidate.is_file():
            continue
        other = _header(candidate)
        if other is None:
            continue
        played = _simulator(other).get("profile")
        plays = played.get("name") if isinstance(played, dict) else None
        differs = [key for key in SAME_RUN if run.get(key) != other.get(key)]
        simulators = [{k: _simulator(r).get(k) for k in ("name", "version")} for r in (run, other)]
        differs += ["simulator"] if simulators[0] != simulators[1] else []  # a profile sets options of its own
        if plays != profile or differs:
            why = f"it plays {plays or 'no profile'}" if plays != profile else f"it differs in {', '.join(differs)}"
            level = logging.INFO if plays else logging.DEBUG  # a run of no profile: another run, named alike
            logger.log(level, "%s: not the %s profile of %s's run (%s); left out", candidate, profile, path.name, why)
            continue
        found[profile] = candidate
    return found


def profile_set(configs: Mapping[str, Mapping[str, Any]]) -> str:
    """``default+eager@1.0.0+terse@1.0.0``: the users of a run with profiles, each profile at its version
    (``configs``: user -> its run's configuration, the default user's first)."""
    names = []
    for user, config in configs.items():
        simulator = config.get("simulator")
        played = simulator.get("profile") if isinstance(simulator, Mapping) else None
        version = played.get("version") if isinstance(played, Mapping) else None
        names.append(f"{user}@{version}" if version else user)
    return "+".join(names)


def profiles_signature(signature: Mapping[str, Any], configs: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The default user's signature naming the run's profile set (``profiles=``, :func:`profile_set`)."""
    from mwz_metrics.signature import with_options

    return with_options(dict(signature), profiles=profile_set(configs))

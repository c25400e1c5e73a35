"""``mwz view`` as a library: runs scored as ``mwz interact --score-only`` scores them, then one page."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mwz_metrics import outputs
from mwz_metrics.inputs import InputError
from mwz_metrics.viewer import page, records

logger = logging.getLogger(__name__)


def _with_profiles(paths: Sequence[str | os.PathLike], add: bool) -> tuple[list[Path], list[dict[str, int]]]:
    """The runs of the page and its runs with profiles: each run given, then (``add``) the profiles' runs
    of a default user's run given (:func:`~mwz_metrics.comparison.inputs.profile_runs`) that were not given;
    and each default user's run with the profiles' runs on the page, as user -> index of its run."""
    from mwz_metrics.comparison.inputs import profile_runs

    shown = [Path(p) for p in paths]
    where = {p.resolve(): i for i, p in enumerate(shown)}
    families = []
    for index, path in enumerate(list(shown)):
        users = {"default": index}
        for user, found in profile_runs(path).items():
            if found.resolve() not in where and add:
                where[found.resolve()] = len(shown)
                shown.append(found)
            if found.resolve() in where:
                users[user] = where[found.resolve()]
        if len(users) > 1:
            logger.info("%s: a run with profiles (%s)", path, ", ".join(list(users)[1:]))
            families.append(users)
    return shown, families


def page_data(
    paths: Sequence[str | os.PathLike],
    *,
    resamples: int = 1000,
    chain: str = "mwzeval",
    delexicalize: str = "auto",
    data_dir: str | None = None,
    profiles: bool = True,
) -> dict[str, Any]:
    """What the page holds: each run (a session file or its ``--predictions`` export) with its figures,
    signature and sessions, and the goals they share; ``robustness``: each run with profiles on the page
    (:func:`.records.robustness_view`), its profiles' runs shown beside it (``profiles``: added where not
    given)."""
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.harness.context import InteractiveContext
    from mwz_plugins.version import __version__

    if not paths:
        raise InputError("mwz view: give at least one session file")
    paths, families = _with_profiles(paths, profiles)
    context = InteractiveContext(data_dir=data_dir)
    goals: dict[str, dict[str, Any]] = {}
    runs = []
    scored = []
    for path in paths:
        loaded = api.load_sessions(path)
        if loaded is None:
            raise InputError(f"{path}: neither a session file of mwz interact nor its --predictions export")
        config, sessions = loaded[0], api.in_goal_order(loaded[1], context)  # as --score-only scores them
        if not sessions:
            raise InputError(f"{path}: no sessions to show")
        read: dict[str, list[str]] = {}
        logger.info("scoring %s (%d sessions)", path, len(sessions))
        result = api.score(
            sessions, config, context=context, resamples=resamples, chain=chain, delexicalize=delexicalize, read=read
        )
        runs.append(records.run_data(path, config, sessions, result, read, goals))
        scored.append((config, sessions, result))
    robustness = [records.robustness_view(users, scored, resamples=resamples) for users in families]
    data = {"generated": f"made by mwz-eval {__version__} (mwz view)", "runs": runs, "goals": goals}
    return data | {"robustness": [r for r in robustness if r is not None]}


def write(
    paths: Sequence[str | os.PathLike], output: str | os.PathLike, *, title: str | None = None, **options: Any
) -> Path:
    """Write the page of ``paths`` to ``output``; returns its path."""
    data = page_data(paths, **options)
    with_profiles = " (with their profiles)" if data["robustness"] else ""
    title = title or "mwz view: " + ", ".join(Path(p).name for p in paths) + with_profiles
    output = Path(output)
    outputs.write_bytes(output, page.render(data, title).encode("utf-8"))
    logger.info("wrote %s (%.1f MB)", output, output.stat().st_size / 1e6)
    return output

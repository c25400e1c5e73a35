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


def page_data(
    paths: Sequence[str | os.PathLike],
    *,
    resamples: int = 1000,
    chain: str = "mwzeval",
    delexicalize: str = "auto",
    data_dir: str | None = None,
) -> dict[str, Any]:
    """What the page holds: each run (a session file or its ``--predictions`` export) with its figures,
    signature and sessions, and the goals they share."""
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.harness.context import InteractiveContext
    from mwz_plugins.version import __version__

    if not paths:
        raise InputError("mwz view: give at least one session file")
    context = InteractiveContext(data_dir=data_dir)
    goals: dict[str, dict[str, Any]] = {}
    runs = []
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
    return {"generated": f"made by mwz-eval {__version__} (mwz view)", "runs": runs, "goals": goals}


def write(
    paths: Sequence[str | os.PathLike], output: str | os.PathLike, *, title: str | None = None, **options: Any
) -> Path:
    """Write the page of ``paths`` to ``output``; returns its path."""
    data = page_data(paths, **options)
    title = title or "mwz view: " + ", ".join(Path(p).name for p in paths)
    output = Path(output)
    outputs.write_bytes(output, page.render(data, title).encode("utf-8"))
    logger.info("wrote %s (%.1f MB)", output, output.stat().st_size / 1e6)
    return output

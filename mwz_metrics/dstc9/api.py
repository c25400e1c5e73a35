"""Score an entry against a split's labels, resolved through the pinned sources."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from mwz_datasets.dstc9_files import load_split
from mwz_metrics.dstc9.scorer import default_scorer
from mwz_metrics.signature import source_checksums
from mwz_plugins.version import __version__


def score_split(
    entry: Sequence[Mapping],
    split: str = "test",
    *,
    data_dir: str | os.PathLike | None = None,
    verify: bool = False,
    by_source: bool = True,
) -> dict:
    """Validate ``entry`` (schema, length, knowledge references) and score it on ``split``."""
    data = load_split(split, data_dir=data_dir, verify=verify)
    scorer = default_scorer()
    result = scorer.score(
        entry, data.labels, knowledge=data.knowledge, schema=data.schema, by_source=by_source, official_schema=True
    )
    files = data.signature()
    details = {
        "metric": "dstc9_track1",
        "version": __version__,
        "split": split,
        "data": files,
        "options": scorer.options(),
    }
    result["signature"] = scorer.signature(source_checksums(files), split, details)
    return result

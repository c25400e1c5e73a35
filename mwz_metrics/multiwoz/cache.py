"""Derived test-set data (references, gold states, goals) cached as JSON on disk.

A cache file is keyed by the package version, the code that derives the data
(every module of this package and of ``mwz_datasets``), and the caller's parts
(source checksums, plugin versions), so a change of any of them rebuilds it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mwz_datasets import sources
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)


@functools.cache
def _code_fingerprint() -> str:
    # Derived data changes whenever the code that derives it does.
    digest = hashlib.sha256()
    for package in (Path(__file__).parent, Path(sources.__file__).parent):
        for path in sorted(package.glob("*.py")):
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_file(kind: str, parts: list[str]) -> Path:
    """Where the value for ``kind`` and ``parts`` is cached."""
    key = "\n".join([__version__, _code_fingerprint(), kind, *parts])
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    return sources.cache_root() / "derived" / f"{kind}-{digest}.json"


def cached(kind: str, parts: list[str], build: Callable[[], Any]) -> Any:
    """The JSON value cached under ``kind`` and ``parts``, built and stored on a miss."""
    path = cache_file(kind, parts)
    if path.is_file():
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, json.JSONDecodeError):
            logger.warning("ignoring unreadable cache file %s", path)
    value = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f)
    os.replace(tmp, path)
    return value

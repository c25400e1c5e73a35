"""Word-level results kept on disk between runs (Porter stems, WordNet synonyms).

Importing nltk (for its Porter stemmer) and parsing WordNet's index files take seconds; the
words of the DSTC9 test set are few and the same in every run. A warm run reads their stems
and synonyms from the cache and needs neither; a new word is computed and added. The file
name carries the version of what computed the values (nltk's, WordNet's checksum).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


class PersistentMemo:
    """A ``str -> JSON value`` memo loaded from and saved to one JSON file in the cache."""

    def __init__(self, name: str) -> None:
        from mwz_datasets.sources import cache_root

        self.path: Path = cache_root() / "derived" / f"dstc9-{name}.json"
        self.values: dict[str, Any] = {}
        self.dirty = False
        if self.path.is_file():
            try:
                self.values = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                logger.warning("ignoring unreadable cache file %s", self.path)

    def get(self, key: str, compute: Callable[[str], Any]) -> Any:
        """The memoized value of ``key``, computed (and kept for the next save) on a miss."""
        if key in self.values:
            return self.values[key]
        value = self.values[key] = compute(key)
        self.dirty = True
        return value

    def save(self) -> None:
        """Write the memo if it gained values (atomically; a failure only costs speed next time)."""
        if not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(self.values, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.path)
            self.dirty = False
        except OSError as error:
            logger.warning("could not write %s: %s", self.path, error)

"""Word-level results kept on disk between runs (Porter stems, WordNet synonyms).

Importing nltk (for its Porter stemmer) and parsing WordNet's index files take seconds; the
words of the DSTC9 test set are few and the same in every run. A warm run reads their stems
and synonyms from the cache and needs neither; a new word is computed and added. The file
name carries the version of what computed the values (nltk's, WordNet's checksum). The file checks
itself like every derived-data file (:mod:`mwz_datasets.derived`): a bad one is set aside.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mwz_datasets import derived as cache


class PersistentMemo:
    """A ``str -> JSON value`` memo loaded from and saved to one JSON file in the cache."""

    def __init__(self, name: str) -> None:
        from mwz_datasets.sources import cache_root

        self.path: Path = cache_root() / "derived" / f"dstc9-{name}.json"
        self.kind = f"dstc9-{name}"
        self.values: dict[str, Any] = {}
        self.added: dict[str, Any] = {}  # computed by this process (a forked scorer sends them back)
        self.dirty = False
        if not cache.disabled():
            found, values = cache.read(self.path, self.kind, None)
            if found and isinstance(values, dict):
                self.values = values
            elif found:
                cache.set_aside(self.path, "not a mapping of words")

    def get(self, key: str, compute: Callable[[str], Any]) -> Any:
        """The memoized value of ``key``, computed (and kept for the next save) on a miss."""
        if key in self.values:
            return self.values[key]
        value = self.values[key] = self.added[key] = compute(key)
        self.dirty = True
        return value

    def merge(self, added: dict[str, Any]) -> None:
        """Take in values another process computed (:attr:`added` of a forked copy)."""
        for key, value in added.items():
            if key not in self.values:
                self.values[key] = value
                self.dirty = True

    def save(self) -> None:
        """Write the memo if it gained values (atomically; a failure only costs speed next time)."""
        if not self.dirty or cache.disabled():
            return
        if cache.write_atomically(self.path, cache.encode(self.kind, self.kind, self.values)):
            self.dirty = False

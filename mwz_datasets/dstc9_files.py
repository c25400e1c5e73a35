"""The DSTC9 Track 1 upstream file layout, and the records the scorer reads.

This module is the one owner of where alexa/alexa-with-dstc9-track1-dataset keeps its
files: the ``datasets`` builder (:mod:`mwz_datasets.dstc9`) and the metrics
(:mod:`mwz_metrics.dstc9`) ask it for paths and records. It imports no ``datasets``, so
scoring stays light.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from mwz_datasets import catalog
from mwz_datasets.jsonfile import read_json
from mwz_datasets.sources import ResolvedFile, resolve
from mwz_plugins.errors import InputError

# builder split -> (logs, labels, knowledge) paths in the upstream repository
INSTANCE_FILES = {
    "train": ("data/train/logs.json", "data/train/labels.json", "data/knowledge.json"),
    "validation": ("data/val/logs.json", "data/val/labels.json", "data/knowledge.json"),
    "test": ("data_eval/test/logs.json", "data_eval/test/labels.json", "data_eval/knowledge.json"),
}
# knowledge split -> path; the San Francisco database
KNOWLEDGE_FILES = {"train": "data/knowledge.json", "test": "data_eval/knowledge.json"}
DB_FILE = "data_eval/db.json"

# scorer split -> (labels, knowledge, output schema) paths in the upstream repository
SPLIT_FILES = {
    "train": ("data/train/labels.json", "data/knowledge.json", "data/output_schema.json"),
    "val": ("data/val/labels.json", "data/knowledge.json", "data/output_schema.json"),
    "test": ("data_eval/test/labels.json", "data_eval/knowledge.json", "data_eval/output_schema.json"),
}


@dataclasses.dataclass(frozen=True)
class SplitData:
    """The labels, knowledge and output schema of a split, with the files they came from."""

    split: str
    labels: list
    knowledge: Mapping
    schema: Mapping
    files: tuple[ResolvedFile, ...]

    def signature(self) -> list[dict]:
        """Provenance of the files, for a result's signature."""
        return [f.signature() for f in self.files]


_CACHE: dict[tuple, SplitData] = {}


def load_split(split: str, *, data_dir: str | os.PathLike | None = None, verify: bool = False) -> SplitData:
    """Labels, knowledge and schema of ``split`` (train, val, test); parsed once per file content."""
    if split not in SPLIT_FILES:
        raise InputError(f"unknown DSTC9 split {split!r}; expected one of {sorted(SPLIT_FILES)}")
    paths = SPLIT_FILES[split]
    resolved = resolve([catalog.dstc9(p) for p in paths], data_dir=data_dir, verify_local=verify)
    files = tuple(resolved[p] for p in paths)
    key = (split,) + tuple((str(f.path), f.sha256) for f in files)
    if key not in _CACHE:
        loaded = []
        for f in files:
            loaded.append(read_json(f.path, "DSTC9 data"))
        _CACHE.clear()  # one split at a time is plenty
        _CACHE[key] = SplitData(split, loaded[0], loaded[1], loaded[2], files)
    cached = _CACHE[key]
    return dataclasses.replace(cached, files=files)

"""The turns of MultiWOZ 2.1 dialogues, one split at a time: text, dialogue acts, spans.

What session coherence, sentence fluency and interactive evaluation read of MultiWOZ 2.1 (the
belief states, most of ``data.json``, are left out). The raw dialogues come from
:mod:`mwz_datasets.multiwoz_raw` (the owner of the upstream file layout), resolved through
:mod:`mwz_datasets.sources` so that ``MWZ_MIRROR`` and the download cache apply, and are derived
once per zip into the cache (:mod:`mwz_datasets.derived`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mwz_plugins.errors import InputError

SPLITS = ("train", "validation", "test")


@dataclass(frozen=True)
class Corpus:
    """Dialogues of one split: id (lowercase, no ``.json``) -> turns (:data:`TURN_FIELDS` of the raw ones); plus provenance."""

    split: str
    dialogues: Mapping[str, Sequence[Mapping[str, Any]]]
    source: dict[str, object]


def _resolve(split: str, data_dir: str | None) -> dict[str, Any]:
    from mwz_datasets import multiwoz_raw, sources

    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; MultiWOZ 2.1 here has {sorted(SPLITS)}")
    return sources.resolve(multiwoz_raw.sources("2.1", [split]), data_dir=data_dir)


def corpus_source(split: str = "test", data_dir: str | None = None) -> dict[str, object]:
    """Provenance (file, checksum...) of the MultiWOZ 2.1 copy holding ``split``, without reading it."""
    (resolved,) = _resolve(split, data_dir).values()
    return resolved.signature()


# The fields of a raw 2.1 turn that sessions, negatives, domains and delexicalization read. The
# per-turn belief state ("metadata") is most of data.json, and nothing here reads it.
TURN_FIELDS = ("text", "dialog_act", "span_info")


@functools.lru_cache(maxsize=4)
def load_corpus(split: str = "test", data_dir: str | None = None) -> Corpus:
    """The turns (:data:`TURN_FIELDS`) of every MultiWOZ 2.1 dialogue of ``split``, keyed as mwzeval keys them.

    Derived once per zip (its checksum keys a file in the cache): the zip's data.json holds every
    split with its belief states (400 MB upstream), far more than one split's turns to parse."""
    from mwz_datasets import multiwoz_raw
    from mwz_datasets.derived import cached

    files = _resolve(split, data_dir)
    (resolved,) = files.values()

    def build() -> dict[str, list[dict[str, Any]]]:
        paths = {name: f.path for name, f in files.items()}
        return {
            key: [{name: turn[name] for name in TURN_FIELDS if name in turn} for turn in raw["log"]]
            for key, raw in multiwoz_raw.iter_raw_dialogues("2.1", split, paths)
        }

    # keyed by the zip and this module (which picks the fields); the cache adds the package and mwz_datasets' code
    this_module = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    dialogues = cached(f"corpus21-{split}", [resolved.sha256, this_module], build)
    return Corpus(split, dialogues, resolved.signature())

"""Reference files in mwzeval's format: the single owner of their layout.

A reference file maps a dialogue id onto the list of its delexicalized system
turns (``{"mul1493": ["...", ...]}``), as mwzeval ships one per style under
``mwzeval/data/references/<style>.json``. Metrics ask this module for records
(dialogue key -> references), never for paths. The references are returned as
written: mwzeval compares them to normalized hypotheses without normalizing them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mwz_datasets import catalog, sources
from mwz_datasets.multiwoz_raw import evaluation_key
from mwz_plugins.errors import InputError

Records = dict[str, list[str]]


class ReferenceFileError(InputError):
    """A reference file is not in mwzeval's format."""


def parse(data: Any, where: str, keys: Iterable[str] | None = None) -> Records:
    """Records from a decoded reference file, keyed like predictions, restricted to ``keys``."""
    if not isinstance(data, Mapping):
        raise ReferenceFileError(f"{where}: expected a JSON object mapping dialogue ids to lists of references")
    records: Records = {}
    for dialogue, turns in data.items():
        if not isinstance(turns, list) or not all(isinstance(t, str) for t in turns):
            raise ReferenceFileError(f"{where}: dialogue {dialogue}: expected a list of reference strings")
        records[evaluation_key(str(dialogue))] = list(turns)
    if keys is not None:
        wanted = set(keys)
        records = {k: v for k, v in records.items() if k in wanted}
    return records


def read_user_file(path: str | os.PathLike, keys: Iterable[str] | None = None) -> tuple[Records, str]:
    """A user's reference file: its records and its sha256 (for the signature)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ReferenceFileError(f"reference file {path}: {error}") from None
    return parse(data, f"reference file {path}", keys), sources.sha256_file(path)


def load_pinned(
    name: str,
    *,
    keys: Iterable[str] | None = None,
    data_dir: str | os.PathLike | None = None,
    verification_mode: str | None = None,
) -> tuple[Records, sources.ResolvedFile]:
    """Records of the pinned reference file ``owner/repo/path`` and how it was found.

    Resolved like every pinned source (data_dir, ``MWZ_MIRROR``, cache, verified
    download). Local copies (e.g. holding only the test dialogues) are accepted and
    reported by checksum; ``verification_mode="all_checks"`` verifies them against
    the pinned git blob id, so such a copy is refused.
    """
    source = catalog.by_name(name)
    verify_local = verification_mode == "all_checks"
    resolved = sources.resolve([source], data_dir=data_dir, verify_local=verify_local)[source.path]
    try:
        data = json.loads(resolved.path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ReferenceFileError(f"reference file {resolved.path}: {error}") from None
    return parse(data, f"reference file {resolved.path}", keys), resolved

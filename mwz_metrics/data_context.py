"""The MultiWOZ data of one process: the pinned files, the venue database and what is derived from them.

Static evaluation (:class:`mwz_metrics.multiwoz.testset.TestSet`), interactive evaluation, its
environments and the viewer (:class:`mwz_metrics.interactive.harness.context.InteractiveContext`)
read MultiWOZ and the venue database through the one :class:`DataContext` that :func:`shared`
gives for their data folder and normalizer chain. Each file is found and checksummed once per
process (MultiWOZ 2.1's test and validation splits are one zip), the database is read once, and
derived material (:mod:`mwz_datasets.derived`) is read or built once, however many test sets and
interactive contexts a command makes (an ``mwz interact`` run scores its sessions with a test set;
``mwz compare`` and ``mwz view`` score several runs).

What each consumer names in its signature stays its own (the files *it* read), so that sharing
changes no output. Derived material is keyed by the files' checksums and :func:`code_fingerprint`
of the code that derives it, the one fingerprint of the project's derived data.
"""

from __future__ import annotations

import collections
import functools
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from mwz_datasets import derived as derived_lib
from mwz_datasets import sources as source_lib

# What a context reads from disk, counted (:attr:`DataContext.loads`): a test that a command reads
# each thing once, and a log line with --verbose.
DATABASE = "venue database"


# mwz_datasets' fingerprint of code (folders' modules, files' bytes), kept per process: the code does not
# change under a running command, and each derived lookup asks for it.
code_fingerprint = functools.cache(derived_lib.code_fingerprint)


def _stamp(path: Path) -> tuple[int, int] | None:
    """What tells a file changed since it was checksummed (None: gone)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


class DataContext:
    """MultiWOZ files, the venue database and derived material of one data folder and normalizer chain,
    each loaded on first use and kept (thread-safe). Make it with :func:`shared`."""

    def __init__(self, *, data_dir: str | os.PathLike | None = None, chain: str = "mwzeval") -> None:
        self.data_dir = data_dir
        self.chain_name = chain
        self.loads: collections.Counter[str] = collections.Counter()  # repository path (or DATABASE) -> reads
        self._files: dict[str, tuple[source_lib.ResolvedFile, tuple[int, int] | None]] = {}
        self._derived: dict[tuple[str, tuple[str, ...]], tuple[Any, tuple[int, int] | None]] = {}
        self._database: Any = None
        self._lock = threading.RLock()

    def __deepcopy__(self, memo: dict[int, Any]) -> DataContext:
        return self  # loaded once and shared, never copied

    def resolve(self, needed: Iterable[source_lib.Source]) -> dict[str, source_lib.ResolvedFile]:
        """``needed`` found on disk (:func:`mwz_datasets.sources.resolve`), keyed by repository path in the
        order given; a file already found is not looked for nor checksummed again unless it changed."""
        needed = list(needed)
        with self._lock:
            missing = [s for s in needed if not self._known(s.path)]
            if missing:
                found = source_lib.resolve(missing, data_dir=self.data_dir)
                for path, resolved in found.items():
                    self._files[path] = (resolved, _stamp(resolved.path))
                    self.loads[path] += 1
            return {s.path: self._files[s.path][0] for s in needed}

    def _known(self, path: str) -> bool:
        if path not in self._files:
            return False
        resolved, stamp = self._files[path]
        return stamp is not None and _stamp(resolved.path) == stamp

    def multiwoz(self, version: str, split: str) -> dict[str, source_lib.ResolvedFile]:
        """The pinned files of MultiWOZ ``version``'s ``split`` (for :mod:`mwz_datasets.multiwoz_raw`)."""
        from mwz_datasets import multiwoz_raw

        return self.resolve(multiwoz_raw.sources(version, [split]))

    @property
    def database(self) -> Any:
        """The venue database (:class:`mwz_datasets.database.VenueDatabase`), values through the chain."""
        with self._lock:
            if self._database is None:
                from mwz_datasets.database import VenueDatabase
                from mwz_plugins import get_registry

                chain = get_registry().chain(self.chain_name)
                self._database = VenueDatabase.from_pinned(data_dir=self.data_dir, normalize=chain)
                self.loads[DATABASE] += 1
            return self._database

    def derived(self, kind: str, parts: Sequence[str], build: Callable[[], Any]) -> Any:
        """:func:`mwz_datasets.derived.cached`'s value for ``kind`` and ``parts``, read or built once per
        process (the caller treats it as read-only: every consumer gets the same object)."""
        key = (kind, tuple(parts))
        stored = derived_lib.cache_file(kind, list(parts))
        with self._lock:
            # a cache file changed since (edited, removed) is read again: it checks itself, and says so
            if key not in self._derived or self._derived[key][1] != _stamp(stored):
                value = derived_lib.cached(kind, list(parts), build)
                self._derived[key] = (value, _stamp(stored))
                self.loads[f"derived {kind}"] += 1
            return self._derived[key][0]


_contexts: dict[tuple[Any, ...], DataContext] = {}
_contexts_lock = threading.Lock()


def _key(data_dir: str | os.PathLike | None, chain: str) -> tuple[Any, ...]:
    """What decides the files a context finds and the cache it reads: the data folder, the chain (and its
    registered version), the mirror, the cache folder, offline and no-cache modes."""
    from mwz_plugins import get_registry

    registry = get_registry()
    version = registry.chains[chain].version if chain in registry.chains else None
    folder = None if data_dir is None else str(Path(data_dir).resolve())
    where = (os.environ.get(source_lib.MIRROR_ENV), str(source_lib.cache_root()))
    return (folder, chain, version, id(registry), *where, source_lib.offline(), derived_lib.disabled())


def shared(data_dir: str | os.PathLike | None = None, chain: str = "mwzeval") -> DataContext:
    """The process's data context for ``data_dir`` and ``chain`` (under the current mirror, cache folder
    and modes: another of these gets another context)."""
    key = _key(data_dir, chain)
    with _contexts_lock:
        if key not in _contexts:
            _contexts[key] = DataContext(data_dir=data_dir, chain=chain)
        return _contexts[key]


def forget() -> None:
    """Drop every shared context (the next use loads again): for tests, and long processes whose files change."""
    with _contexts_lock:
        _contexts.clear()

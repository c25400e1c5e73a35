"""The MultiWOZ venue database, queried exactly as mwzeval queries it.

Semantics (mwzeval ``MultiWOZVenueDatabase.query``, Tomiinek/MultiWOZ_Evaluation @7f19ee0):

- tables: ``db/{restaurant,attraction,hotel,train}_db.json``; some columns are
  dropped (:data:`IGNORED_COLUMNS`), the others renamed (lowercase, no spaces,
  ``arriveby`` -> ``arrive``, ``leaveat`` -> ``leave``; ``id`` kept as is);
- a constraint counts only if its slot is a column of the domain; raw values that
  are spellings of "don't care" are skipped, the others are normalized with
  ``normalize(domain, slot, value)`` (default: the ``mwzeval`` plugin chain);
- a database cell ``?`` matches anything; ``arrive`` matches a row arriving at or
  before the query time, ``leave`` one leaving at or after it (minutes from
  ``HH:MM``, 0 for anything else); the fuzzy columns (:data:`FUZZY_COLUMNS`)
  match when fuzzywuzzy's ``partial_ratio(cell, value) >= 90``; other columns
  need equality;
- the result: the ``id`` (``trainid`` for trains) of every matching row, in
  database order; ``[]`` for domains without a table.

The pinned upstream ``attraction_db.json`` spells one type ``mutliple sports``;
mwzeval's bundled copy has ``multiple sports`` (the only difference between the
two copies), and queries for that type differ. :data:`MWZEVAL_ERRATA` applies
that fix (``errata=True``, the default) so that results equal mwzeval's.

Speed: every column keeps an index ``value -> bitmask of rows``; a constraint
becomes one bitmask (memoized per column and raw value), a query the AND of its
masks (memoized per frozen constraints). Fuzzy scores are memoized per
``(cell value, query value)``.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mwz_datasets.fuzzy import partial_ratio_reaches
from mwz_datasets.jsonfile import read_json
from mwz_plugins.errors import InputError

logger = logging.getLogger(__name__)

DOMAINS = ("restaurant", "attraction", "hotel", "train")

IGNORED_COLUMNS = {
    "attraction": frozenset({"location", "openhours"}),
    "hotel": frozenset({"location", "price", "takesbookings"}),
    "restaurant": frozenset({"location", "introduction", "signature"}),
}

FUZZY_COLUMNS = {
    "hotel": frozenset({"name"}),
    "attraction": frozenset({"name"}),
    "restaurant": frozenset({"name", "food"}),
    "train": frozenset({"departure", "destination"}),
}

# Raw constraint values mwzeval's query skips (checked before normalization).
DONTCARE_VALUES = frozenset({"dontcare", "not mentioned", "don't care", "dont care", "do n't care", "do not care"})

# (domain, column) -> {pinned cell value: value in mwzeval's bundled copy}
MWZEVAL_ERRATA = {("attraction", "type"): {"mutliple sports": "multiple sports"}}

DEFAULT_FUZZY_THRESHOLD = 90
WILDCARD = "?"

_TIME_RE = re.compile(r"[0-9][0-9]:[0-9][0-9]")
# bin(mask) digits -> bytes usable as itertools.compress selectors
_BITS = bytes.maketrans(b"01", b"\x00\x01")

Normalizer = Callable[[str | None, str, str], str]


# MultiWOZ's police station and hospital, which mwzeval's database leaves out (its tables are the
# four venue domains): what a system says of them, by column.
SERVICE_VENUES = {
    "police": {
        "name": "Parkside Police Station",
        "address": "Parkside, Cambridge",
        "postcode": "cb11jg",
        "phone": "01223358966",
    },
    "hospital": {
        "name": "Addenbrookes Hospital",
        "address": "Hills Rd, Cambridge",
        "postcode": "cb20qq",
        "phone": "01223245151",
    },
}


def column_name(name: str) -> str:
    """mwzeval's database column name for a raw column or slot name."""
    if name == "id":
        return name
    name = name.lower().replace(" ", "")
    return {"arriveby": "arrive", "leaveat": "leave"}.get(name, name)


def time_to_minutes(value: str) -> int:
    """mwzeval's ``time_str_to_minutes``: minutes of a leading ``HH:MM``, else 0."""
    if not isinstance(value, str) or not _TIME_RE.match(value):
        return 0
    hours, minutes = value.split(":")[:2]
    try:
        return int(hours) * 60 + int(minutes)
    except ValueError:
        # mwzeval raises here (e.g. "12:30pm"); use the leading HH:MM instead.
        logger.warning("time %r is not HH:MM; using its leading %r", value, value[:5])
        return int(value[:2]) * 60 + int(value[3:5])


def _default_normalizer() -> tuple[Normalizer, dict[str, Any]]:
    from mwz_plugins import get_registry

    registry = get_registry()
    chain = registry.chains["mwzeval"]
    return registry.chain("mwzeval"), {"chain": chain.name, "version": chain.version}


class _Table:
    """One domain's rows as column indexes of row bitmasks."""

    def __init__(self, domain: str, rows: Sequence[Mapping[str, Any]], errata: Mapping | None):
        ignored = IGNORED_COLUMNS.get(domain, frozenset())
        self.domain = domain
        self.size = len(rows)
        self.all_rows = (1 << self.size) - 1
        self.patched = 0
        columns: dict[str, list[Any]] = {}
        names: dict[str, str | None] = {}  # raw column name -> column (None: ignored)
        for index, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise InputError(f"{domain} database row {index} is not an object: {row!r}")
            for raw_name, cell in row.items():
                if raw_name not in names:
                    names[raw_name] = None if raw_name in ignored else column_name(raw_name)
                name = names[raw_name]
                if name is None:
                    continue
                fix = (errata or {}).get((domain, name))
                if fix and isinstance(cell, str) and cell in fix:
                    cell = fix[cell]
                    self.patched += 1
                if name not in columns:
                    columns[name] = [_MISSING] * self.size
                columns[name][index] = cell
        id_column = "trainid" if domain == "train" else "id"
        if id_column not in columns:
            raise InputError(f"{domain} database has no {id_column!r} column")
        self.ids = tuple(columns[id_column])
        self.rows = tuple(rows)  # raw rows, for reading a venue's attributes (never mutated)
        self.row_of = {row_id: position for position, row_id in enumerate(self.ids)}
        self.columns = columns
        self.fuzzy = FUZZY_COLUMNS.get(domain, frozenset()) & columns.keys()
        self.index: dict[str, dict[Any, int]] = {}
        self.unhashable: dict[str, list[tuple[int, Any]]] = {}
        self.wildcard: dict[str, int] = {}
        self.minutes: dict[str, tuple[list[int], list[int], list[int]]] = {}
        for name, cells in columns.items():
            positions: dict[Any, list[int]] = {}
            others: list[tuple[int, Any]] = []
            for position, cell in enumerate(cells):
                if cell is _MISSING:  # mwzeval raises KeyError; here the row never matches
                    continue
                try:
                    positions.setdefault(cell, []).append(position)
                except TypeError:
                    others.append((position, cell))
            masks = {cell: self._mask(found) for cell, found in positions.items()}
            wildcard = masks.get(WILDCARD, 0)
            self.index[name], self.unhashable[name], self.wildcard[name] = masks, others, wildcard
            if name in ("arrive", "leave"):
                self.minutes[name] = self._time_index(cells)

    def _mask(self, rows: list[int]) -> int:
        if len(rows) < 32:
            mask = 0
            for row in rows:
                mask |= 1 << row
            return mask
        bits = bytearray(b"0" * self.size)
        for row in rows:
            bits[self.size - 1 - row] = 49  # "1"; row i is bit i
        return int(bits, 2)

    @staticmethod
    def _time_index(cells: Sequence[Any]) -> tuple[list[int], list[int], list[int]]:
        """Sorted cell minutes with OR-ed row masks of every prefix and suffix."""
        timed = sorted(
            (time_to_minutes(cell), row) for row, cell in enumerate(cells) if cell is not _MISSING and cell != WILDCARD
        )
        keys = [minutes for minutes, _ in timed]
        prefix, mask = [0], 0
        for _, row in timed:
            mask |= 1 << row
            prefix.append(mask)
        suffix, mask = [0], 0
        for _, row in reversed(timed):
            mask |= 1 << row
            suffix.append(mask)
        return keys, prefix, suffix[::-1]

    def rows_at_or_before(self, name: str, minutes: int) -> int:
        keys, prefix, _ = self.minutes[name]
        return prefix[bisect.bisect_right(keys, minutes)]

    def rows_at_or_after(self, name: str, minutes: int) -> int:
        keys, _, suffix = self.minutes[name]
        return suffix[bisect.bisect_left(keys, minutes)]

    def rows_equal(self, name: str, value: Any) -> int:
        try:
            mask = self.index[name].get(value, 0)
        except TypeError:
            mask = 0
        for row, cell in self.unhashable[name]:
            if cell == value:
                mask |= 1 << row
        return mask

    def ids_of(self, mask: int) -> tuple[str, ...]:
        # Row i is bit i: the reversed binary digits select the ids in row order.
        return tuple(itertools.compress(self.ids, bin(mask)[:1:-1].encode().translate(_BITS)))


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


class VenueDatabase:
    """The restaurant, attraction, hotel and train tables, queried like mwzeval.

    ``tables`` maps a domain to its rows as loaded from ``<domain>_db.json``.
    ``normalize(domain, slot, value)`` normalizes constraint values (default: the
    ``mwzeval`` plugin chain); ``sources`` describes where the tables came from
    (for :attr:`signature`).
    """

    def __init__(
        self,
        tables: Mapping[str, Sequence[Mapping[str, Any]]],
        *,
        normalize: Normalizer | None = None,
        fuzzy_threshold: int = DEFAULT_FUZZY_THRESHOLD,
        errata: bool = True,
        sources: Mapping[str, Any] | None = None,
    ):
        if normalize is None:
            normalize, normalizer_info = _default_normalizer()
        else:
            normalizer_info = {"function": getattr(normalize, "__qualname__", repr(normalize))}
        self.normalize = normalize
        self.fuzzy_threshold = fuzzy_threshold
        self.tables = {
            domain: _Table(domain, rows, MWZEVAL_ERRATA if errata else None) for domain, rows in tables.items()
        }
        self._constraint_masks: dict[tuple[str, str, Any], int] = {}
        self._queries: dict[tuple[str, frozenset], tuple[str, ...]] = {}
        from mwz_plugins.version import __version__

        self.signature: dict[str, Any] = {
            "package_version": __version__,
            "semantics": "mwzeval@7f19ee0 MultiWOZVenueDatabase.query",
            "sources": dict(sources or {}),
            "rows": {domain: table.size for domain, table in self.tables.items()},
            "normalizer": normalizer_info,
            "fuzzy": {"function": "fuzzywuzzy-0.18 partial_ratio", "threshold": fuzzy_threshold},
            "errata": {"applied": errata, "cells_patched": sum(t.patched for t in self.tables.values())},
        }

    # -- construction -----------------------------------------------------------

    @classmethod
    def from_paths(cls, paths: Mapping[str, str | os.PathLike], **options: Any) -> VenueDatabase:
        """Tables from explicit ``{domain: path to <domain>_db.json}``."""
        tables, sources = {}, {}
        for domain, path in paths.items():
            from mwz_datasets.sources import sha256_file

            path = Path(path)
            tables[domain] = read_json(path, "database")
            sources[domain] = {"file": str(path), "sha256": sha256_file(path)}
        return cls(tables, sources=sources, **options)

    @classmethod
    def from_pinned(
        cls,
        *,
        data_dir: str | os.PathLike | None = None,
        verify_local: bool = False,
        domains: Sequence[str] = DOMAINS,
        **options: Any,
    ) -> VenueDatabase:
        """Tables of the pinned budzianowski/multiwoz ``db/`` (data_dir, mirror, cache or download)."""
        from mwz_datasets import catalog, sources

        pinned = [catalog.multiwoz(f"db/{domain}_db.json") for domain in domains]
        resolved = sources.resolve(pinned, data_dir=data_dir, verify_local=verify_local)
        tables, signatures = {}, {}
        for domain in domains:
            found = resolved[f"db/{domain}_db.json"]
            tables[domain] = read_json(found.path, "database")
            signatures[domain] = found.signature()
        return cls(tables, sources=signatures, **options)

    # -- queries ----------------------------------------------------------------

    def columns(self, domain: str) -> frozenset[str]:
        """The column names of ``domain``'s table (empty for a domain without a table)."""
        table = self.tables.get(domain)
        return frozenset(table.columns) if table else frozenset()

    def query(self, domain: str, constraints: Mapping[str, Any]) -> list[str]:
        """Ids of the rows of ``domain`` matching ``constraints`` ({slot: raw value})."""
        table = self.tables.get(domain)
        if table is None:
            return []
        try:
            key = (domain, frozenset(constraints.items()))
            cached = self._queries.get(key)
        except TypeError:  # unhashable values: no memo
            key, cached = None, None
        if cached is None:
            mask = table.all_rows
            for slot, value in constraints.items():
                if slot in table.columns and mask:
                    mask &= self._constraint_mask(table, slot, value)
            cached = table.ids_of(mask)
            if key is not None:
                self._queries[key] = cached
        return list(cached)

    def rows(self, domain: str, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Copies of the raw rows of ``domain`` with the given ids (as :meth:`query` returns them), in that order."""
        table = self.tables.get(domain)
        if table is None:
            return []
        return [dict(table.rows[table.row_of[row_id]]) for row_id in ids if row_id in table.row_of]

    def all_rows(self, domain: str) -> list[dict[str, Any]]:
        """Copies of every raw row of ``domain``, in database order."""
        table = self.tables.get(domain)
        return [dict(row) for row in table.rows] if table is not None else []

    def _constraint_mask(self, table: _Table, slot: str, raw: Any) -> int:
        try:
            key = (table.domain, slot, raw)
            mask = self._constraint_masks.get(key)
        except TypeError:
            key, mask = None, None
        if mask is None:
            mask = self._compute_mask(table, slot, raw)
            if key is not None:
                self._constraint_masks[key] = mask
        return mask

    def _compute_mask(self, table: _Table, slot: str, raw: Any) -> int:
        if isinstance(raw, str) and raw in DONTCARE_VALUES:
            return table.all_rows
        value = self.normalize(table.domain, slot, raw)
        wildcard = table.wildcard[slot]
        if slot in table.minutes:
            wanted = time_to_minutes(value)
            if slot == "arrive":
                return table.rows_at_or_before(slot, wanted) | wildcard
            return table.rows_at_or_after(slot, wanted) | wildcard
        if slot in table.fuzzy:
            mask = 0
            if isinstance(value, str):
                for cell, rows in table.index[slot].items():
                    if cell != WILDCARD and isinstance(cell, str) and _fuzzy_match(cell, value, self.fuzzy_threshold):
                        mask |= rows
            return mask | wildcard
        return table.rows_equal(slot, value) | wildcard


@functools.lru_cache(maxsize=1 << 18)
def _fuzzy_match(cell: str, value: str, threshold: float) -> bool:
    """Whether a fuzzy column's ``cell`` matches ``value``; memoized across databases (pure)."""
    return partial_ratio_reaches(cell, value, threshold)

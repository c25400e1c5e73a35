"""Derived data (references, gold states, goals, templates...) cached as JSON files that check themselves.

A cache file is keyed by the package version, the code of ``mwz_datasets`` and the caller's parts
(source checksums, plugin versions, and the fingerprint of the caller's own code,
:func:`code_fingerprint`). Its
first line is a header naming what it holds (format, kind, key, package) and the sha256 of the rest;
the rest is the value. A file that fails any check (unreadable, cut short, from another version,
edited by hand, a stale copy) is set aside with a warning naming it and rebuilt: it can cost time,
never a wrong number. Files are written atomically. A cache folder that cannot be used (``MWZ_CACHE``
pointing at a file, a read-only disk) is one warning, and the run goes on uncached;
``MWZ_NO_CACHE=1`` (``mwz --no-cache``) never reads nor writes derived data.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mwz_datasets import sources
from mwz_plugins.errors import InputError
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)

FORMAT = "mwz-derived"
SCHEMA = 2
NO_CACHE_ENV = "MWZ_NO_CACHE"
_warned: set[str] = set()
_lock = threading.Lock()


class CorruptCacheFile(InputError):
    """A cache file that is not what its name promises."""


@functools.cache
def code_fingerprint(*paths: Path) -> str:
    """sha256 of the code at ``paths``, in the order given: a folder's modules (``*.py``, in name order), a
    file's bytes. A caller puts its own code's in its parts, so that derived data changes whenever the code
    that derives it does."""
    digest = hashlib.sha256()
    for path in paths:
        for module in sorted(Path(path).glob("*.py")) if Path(path).is_dir() else [Path(path)]:
            digest.update(module.read_bytes())
    return digest.hexdigest()


def _code_fingerprint() -> str:
    return code_fingerprint(Path(__file__).parent)  # mwz_datasets, which reads every upstream file


def disabled() -> bool:
    """Whether caching is switched off (``MWZ_NO_CACHE``)."""
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def _key(kind: str, parts: list[str]) -> str:
    return hashlib.sha256("\n".join([__version__, _code_fingerprint(), kind, *parts]).encode()).hexdigest()


def cache_file(kind: str, parts: list[str]) -> Path:
    """Where the value for ``kind`` and ``parts`` is cached."""
    return _path(kind, _key(kind, parts))


def _path(kind: str, key: str) -> Path:
    return derived_folder() / f"{kind}-{key[:20]}.json"


def derived_folder() -> Path:
    """The folder of derived data in the cache."""
    return sources.cache_root() / "derived"


def _warn_once(key: str, message: str, *args: Any) -> None:
    with _lock:
        if key in _warned:
            return
        _warned.add(key)
    logger.warning(message, *args)


def encode(kind: str, key: str, value: Any, inputs: list[str] | None = None) -> bytes:
    """A cache file's bytes: the header line (what it was built from and by, the sha256 of the rest),
    then the value."""
    body = json.dumps(value, ensure_ascii=False).encode("utf-8")
    header = {
        "format": FORMAT,
        "schema": SCHEMA,
        "kind": kind,
        "key": key,
        "inputs": list(inputs or []),
        "code": _code_fingerprint()[:16],
        "package": __version__,
        "sha256": hashlib.sha256(body).hexdigest(),
        "bytes": len(body),
    }
    return json.dumps(header).encode("utf-8") + b"\n" + body


def decode(data: bytes, kind: str, key: str | None) -> Any:
    """The value of a cache file's bytes; :class:`CorruptCacheFile` says what is wrong."""
    head, sep, body = data.partition(b"\n")
    if not sep:
        raise CorruptCacheFile("no header line (an older format, or cut short)")
    try:
        header = json.loads(head)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CorruptCacheFile("its header is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CorruptCacheFile("not a derived-data file of mwz-eval")
    for field, wanted in (("schema", SCHEMA), ("kind", kind), ("package", __version__)):
        if header.get(field) != wanted:
            raise CorruptCacheFile(f"{field} {header.get(field)!r}, expected {wanted!r}")
    if key is not None and header.get("key") != key:
        raise CorruptCacheFile("built from other inputs")
    if header.get("bytes") != len(body) or hashlib.sha256(body).hexdigest() != header.get("sha256"):
        raise CorruptCacheFile("its content does not match its checksum (cut short or edited)")
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CorruptCacheFile("its content is not JSON") from None


def set_aside(path: Path, why: str) -> None:
    """Move a bad cache file out of the way (``NAME.bad-TIME``), with a warning naming it."""
    sources.set_aside(path, why, what="cache file", then="rebuilt")


def write_atomically(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a temporary file; False (and one warning) if the folder is unusable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return True
    except OSError as error:
        _warn_once(
            f"unusable:{path.parent}",
            "the cache folder %s cannot be used (%s): running uncached (MWZ_CACHE chooses another; MWZ_NO_CACHE=1 "
            "never caches)",
            path.parent,
            error.strerror or error,
        )
        return False


def read(path: Path, kind: str, key: str | None) -> tuple[bool, Any]:
    """``(True, value)`` from a good cache file, ``(False, None)`` when absent or set aside."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False, None
    except OSError as error:
        if isinstance(error, (NotADirectoryError, PermissionError)):
            return False, None  # the folder itself is unusable: said when writing
        set_aside(path, error.strerror or str(error))
        return False, None
    try:
        return True, decode(data, kind, key)
    except CorruptCacheFile as error:
        set_aside(path, str(error))
        return False, None


def cached(kind: str, parts: list[str], build: Callable[[], Any]) -> Any:
    """The JSON value cached under ``kind`` and ``parts``, built and stored on a miss."""
    if disabled():
        return build()
    key = _key(kind, parts)
    path = _path(kind, key)
    found, value = read(path, kind, key)
    if found:
        return value
    value = build()
    write_atomically(path, encode(kind, key, value, parts))
    return value

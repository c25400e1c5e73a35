"""Locating, downloading and verifying upstream files.

Resolution order for each pinned :class:`Source`:

1. ``data_dir`` (a copy of one upstream repository), when given;
2. the mirror named by ``MWZ_MIRROR`` (copies laid out as ``<owner>/<repo>/<path>``);
3. the download cache (files verified when they were downloaded);
4. a download from the URL pinned to the commit, always verified.

Local copies (1, 2) are checksummed and the checksums reported; they are verified
against the pinned checksums only when asked (``verify=True``, which builders set
under ``verification_mode="all_checks"``), since a mirror may hold a repacked copy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from mwz_plugins.errors import MwzError

logger = logging.getLogger(__name__)

MIRROR_ENV = "MWZ_MIRROR"
CACHE_ENV = "MWZ_CACHE"
OFFLINE_ENVS = ("MWZ_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
DOWNLOAD_TIMEOUT_S = 10.0


class SourceError(MwzError, RuntimeError):
    """A source file could not be obtained or is not what was pinned."""


class ChecksumError(SourceError):
    """A file's checksum differs from the pinned one."""


class MissingSourceError(SourceError):
    """A pinned file is neither local nor downloadable."""


@dataclasses.dataclass(frozen=True)
class Source:
    """An upstream file pinned to a commit, with its checksum (sha256 or git blob id) when known."""

    repo: str  # "owner/name"
    commit: str
    path: str  # inside the repository
    size: int | None = None
    sha256: str | None = None
    git_blob: str | None = None

    @property
    def url(self) -> str:
        """The raw download URL at the pinned commit."""
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.path}"

    @property
    def name(self) -> str:
        """``owner/repo/path``."""
        return f"{self.repo}/{self.path}"


@dataclasses.dataclass(frozen=True)
class ResolvedFile:
    """A pinned source found on disk: where, how it was found, its checksum and verification."""

    source: Source
    path: Path
    origin: str  # "data_dir", "mirror", "cache" or "download"
    sha256: str
    verified: bool

    def signature(self) -> dict[str, object]:
        """Provenance for a result's signature: file, commit, origin, sha256, verification."""
        return {
            "file": self.source.name,
            "commit": self.source.commit,
            "origin": self.origin,
            "sha256": self.sha256,
            "verified": self.verified,
            "pinned": self.pinned_match(),
        }

    def pinned_match(self) -> bool | None:
        """Whether the file equals the pinned upstream file (None: nothing to compare)."""
        if self.source.sha256:
            return self.sha256 == self.source.sha256
        if self.source.git_blob:
            return git_blob_id(self.path) == self.source.git_blob
        return None


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def git_blob_id(path: Path) -> str:
    """The git blob id of a file: sha1 of ``blob <size>``, a NUL byte, and the content."""
    digest = hashlib.sha1()
    digest.update(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def mirror_root() -> Path | None:
    """The ``MWZ_MIRROR`` folder, if set."""
    value = os.environ.get(MIRROR_ENV)
    return Path(value).expanduser() if value else None


def cache_root() -> Path:
    """The project's cache folder (``MWZ_CACHE``, default ``~/.cache/mwz_eval``)."""
    value = os.environ.get(CACHE_ENV)
    if value:
        return Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mwz_eval"


def offline() -> bool:
    """Whether an offline flag (HF_HUB_OFFLINE, HF_DATASETS_OFFLINE...) is set."""
    return any(os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"} for name in OFFLINE_ENVS)


def verify(source: Source, path: Path) -> str:
    """Check ``path`` against the pinned checksums; return its sha256."""
    actual = sha256_file(path)
    if source.size is not None and path.stat().st_size != source.size:
        raise ChecksumError(
            f"size mismatch for {source.name} at {path}: expected {source.size} bytes, got {path.stat().st_size}"
        )
    if source.sha256 and actual != source.sha256:
        raise ChecksumError(f"sha256 mismatch for {source.name} at {path}: expected {source.sha256}, got {actual}")
    if not source.sha256 and source.git_blob:
        blob = git_blob_id(path)
        if blob != source.git_blob:
            raise ChecksumError(
                f"git blob mismatch for {source.name} at {path}: expected {source.git_blob}, got {blob}"
            )
    return actual


def _local_candidates(source: Source, data_dir: str | os.PathLike | None) -> list[tuple[str, Path]]:
    candidates = []
    if data_dir is not None:
        candidates.append(("data_dir", locate(Path(data_dir), source.path)))
    mirror = mirror_root()
    if mirror is not None:
        candidates.append(("mirror", locate(mirror, f"{source.repo}/{source.path}")))
    candidates.append(("cache", cache_root() / "downloads" / source.repo / source.commit / source.path))
    return candidates


_LINK_STUB_MAX_BYTES = 1024


def follow_link_stub(path: Path) -> Path:
    """The target of a symbolic link stored as a plain file, else ``path``.

    A git checkout without symlink support (``core.symlinks=false``), or a copy that
    does not keep links, writes a link as a small file holding its relative target;
    such a mirror still names the real file or folder, so follow it when it exists.
    """
    try:
        if not path.is_file() or path.stat().st_size > _LINK_STUB_MAX_BYTES:
            return path
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return path
    if "\n" in text or not text or text[0] in "{[" or text.startswith("/"):
        return path
    target = (path.parent / text).resolve()
    if target.exists():
        logger.debug("%s is a link stub to %s", path, target)
        return target
    return path


def locate(root: Path, relative: str) -> Path:
    """``root/relative``, following link stubs (see :func:`follow_link_stub`) on the way."""
    current = root
    for part in relative.split("/"):
        current = follow_link_stub(current / part)
    return current


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a cache folder that is a file, say: nothing there
        return False


def set_aside(path: Path, why: str, what: str = "cached download", then: str = "fetched again") -> None:
    """Move a bad cache file out of the way (``NAME.bad-TIME``), with one warning naming it."""
    target = path.with_name(f"{path.name}.bad-{int(time.time())}")
    try:
        os.replace(path, target)
        logger.warning("%s %s is unusable (%s): set aside as %s and %s", what, path, why, target.name, then)
    except OSError:
        logger.warning("%s %s is unusable (%s) and cannot be moved: %s without it", what, path, why, then)


def _download_target(target: Path) -> Path:
    """Where a download goes: the cache, or a temporary folder when the cache cannot be used."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        return target
    except OSError as error:
        folder = Path(tempfile.mkdtemp(prefix="mwz-download-"))
        logger.warning(
            "the cache folder %s cannot be used (%s): downloading into %s for this run",
            target.parent,
            error.strerror or error,
            folder,
        )
        return folder / target.name


def _download(source: Source, target: Path) -> None:
    logger.info("downloading %s", source.url)
    import urllib.request  # only here: http and ssl cost every run about 20 ms to import

    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
        try:
            with urllib.request.urlopen(source.url, timeout=DOWNLOAD_TIMEOUT_S) as response:
                shutil.copyfileobj(response, tmp)
            tmp.close()
            verify(source, Path(tmp.name))
            os.replace(tmp.name, target)
        finally:
            if os.path.exists(tmp.name):
                os.unlink(tmp.name)


def resolve(
    sources: Iterable[Source],
    *,
    data_dir: str | os.PathLike | None = None,
    verify_local: bool = False,
) -> dict[str, ResolvedFile]:
    """Resolve every source to a local file, keyed by the path in its repository.

    Raises :class:`MissingSourceError` listing every file that could not be found
    or downloaded, where it looked, and how to fix it.
    """
    resolved: dict[str, ResolvedFile] = {}
    missing: list[tuple[Source, list[Path], str | None]] = []
    for source in sources:
        candidates = _local_candidates(source, data_dir)
        for origin, path in candidates:
            if _is_file(path):
                checked = verify_local or origin == "cache"
                try:
                    digest = verify(source, path) if checked else sha256_file(path)
                except ChecksumError as error:
                    if origin != "cache":
                        raise
                    # a download in the cache that changed since: set it aside and fetch it again
                    set_aside(path, str(error))
                    continue
                resolved[source.path] = ResolvedFile(source, path, origin, digest, checked)
                break
        else:
            target = candidates[-1][1]
            if offline():
                missing.append((source, [p for _, p in candidates], "offline mode is set"))
                continue
            try:
                target = _download_target(target)
                _download(source, target)
            except OSError as error:  # URLError and TimeoutError among them
                logger.warning("downloading %s failed (%s)", source.url, getattr(error, "reason", None) or error)
                missing.append((source, [p for _, p in candidates], f"download failed: {error}"))
                continue
            resolved[source.path] = ResolvedFile(source, target, "download", sha256_file(target), True)
    if missing:
        raise MissingSourceError(_missing_message(missing))
    return resolved


def _missing_message(missing: list[tuple[Source, list[Path], str | None]]) -> str:
    lines = [f"{len(missing)} source file(s) could not be found:"]
    for source, looked, why in missing:
        lines.append(f"  - {source.name} @ {source.commit[:10]}")
        lines.append(f"      looked in: {', '.join(str(p) for p in looked)}")
        if why:
            lines.append(f"      {why}")
    lines.append(
        "Fix: connect to the network (and unset MWZ_OFFLINE/HF_HUB_OFFLINE/HF_DATASETS_OFFLINE) so the "
        "pinned files download, or point MWZ_MIRROR at a folder of upstream copies laid out as "
        "<owner>/<repo>/<path> (or pass data_dir= with one repository copy)."
    )
    return "\n".join(lines)

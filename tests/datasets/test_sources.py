"""Source resolution: data_dir -> MWZ_MIRROR -> cache -> download, checksums, failures."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from mwz_datasets import catalog, sources
from mwz_datasets.sources import ChecksumError, MissingSourceError, Source

REPO = "example/repo"
COMMIT = "0" * 40


def make_source(path: str, content: bytes | None = None, **pins) -> Source:
    if content is not None:
        pins.setdefault("size", len(content))
        pins.setdefault("sha256", hashlib.sha256(content).hexdigest())
    return Source(repo=REPO, commit=COMMIT, path=path, **pins)


def put(root: Path, path: str, content: bytes) -> Path:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    return target


def test_data_dir_then_mirror_then_cache(tmp_path, monkeypatch):
    content = b'{"a": 1}'
    source = make_source("data/a.json", content)
    mirror = tmp_path / "mirror"
    monkeypatch.setenv("MWZ_MIRROR", str(mirror))
    monkeypatch.setenv("MWZ_CACHE", str(tmp_path / "cache"))

    put(tmp_path / "cache" / "downloads" / REPO / COMMIT, source.path, content)
    assert sources.resolve([source])[source.path].origin == "cache"

    put(mirror / REPO, source.path, content)
    assert sources.resolve([source])[source.path].origin == "mirror"

    local = put(tmp_path / "copy", source.path, content)
    resolved = sources.resolve([source], data_dir=tmp_path / "copy")[source.path]
    assert (resolved.origin, resolved.path) == ("data_dir", local)
    assert resolved.sha256 == hashlib.sha256(content).hexdigest()
    assert resolved.pinned_match() is True


def test_local_copy_is_reported_not_rejected_by_default(tmp_path):
    source = make_source("data/a.json", b"pinned content")
    put(tmp_path, source.path, b"a repacked copy")
    resolved = sources.resolve([source], data_dir=tmp_path)[source.path]
    assert resolved.verified is False and resolved.pinned_match() is False
    assert resolved.signature()["sha256"] == hashlib.sha256(b"a repacked copy").hexdigest()


def test_verify_local_names_file_expected_and_actual(tmp_path):
    pinned, local = b"pinned content!", b"other content!!"  # same size: the sha256 comparison decides
    source = make_source("data/a.json", pinned)
    put(tmp_path, source.path, local)
    with pytest.raises(ChecksumError) as error:
        sources.resolve([source], data_dir=tmp_path, verify_local=True)
    message = str(error.value)
    assert "example/repo/data/a.json" in message
    assert hashlib.sha256(pinned).hexdigest() in message
    assert hashlib.sha256(local).hexdigest() in message


def test_verify_by_git_blob(tmp_path):
    content = b"hello\n"
    blob = hashlib.sha1(b"blob 6\0" + content).hexdigest()
    source = make_source("data/b.txt", git_blob=blob)
    put(tmp_path, source.path, content)
    assert sources.resolve([source], data_dir=tmp_path, verify_local=True)[source.path].verified
    put(tmp_path, source.path, b"HELLO\n")
    with pytest.raises(ChecksumError, match=blob):
        sources.resolve([source], data_dir=tmp_path, verify_local=True)


def test_missing_lists_every_file_and_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("MWZ_MIRROR", str(tmp_path / "mirror"))
    present = make_source("data/present.json", b"x")
    put(tmp_path / "mirror" / REPO, present.path, b"x")
    absent = [make_source("data/one.json"), make_source("data/two.json")]
    with pytest.raises(MissingSourceError) as error:
        sources.resolve([present, *absent], data_dir=tmp_path / "copy")
    message = str(error.value)
    assert "2 source file(s)" in message and "present.json" not in message
    for source in absent:
        assert source.name in message
        assert str(tmp_path / "copy" / source.path) in message
        assert str(tmp_path / "mirror" / REPO / source.path) in message


def test_offline_failure_is_fast(tmp_path, monkeypatch):
    monkeypatch.delenv("MWZ_MIRROR", raising=False)
    start = time.monotonic()
    with pytest.raises(MissingSourceError, match="offline mode is set"):
        sources.resolve([catalog.multiwoz("data/MultiWOZ_2.1.zip")])
    assert time.monotonic() - start < 5


def test_mirror_layout_matches_catalog(mirror):
    """Every MultiWOZ file the builders need is in the shared mirror at its repository path."""
    from mwz_datasets import multiwoz_raw

    for version in multiwoz_raw.VERSIONS:
        for source in multiwoz_raw.sources(version):
            assert (mirror / source.repo / source.path).is_file(), source.name


def test_a_cached_download_that_changed_is_set_aside_not_trusted(tmp_path, monkeypatch, caplog):
    content = b'{"a": 1}'
    source = make_source("data/a.json", content)
    monkeypatch.setenv("MWZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no second download here: the file is reported missing
    cached = put(tmp_path / "cache" / "downloads" / REPO / COMMIT, source.path, b'{"a": 2}')
    with pytest.raises(MissingSourceError, match="offline"):
        sources.resolve([source])
    assert not cached.exists() and len(list(cached.parent.glob("a.json.bad-*"))) == 1
    assert any("set aside" in r.getMessage() and str(cached) in r.getMessage() for r in caplog.records)


def test_an_unusable_cache_folder_is_nothing_cached(tmp_path, monkeypatch):
    content = b'{"a": 1}'
    source = make_source("data/a.json", content)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MWZ_CACHE", str(blocker))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(MissingSourceError):  # looked in the cache without an OSError, then missing
        sources.resolve([source])

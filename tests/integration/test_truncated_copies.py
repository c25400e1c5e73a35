"""A local copy that cannot give a right answer says so first (issue 51, item 5): the shared mirror's
MultiWOZ 2.2 files are the Hub's truncated dummies (2 of the 1000 test dialogues), so the oracle must
be refused rather than scored 50/50 on two dialogues, and BLEU against those references must name the
truncated copy and the way out. A download that fails says so."""

from __future__ import annotations

import logging

import pytest
from conftest import run_cli, shared_path


@pytest.fixture()
def mirror_env(use_mirror, monkeypatch):
    """The shared mirror (real 2.1, truncated 2.2), offline."""
    monkeypatch.setenv("MWZ_OFFLINE", "1")


def test_the_oracle_on_a_truncated_copy_is_refused_naming_it_and_the_fix(mirror_env, use_mirror, capsys):
    code, out, err = run_cli(capsys, "evaluate", "--oracle")
    assert code == 2 and out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith("mwz: error: --oracle: the MultiWOZ 2.2 test files at ")
    assert str(use_mirror) in line and "hold 2 of the release's 1000 test dialogues" in line
    assert "MWZ_MIRROR" in line and "download" in line


def test_bleu_against_a_truncated_copy_names_it_and_what_still_scores(mirror_env, capsys):
    predictions = shared_path("data", "mwzeval", "predictions", "ubar.json")
    code, _, err = run_cli(capsys, "evaluate", "-i", str(predictions))
    line = err.strip().splitlines()[-1]
    assert code == 2 and "style mwz22: no reference for 998 dialogue(s)" in line
    assert "a truncated copy" in line and "-s -r" in line
    code, out, err = run_cli(capsys, "evaluate", "-i", str(predictions), "-s", "-r")
    assert code == 0, err  # what the copy can serve still scores (2.1 is complete)
    assert "total" in out


def test_a_failed_download_is_said(use_mirror, tmp_path, monkeypatch, caplog):
    from mwz_datasets import sources

    for name in sources.OFFLINE_ENVS:  # a machine that believes it is online
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MWZ_MIRROR", str(tmp_path))  # nothing there
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")  # no network: the proxy refuses at once
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.delenv("no_proxy", raising=False)
    from mwz_datasets import multiwoz_raw

    with caplog.at_level(logging.WARNING, logger="mwz_datasets.sources"), pytest.raises(sources.MissingSourceError):
        sources.resolve(multiwoz_raw.sources("2.2", ["test"])[:1])
    assert any("downloading https://" in r.message and "failed" in r.message for r in caplog.records)

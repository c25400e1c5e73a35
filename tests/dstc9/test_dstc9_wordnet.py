"""WordNet lookup: found offline, or an error naming both fixes."""

from __future__ import annotations

import pytest

from mwz_metrics.dstc9 import wordnet


def test_missing_wordnet_names_both_fixes(monkeypatch, tmp_path):
    monkeypatch.setattr(wordnet, "DEBIAN_DIRS", (str(tmp_path / "none"),))
    monkeypatch.setattr(wordnet, "_nltk_data_dirs", lambda: [tmp_path / "nltk"])
    monkeypatch.delenv(wordnet.WORDNET_ENV, raising=False)
    with pytest.raises(wordnet.WordNetNotFoundError) as caught:
        wordnet.locate()
    assert "apt-get install wordnet-base" in str(caught.value)
    assert "nltk.downloader wordnet" in str(caught.value)


def test_a_set_mwz_wordnet_is_the_only_place_looked(monkeypatch, tmp_path):
    """An explicit folder without WordNet is an error naming it, never a silent fallback to Debian's
    (which also lets a test run simulate a machine without wordnet-base)."""
    monkeypatch.setenv(wordnet.WORDNET_ENV, str(tmp_path))
    with pytest.raises(wordnet.WordNetNotFoundError) as caught:
        wordnet.locate()
    assert f"looked in: {tmp_path})" in str(caught.value)

"""Session coherence: sessions, splicing and placeholders (no torch needed)."""

from __future__ import annotations

import copy
import json
import sys

import pytest
from conftest import shared_path

from mwz_datasets import corpus as corpora
from mwz_metrics import placeholders
from mwz_metrics.coherence import data as cdata


def _predictions(system: str) -> dict:
    with open(shared_path("data", "mwzeval", "predictions", f"{system}.json"), encoding="utf-8") as f:
        return json.load(f)


def test_placeholders_normalize_to_the_ontology_on_any_style():
    assert placeholders.normalize_placeholders("at [value_name] , [hotel_name]s") == "at [NAME] , [NAME]"
    assert placeholders.normalize_placeholders("[value_count] hotel -s") == "[COUNT] hotel -s"
    # already normalized text stays as it is; unknown names are kept
    assert placeholders.normalize_placeholders("[NAME] [unheard_of]") == "[NAME] [unheard_of]"
    assert placeholders.has_placeholders("call [value_phone]") and not placeholders.has_placeholders(
        "call [unheard_of]"
    )


def test_span_info_delexicalization_uses_inclusive_word_offsets():
    spans = [
        ["Train-Inform", "Choice", "133", 2, 2],
        ["Train-Inform", "Dest", "los angeles", 5, 6],
        ["Train-Request", "Leave", "?", 8, 8],
    ]
    text = "I have 133 trains to los angeles . When ?"
    assert placeholders.delexicalize_21(text, spans) == "I have [COUNT] trains to [PLACE] . When ?"


def test_gold_system_turns_delexicalized_from_span_info(use_mirror):
    corpus = corpora.load_corpus("test")
    assert len(corpus.dialogues) == 1000
    name, turns = next(iter(corpus.dialogues.items()))
    lex = cdata.gold_session(turns, delexicalized=False)
    delex = cdata.gold_session(turns, delexicalized=True)
    assert [t["speaker"] for t in lex] == ["user", "system"] * (len(turns) // 2) + ["user"] * (len(turns) % 2)
    assert [t["text"] for t in lex[0::2]] == [t["text"] for t in delex[0::2]]  # user turns untouched
    spans = sum(len(t.get("span_info", [])) for t in turns[1::2])
    assert spans == 0 or any("[" in t["text"] for t in delex[1::2])


def test_traditional_sessions_splice_predictions_between_gold_user_turns(use_mirror):
    corpus = corpora.load_corpus("test")
    predictions = _predictions("damd")
    before = copy.deepcopy(predictions)
    assert cdata.is_delexicalized(predictions)
    sessions, skipped = cdata.spliced_sessions(predictions, corpus, delexicalized=True)
    assert predictions == before and not skipped
    assert set(sessions) == set(predictions)
    name = sorted(sessions)[0]
    gold = corpus.dialogues[name]
    assert [t["text"] for t in sessions[name][0::2]] == [t["text"] for t in gold[0::2]]
    assert [t["text"] for t in sessions[name][1::2]] == [
        placeholders.normalize_placeholders(t["response"]) for t in predictions[name]
    ]


def test_bad_predictions_name_the_dialogue_and_turn(use_mirror):
    corpus = corpora.load_corpus("test")
    predictions = _predictions("damd")
    name = sorted(predictions)[0]
    with pytest.raises(ValueError, match="nosuch0001"):
        cdata.spliced_sessions({"nosuch0001": []}, corpus, delexicalized=True)
    short = {name: predictions[name][:-1]}
    with pytest.raises(ValueError, match=f"{name}.*predicted system turns"):
        cdata.spliced_sessions(short, corpus, delexicalized=True)
    sessions, skipped = cdata.spliced_sessions(short, corpus, delexicalized=True, on_mismatch="skip")
    assert skipped == [name] and not sessions
    broken = {name: [dict(t) for t in predictions[name]]}
    broken[name][1]["response"] = 42
    with pytest.raises(ValueError, match=f"{name}.*system turn 1.*string"):
        cdata.spliced_sessions(broken, corpus, delexicalized=True)
    with pytest.raises(ValueError, match="session 'x', turn 0.*string"):
        cdata.validate_sessions({"x": [{"speaker": "user", "text": None}]})


def test_pptod_has_one_turn_count_mismatch(use_mirror):
    corpus = corpora.load_corpus("test")
    sessions, skipped = cdata.spliced_sessions(_predictions("pptod"), corpus, delexicalized=True, on_mismatch="skip")
    assert len(skipped) == 1 and len(sessions) == 999


def test_missing_extra_names_it(monkeypatch):
    from mwz_metrics.coherence import model

    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(model.MissingExtra, match=r"mwz-eval\[coherence\]"):
        model.PairClassifier()


def test_adapter_ships_small_with_its_training_metadata():
    import numpy as np

    from mwz_metrics.coherence import model

    path = model.default_adapter_path()
    assert path.stat().st_size <= 10 * 1024 * 1024
    with np.load(path, allow_pickle=False) as stored:
        names = set(stored.files)
    trained = {name.split(".")[1] for name in names if name.startswith("full.")}
    adapted = {name.split(".")[0] for name in names if name.endswith(".down")}
    assert trained or adapted  # a delta on the base, not the base itself
    assert len(trained) <= 2  # at most two float16 layers: the file stays well under 10 MB
    assert {"output.weight", "output.bias", "meta.training_data_sha256", "meta.seed"} <= names


def test_every_placeholder_style_reads_the_same():
    forms = ["at [value_name] .", "at [restaurant_name] .", "at [NAME] .", "at NAME ."]
    assert {placeholders.canonical_placeholders(f) for f in forms} == {"at [NAME] ."}
    # lowercase words and longer capitalized words are left alone
    assert placeholders.canonical_placeholders("the name NAMES TR1234") == "the name NAMES TR1234"


def test_plural_and_hyphen_suffixes_read_the_same_in_every_style():
    plural = ["two [value_name]s", "two [restaurant_name]s", "two [NAME]s", "two NAMEs", "two NAME"]
    assert {placeholders.canonical_placeholders(f) for f in plural} == {"two [NAME]"}
    # "-star" belongs to the next word, not to the placeholder
    hyphen = ["a [stars]-star hotel", "a [value_stars]-star hotel", "a COUNT-star hotel"]
    assert {placeholders.canonical_placeholders(f) for f in hyphen} == {"a [COUNT]-star hotel"}


def test_probe_rewrites_placeholders_with_names_the_styles_register():
    from mwz_metrics.coherence.research.probes import rewrite_placeholders

    predictions = {"d": [{"response": "the postcode is [postcode] , train [train_id] ."}]}
    rewritten = {
        style: rewrite_placeholders(predictions, style)["d"][0]["response"] for style in ("value", "domain", "bare")
    }
    assert rewritten["value"] == "the postcode is [value_postcode] , train [value_id] ."
    assert rewritten["bare"] == "the postcode is POST , train TRAINID ."
    assert {placeholders.canonical_placeholders(t) for t in rewritten.values()} == {
        "the postcode is [POST] , train [TRAINID] ."
    }
    assert predictions["d"][0]["response"].startswith("the postcode is [postcode]")  # input untouched


def test_a_split_is_read_from_the_zip_once_then_from_its_cache(use_mirror, monkeypatch):
    """The turns of a split are the raw data.json turns (text, acts, spans), derived once per zip:
    a second process (the memo cleared) reads them from the cache without opening the zip."""
    from mwz_datasets import multiwoz_raw, sources

    corpora.load_corpus.cache_clear()
    first = corpora.load_corpus("test")
    files = sources.resolve(multiwoz_raw.sources("2.1", ["test"]))
    raw = dict(multiwoz_raw.iter_raw_dialogues("2.1", "test", {n: f.path for n, f in files.items()}))
    assert first.dialogues.keys() == raw.keys()
    for key in list(raw)[:50]:
        assert first.dialogues[key] == [
            {field: turn[field] for field in corpora.TURN_FIELDS if field in turn} for turn in raw[key]["log"]
        ]
    assert first.source["sha256"] == corpora.corpus_source("test")["sha256"]

    def no_zip(*args, **kwargs):
        raise AssertionError("the zip was read again")

    corpora.load_corpus.cache_clear()
    monkeypatch.setattr(multiwoz_raw, "iter_raw_dialogues", no_zip)
    try:
        again = corpora.load_corpus("test")
    finally:
        corpora.load_corpus.cache_clear()
    assert again.dialogues == first.dialogues and again.source == first.source

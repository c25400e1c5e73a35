"""DSTC9 Track 1 metric: parity with the official score files, bad input, interfaces."""

from __future__ import annotations

import json

import pytest
from conftest import shared_path

from mwz_metrics.dstc9 import EntryError, official_view, score, score_split
from mwz_metrics.dstc9.rouge import _lcs_words, _lcs_words_table


def _official_pairs():
    results = shared_path("data", "dstc9", "results")
    return sorted(results.glob("*/*.score.json"))


@pytest.fixture(scope="module")
def official(use_mirror_module):
    return _official_pairs()


@pytest.fixture(scope="module")
def use_mirror_module(mirror):
    mp = pytest.MonkeyPatch()
    mp.setenv("MWZ_MIRROR", str(mirror))
    yield mirror
    mp.undo()


def test_parity_with_every_official_score_file(need_wordnet, use_mirror_module):
    pairs = _official_pairs()
    assert len(pairs) >= 4
    for score_file in pairs:
        entry = json.loads(score_file.with_name(score_file.name.replace(".score.json", ".json")).read_text())
        expected = json.loads(score_file.read_text())
        got = official_view(score_split(entry, "test"))
        assert got.keys() == expected.keys()
        for group, values in expected.items():
            assert got[group].keys() == values.keys()
            for key, value in values.items():
                assert abs(got[group][key] - value) <= 1e-12, (score_file, group, key)


@pytest.fixture(scope="module")
def baseline(use_mirror_module):
    return json.loads(shared_path("data", "dstc9", "results", "baseline", "entry0.json").read_text())


def test_by_source_and_signature(need_wordnet, baseline):
    result = score_split(baseline, "test")
    assert set(result["by_source"]) == {"multiwoz", "sf_written", "sf_spoken"}
    counts = result["counts"]
    assert counts["tp"] + counts["fp"] + counts["fn"] + counts["tn"] == len(baseline)
    files = {f["file"].split("/", 2)[-1]: f for f in result["signature"]["data"]}
    assert files["data_eval/test/labels.json"]["pinned"] is True
    assert result["signature"]["options"]["wordnet"]["sha256"]


def test_length_mismatch_names_both_counts(need_wordnet, baseline):
    with pytest.raises(EntryError, match=f"{len(baseline) - 1} instances but the labels have {len(baseline)}"):
        score_split(baseline[:-1], "test")


def test_schema_error_names_instance_and_field(need_wordnet, baseline):
    bad = [dict(item) for item in baseline]
    index = next(i for i, item in enumerate(bad) if item["target"])
    bad[index] = dict(bad[index], response="")
    bad[index + 1] = dict(bad[index + 1], target="yes")
    with pytest.raises(EntryError) as caught:
        score_split(bad, "test")
    assert f"instance[{index}].response" in str(caught.value)
    assert f"instance[{index + 1}].target" in str(caught.value)
    assert baseline[index]["response"]  # the caller's entry is untouched


def test_unknown_snippet_is_named(need_wordnet, baseline):
    bad = list(baseline)
    index = next(i for i, item in enumerate(bad) if item["target"])
    bad[index] = dict(bad[index], knowledge=[{"domain": "hotel", "entity_id": 123456789, "doc_id": 0}])
    with pytest.raises(EntryError, match=rf"instance\[{index}\].knowledge\[0\]: unknown snippet hotel/123456789/0"):
        score_split(bad, "test")


def test_empty_normalized_response_gets_rouge_zero(need_wordnet):
    labels = [
        {"target": True, "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_id": 1}], "response": "Yes it does."}
    ]
    entry = [{"target": True, "knowledge": [{"domain": "hotel", "entity_id": 1, "doc_id": 1}], "response": "The ..."}]
    result = score(entry, labels)
    assert result["generation"]["rouge_l"] == 0.0 and result["generation"]["meteor"] == 0.0
    assert result["warnings"]["empty_normalized_response_rouge_0"] == 1


def test_bit_parallel_lcs_matches_the_table():
    import random

    rng = random.Random(7)
    for _ in range(500):
        x = [rng.choice("abcde") for _ in range(rng.randint(1, 12))]
        y = [rng.choice("abcde") for _ in range(rng.randint(1, 12))]
        assert _lcs_words(x, y) == _lcs_words_table(x, y)


def test_evaluate_module_and_cli(need_wordnet, use_mirror_module, baseline, tmp_path):
    import evaluate

    import mwz_metrics  # noqa: F401
    from mwz_metrics.cli import main

    metric = evaluate.load("dstc9_track1")
    via_module = metric.compute(predictions=baseline)
    direct = score_split(baseline, "test")
    assert official_view(via_module) == official_view(direct)
    entry_path = tmp_path / "entry.json"
    entry_path.write_text(json.dumps(baseline))
    assert main(["dstc9", "score", "--entry", str(entry_path), "--split", "test", "-o", str(tmp_path / "s.json")]) == 0
    assert official_view(json.loads((tmp_path / "s.json").read_text())) == official_view(direct)
    assert main(["dstc9", "score", "--entry", str(entry_path), "--split", "val"]) == 2  # length mismatch


def test_no_run_imports_nltk_and_a_warm_one_parses_no_wordnet(need_wordnet, tmp_path, mirror):
    # The Porter stemmer is the package's own: no run imports nltk; synonyms persist in the cache,
    # so a second process parses no WordNet file, with the same numbers.
    import subprocess
    import sys

    entry = shared_path("data", "dstc9", "results", "baseline", "entry0.json")
    labels = mirror / "alexa/alexa-with-dstc9-track1-dataset/data_eval/test/labels.json"
    code = (
        "import json, sys\n"
        "from mwz_metrics.dstc9 import score, official_view\n"
        f"entry = json.load(open({str(entry)!r}))[:400]\n"
        f"labels = json.load(open({str(labels)!r}))[:400]\n"
        "from mwz_metrics.dstc9 import wordnet\n"
        "scores = official_view(score(entry, labels))\n"
        "parsed = wordnet.load().lookups > 0\n"
        "print(json.dumps({'scores': scores, 'nltk': 'nltk' in sys.modules, 'parsed': parsed}))\n"
    )
    env = {**__import__("os").environ, "MWZ_CACHE": str(tmp_path / "cache")}

    def run() -> dict:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    cold, warm = run(), run()
    assert cold["nltk"] is False and warm["nltk"] is False
    assert cold["parsed"] is True and warm["parsed"] is False
    assert warm["scores"] == cold["scores"]


def test_the_porter_stemmer_is_nltks_on_every_word_here(need_wordnet):
    """Every word of the DSTC9 labels, knowledge and entries in ../shared and of WordNet's vocabulary."""
    import glob
    import re

    nltk_porter = pytest.importorskip("nltk.stem.porter")
    from mwz_metrics.dstc9 import porter, wordnet

    words: set[str] = set()
    for path in glob.glob(str(shared_path("data", "dstc9", "results") / "*" / "entry*.json")) + glob.glob(
        str(shared_path("data", "mirror", "alexa")) + "/**/*.json", recursive=True
    ):
        words.update(re.findall(r"[a-z0-9']+", open(path, encoding="utf-8").read().lower()))
    folder = wordnet.load().location
    for path in glob.glob(f"{folder}/index.*"):
        for line in open(path, encoding="latin-1"):
            if not line.startswith(" "):
                lemma = line.split(" ", 1)[0]
                words.update([lemma, *lemma.split("_")])
    assert len(words) > 150_000
    reference = nltk_porter.PorterStemmer()
    mismatches = [w for w in words if porter.stem(w) != reference.stem(w)]
    assert mismatches == []


def test_schema_error_shows_an_excerpt_not_the_input(need_wordnet, tmp_path, mirror):
    # A whole entry of the wrong shape: the message names where and quotes a short excerpt.
    import subprocess
    import sys

    entry = {f"instance{i}": {"target": True, "response": "x" * 200} for i in range(2000)}
    path = tmp_path / "entry.json"
    path.write_text(json.dumps(entry))
    env = {**__import__("os").environ, "MWZ_MIRROR": str(mirror)}
    out = subprocess.run(
        [sys.executable, "-m", "mwz_metrics.cli", "-q", "dstc9", "score", "--entry", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "schema error" in out.stderr and "entry:" in out.stderr and "characters)" in out.stderr
    assert len(out.stderr) < 1000 < path.stat().st_size


def test_two_processes_give_the_floats_of_one(need_wordnet, use_mirror_module, monkeypatch):
    from mwz_metrics.dstc9 import parallel

    entry = json.loads(shared_path("data", "dstc9", "results", "team03", "entry2.json").read_text())
    monkeypatch.setattr(parallel, "_cores", lambda: 2)
    import threading

    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not parallel.two_processes(len(entry))  # never fork beside another thread
    finally:
        release.set()
        other.join()
    # a thread an earlier test in this worker left behind must not turn the fork off here
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    assert parallel.two_processes(len(entry))
    forked = score_split(entry, "test")
    monkeypatch.setenv(parallel.PROCESSES_ENV, "1")
    assert not parallel.two_processes(len(entry))
    alone = score_split(entry, "test")
    forked.pop("signature"), alone.pop("signature")
    assert forked == alone  # exactly: the same code on the same pairs, summed in one order


def test_a_failed_child_leaves_the_parent_to_do_its_half(monkeypatch):
    from mwz_metrics.dstc9 import parallel

    monkeypatch.setattr(parallel, "_cores", lambda: 2)
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    parent = __import__("os").getpid()

    def square(x: int) -> int:
        if __import__("os").getpid() != parent:
            raise RuntimeError("the child fails")
        return x * x

    assert parallel.map_halves(square, list(range(500))) == [x * x for x in range(500)]
    merged = []
    assert parallel.map_halves(lambda x: -x, list(range(500)), child_state=lambda: "state", merge_state=merged.append)
    assert merged == ["state"]


def test_common_skeleton_keys_refine_the_full_skeleton_and_keep_verdicts(use_mirror_module):
    """Equal fast keys must mean equal full skeletons (so equal verdicts) on every shared entry
    and on instances made to fail the schema."""
    import glob

    from mwz_datasets.dstc9_files import load_split
    from mwz_metrics.dstc9.validation import _common_key, _skeleton, _validator

    full_of: dict = {}
    for path in sorted(glob.glob(str(shared_path("data", "dstc9", "results") / "*" / "entry[0-9].json"))):
        for item in json.loads(open(path, encoding="utf-8").read()):
            key = _common_key(item)
            assert key is not None  # every shared entry takes the fast path
            skeleton = _skeleton(item)[0]
            assert full_of.setdefault(key, skeleton) == skeleton
    ref = {"domain": "hotel", "entity_id": 1, "doc_id": 2}
    odd = [
        {"target": True, "knowledge": [], "response": "x"},
        {"target": True, "knowledge": [ref], "response": ""},
        {"target": True, "knowledge": [{**ref, "domain": "spa"}], "response": "x"},
        {"target": True, "knowledge": [{**ref, "entity_id": "7"}], "response": "x"},
        {"target": True, "knowledge": [{**ref, "entity_id": "*"}], "response": "x"},
        {"target": True, "knowledge": [{**ref, "doc_id": True}], "response": "x"},
        {"target": True, "knowledge": [{**ref, "doc_id": 2.0}], "response": "x"},
        {"target": True, "knowledge": [{**ref, "prob": 0.5}], "response": "x", "score": 1},
        {"target": True, "knowledge": [ref], "response": "x", "extra": [1]},
        {"target": False, "score": 0.1},
        {"target": "yes"},
    ]
    validator = _validator(load_split("test").schema)
    for item in odd:
        key = _common_key(item)
        if key is not None:
            twin = json.loads(json.dumps(item).replace('"x"', '"another"').replace("0.5", "0.25"))
            assert _common_key(twin) == key and validator.is_valid([twin]) == validator.is_valid([item])
    verdicts = {json.dumps(item): validator.is_valid([item]) for item in odd}
    # valid: the "*" entity, a float doc_id (2.0 is an integer to JSON Schema), unnamed fields, a non-target
    assert sum(verdicts.values()) == 5


def test_a_second_run_needs_neither_jsonschema_nor_wordnet_files(need_wordnet, tmp_path, mirror):
    import subprocess
    import sys

    entry = shared_path("data", "dstc9", "results", "team01", "entry0.json")
    code = (
        "import json, sys\n"
        "from mwz_metrics.dstc9 import score_split, official_view\n"
        "from mwz_metrics.dstc9.scorer import default_scorer\n"
        f"scores = official_view(score_split(json.load(open({str(entry)!r})), 'test'))\n"
        "scorer = default_scorer()\n"
        "print(json.dumps({'scores': scores, 'jsonschema': 'jsonschema' in sys.modules, 'pluggy': 'pluggy' in sys.modules,\n"
        "    'wordnet_opened': bool(scorer.wordnet._index), 'new_stems': len(scorer.stem.memo.added)}))\n"
    )
    env = {**__import__("os").environ, "MWZ_CACHE": str(tmp_path / "cache"), "MWZ_MIRROR": str(mirror)}

    def run() -> dict:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    cold, warm = run(), run()
    assert cold["jsonschema"] and cold["wordnet_opened"] and cold["new_stems"] > 1000
    assert not warm["jsonschema"] and not warm["wordnet_opened"] and warm["new_stems"] == 0
    assert not cold["pluggy"] and not warm["pluggy"]  # no plugin is named in a DSTC9 result: none loaded
    assert warm["scores"] == cold["scores"]
    derived = sorted((tmp_path / "cache" / "derived").glob("dstc9-*.json"))
    assert len(derived) == 4  # stems, synonyms, WordNet's checksum, valid schema shapes
    for file in derived:  # valid JSON, wrong content: set aside and rebuilt, the same numbers
        file.write_text('{"x": 1}')
    assert run()["scores"] == cold["scores"]


def test_wordnet_entries_are_found_by_byte_offset_as_by_line(need_wordnet):
    import bisect

    from mwz_metrics.dstc9.wordnet import _find_entry, locate

    files = locate()
    raw = files.read("index.adv")
    lines = [line for line in raw.split(b"\n") if line and not line.startswith(b" ")]
    keys = [line.split(b" ", 1)[0] for line in lines]
    probes = keys + [k + b"z" for k in keys[::7]] + [k[:-1] for k in keys[::5]] + [b"", b"0", b"~"]
    mapped = files.open("index.adv")
    for word in probes:
        at = bisect.bisect_left(keys, word)
        expected = lines[at] if at < len(keys) and keys[at] == word else None
        assert _find_entry(mapped, word) == expected == _find_entry(raw, word)

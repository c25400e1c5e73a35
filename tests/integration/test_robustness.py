"""Nothing on a user's disk stops or corrupts a score (property-based, seeded, bounded).

Every command reads a byte-mutated input and either scores it (the same numbers when the mutation
left the same JSON) or refuses it in one line naming the file; random JSON shapes in valid
predictions are refused in one line; derived-data cache files survive any corruption with the
same numbers; text normalization never raises on any string.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from conftest import run_cli, shared_path
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mwz_metrics.cli import main

SEEDED = settings(
    max_examples=12, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


@pytest.fixture(scope="module")
def valid(synth22_module_env, tmp_path_factory) -> tuple[Path, bytes]:
    ubar = json.loads(shared_path("data", "mwzeval", "predictions", "ubar.json").read_text())
    subset = {k: ubar[k] for k in sorted(ubar)[:3]}
    path = tmp_path_factory.mktemp("valid") / "ubar3.json"
    data = json.dumps(subset, indent=1).encode()
    path.write_bytes(data)
    return path, data


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    return run_cli(capsys, *argv)


MUTATIONS = st.lists(
    st.tuples(st.sampled_from(["replace", "insert", "delete", "truncate"]), st.integers(0, 10**6), st.integers(0, 255)),
    min_size=1,
    max_size=4,
)


def _mutate(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for kind, where, byte in edits:
        if not out:
            break
        i = where % len(out)
        if kind == "replace":
            out[i] = byte
        elif kind == "insert":
            out.insert(i, byte)
        elif kind == "delete":
            del out[i]
        else:
            del out[i:]
    return bytes(out)


COMMANDS = {
    "evaluate": lambda path: ("evaluate", "-i", str(path), "-s", "-r", "--json"),
    "compare": lambda path: ("compare", "-i", str(path), "-s", "-r", "--format", "json", "--resamples", "50"),
    "fluency": lambda path: ("fluency", "-i", str(path), "--json", "--resamples", "50"),
    "interact": lambda path: (
        "interact",
        "--system",
        str(path),
        "--simulator",
        "replay",
        "-o",
        str(path.with_suffix(".jsonl")),
        "--json",
        "--resamples",
        "50",
    ),
}


def _comparable(command: str, stdout: str) -> object:
    if command in ("coherence", "dstc9"):
        return stdout  # tables: the same input prints the same table
    data = json.loads(stdout)
    if command == "interact":
        return {k: data[k] for k in ("inform", "success", "book_rate", "turns", "richness")}
    if command == "compare":
        return data["rows"]
    return (
        data.get("success"),
        data.get("richness"),
        data.get("ubar3", {}).get("fluency") if command == "fluency" else None,
    )


@pytest.fixture(scope="module")
def dstc9_entry(synth22_module_env, tmp_path_factory) -> tuple[Path, bytes]:
    pytest.importorskip("jsonschema")
    entry = shared_path("data", "dstc9", "results", "baseline", "entry0.json")
    path = tmp_path_factory.mktemp("dstc9") / "entry0.json"
    data = entry.read_bytes()
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("command", [*sorted(COMMANDS), "coherence", "dstc9"])
def test_a_mutated_input_is_scored_or_refused_in_one_line(command, valid, request, tmp_path_factory, capsys):
    path, data = valid
    commands = {
        **COMMANDS,  # the module's table stays as it is for the other tests
        "coherence": lambda p: ("coherence", "-i", str(p), "--skip-mismatched"),
        "dstc9": lambda p: ("dstc9", "score", "--entry", str(p), "--split", "test"),
    }
    if command == "coherence":
        pytest.importorskip("torch")
    if command == "dstc9":
        request.getfixturevalue("need_wordnet")
        path, data = request.getfixturevalue("dstc9_entry")
    code, clean, err = _run(capsys, *commands[command](path))
    assert code == 0, err
    folder = tmp_path_factory.mktemp(command)
    examples = SEEDED if command not in ("coherence", "dstc9") else settings(SEEDED, max_examples=5)

    @examples
    @given(MUTATIONS)
    def check(edits):
        mutated = _mutate(data, edits)
        target = folder / path.name
        target.write_bytes(mutated)
        code, out, err = _run(capsys, *commands[command](target))
        assert code in (0, 2), err
        if code == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("mwz: error: ") and "Traceback" not in err, err
            assert str(target) in lines[0] or path.stem in lines[0], lines[0]
        else:
            try:
                same = json.loads(mutated.decode("utf-8")) == json.loads(data)
            except (UnicodeDecodeError, ValueError):
                same = False
            if same:  # the same JSON must give the same numbers
                assert _comparable(command, out) == _comparable(command, clean)
        assert target.read_bytes() == mutated  # inputs are never modified

    check()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@SEEDED
@given(where=st.sampled_from(["response", "state", "active_domains", "turn", "turns", "domain"]), value=JSON)
def test_random_json_shapes_are_refused_in_one_line_or_scored(valid, tmp_path_factory, capsys, where, value):
    path, data = valid
    predictions = json.loads(data)
    key = next(iter(predictions))
    if where == "turns":
        predictions[key] = value
    elif where == "turn":
        predictions[key][0] = value
    elif where == "domain":
        predictions[key][0]["state"] = {"restaurant": value}
    else:
        predictions[key][0][where] = value
    target = tmp_path_factory.mktemp("shapes") / "shapes.json"
    target.write_text(json.dumps(predictions))
    for argv in (COMMANDS["evaluate"](target), COMMANDS["fluency"](target)):
        code, _, err = _run(capsys, *argv)
        assert code in (0, 2), err
        if code == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("mwz: error: ") and "shapes.json" in lines[0], lines


CORRUPTIONS = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.integers(0, 10**9)),
    st.tuples(st.just("json"), JSON),
    st.tuples(st.just("empty"), st.none()),
)


def _corrupt(path: Path, corruption) -> None:
    kind, how = corruption
    data = path.read_bytes()
    if kind == "truncate":
        path.write_bytes(data[: int(len(data) * how)])
    elif kind == "flip":
        i = how % len(data)
        path.write_bytes(data[:i] + bytes([data[i] ^ 0x55]) + data[i + 1 :])
    elif kind == "json":
        path.write_text(json.dumps(how))
    else:
        path.write_bytes(b"")


@SEEDED
@given(corruption=CORRUPTIONS)
def test_the_cache_layer_recovers_from_any_corruption(tmp_path_factory, monkeypatch, corruption):
    from mwz_datasets import derived as cache

    monkeypatch.setenv("MWZ_CACHE", str(tmp_path_factory.mktemp("cache")))
    value = {"goals": {"sng0073": [1, 2, 3]}, "text": "café"}
    built = []

    def build():
        built.append(1)
        return value

    assert cache.cached("probe", ["a"], build) == value
    path = cache.cache_file("probe", ["a"])
    _corrupt(path, corruption)
    assert cache.cached("probe", ["a"], build) == value
    assert cache.cached("probe", ["a"], build) == value  # rebuilt once, then read back
    assert len(built) <= 2
    assert cache.read(path, "probe", None)[0]  # the file is good again


def test_corrupt_derived_files_and_an_unusable_cache_give_the_same_numbers(
    valid, capsys, tmp_path, monkeypatch, caplog
):
    path, _ = valid
    monkeypatch.setenv("MWZ_CACHE", str(tmp_path / "cache"))
    argv = COMMANDS["evaluate"](path)
    code, clean, _ = _run(capsys, *argv)
    assert code == 0
    derived = sorted((tmp_path / "cache" / "derived").glob("*.json"))
    assert derived
    for file in derived:  # valid JSON, wrong content: the case that used to stop every evaluation
        file.write_text(json.dumps({"booked_domains": 1}))
    with caplog.at_level(logging.WARNING):
        code, again, _ = _run_logged(capsys, *argv)
    assert code == 0 and json.loads(again)["success"] == json.loads(clean)["success"]
    assert any(str(derived[0]) in r.getMessage() and "set aside" in r.getMessage() for r in caplog.records)
    monkeypatch.setenv("MWZ_CACHE", os.devnull)  # a file, not a folder
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        code, uncached, _ = _run_logged(capsys, *argv)
    assert code == 0 and json.loads(uncached)["success"] == json.loads(clean)["success"]
    assert any("running uncached" in r.getMessage() for r in caplog.records)


def _run_logged(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["-q", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.text())
def test_text_normalization_never_raises(text):
    from mwz_metrics.multiwoz.normalize import ResponseNormalizer
    from mwz_metrics.tokens import model_words, tokenize

    normalizer = _NORMALIZER.setdefault("n", ResponseNormalizer())
    assert isinstance(normalizer.normalize(text), str)
    assert tokenize(tokenize(text)) == tokenize(text)  # splitting twice splits nothing more
    assert isinstance(model_words(text), list)


_NORMALIZER: dict[str, object] = {}


# Valid inputs changed in ways whose effect on the numbers is known: a dialogue id recased, the
# dialogues reordered, placeholders written in another style, a dialogue dropped (the rates are then
# those of the others, per dialogue as the clean run scored them), a word appended to a response
# (Inform/Success stay, the response's words grow by one).
_CLEAN: dict[Path, dict] = {}  # the unchanged input's result, computed once
CHANGES = st.tuples(
    st.sampled_from(["recase", "reorder", "restyle", "drop", "append"]), st.integers(0, 99), st.integers(0, 99)
)
_STYLE = {
    "[value_name]": "[restaurant_name]",
    "[value_reference]": "[restaurant_reference]",
    "[value_phone]": "[hotel_phone]",
}


def _change(predictions: dict, change) -> dict:
    kind, which, turn = change
    keys = list(predictions)
    key = keys[which % len(keys)]
    out = json.loads(json.dumps(predictions))
    if kind == "recase":
        out = {(k.upper() if k == key else k): v for k, v in out.items()}
    elif kind == "reorder":
        out = {k: out[k] for k in reversed(keys)}
    elif kind == "restyle":
        for turns in out.values():
            for t in turns:
                for old, new in _STYLE.items():
                    t["response"] = t["response"].replace(old, new)
    elif kind == "drop":
        del out[key]
    else:
        turns = out[key]
        turns[turn % len(turns)]["response"] += " indeed"
    return out


def _evaluated(capsys, path: Path) -> dict:
    code, out, err = _run(capsys, "evaluate", "-i", str(path), "-s", "-r", "--per-dialogue", "--json")
    assert code == 0, err
    return json.loads(out)


@SEEDED
@given(change=CHANGES)
@example(change=("recase", 1, 0))
@example(change=("reorder", 0, 0))
@example(change=("restyle", 0, 0))
@example(change=("drop", 2, 0))
@example(change=("append", 1, 3))
def test_valid_changed_inputs_give_the_numbers_they_must(valid, tmp_path_factory, capsys, change):
    path, data = valid
    predictions = json.loads(data)
    clean = _CLEAN.get(path) or _CLEAN.setdefault(path, _evaluated(capsys, path))
    changed = _change(predictions, change)
    target = tmp_path_factory.mktemp("changed") / "changed.json"
    target.write_text(json.dumps(changed))
    result = _evaluated(capsys, target)
    kind = change[0]
    if kind in ("recase", "reorder", "restyle"):
        assert result["success"]["inform"] == clean["success"]["inform"]
        assert result["success"]["success"] == clean["success"]["success"]
        if kind == "recase":
            assert result["richness"] == clean["richness"]
        elif kind == "reorder":  # mwzeval's richness reads the responses in the file's order: its counts stay
            counts = ("num_unigrams", "num_bigrams", "num_trigrams", "avg_lengths")
            assert {k: result["richness"][k] for k in counts} == {k: clean["richness"][k] for k in counts}
            assert result["richness"]["entropy"] == pytest.approx(clean["richness"]["entropy"], abs=1e-9)
    elif kind == "drop":
        kept = [k for k in predictions if k.lower() in {c.lower() for c in changed}]
        outcomes = clean["success"]["per_dialogue"]
        for figure in ("inform", "success"):
            expected = 100 * sum(bool(outcomes[k][figure].get("total")) for k in kept) / len(kept)
            assert result["success"][figure]["total"] == round(expected, 1)
    else:
        assert result["success"]["success"] == clean["success"]["success"]
        total = sum(len(t["response"].split()) for v in predictions.values() for t in v)
        assert result["richness"]["num_unigrams"] >= clean["richness"]["num_unigrams"]
        assert sum(len(t["response"].split()) for v in changed.values() for t in v) == total + 1

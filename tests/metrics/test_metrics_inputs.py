"""Bad input gets a clear error naming dialogue and turn, or a counted warning."""

from __future__ import annotations

import copy
import json

import pytest

from mwz_metrics.inputs import InputError, check_against_test_set, dialogue_key, load_predictions
from mwz_metrics.multiwoz.evaluator import Evaluator


def test_dialogue_keys():
    assert {dialogue_key(x) for x in ["SNG0073.json", "SNG0073", "sng0073", " sng0073.JSON "]} == {"sng0073"}


@pytest.mark.parametrize(
    "data,message",
    [
        ([1, 2], "must be a dict of dialogue id -> list of turns"),
        ({"sng0073": "hello"}, "dialogue sng0073: expected a list of turns"),
        ({"sng0073": [{"text": "x"}]}, "dialogue sng0073, turn 0: missing 'response'"),
        ({"sng0073": [{"response": "a"}, {"response": 3}]}, "dialogue sng0073, turn 1: 'response' must be a string"),
        (
            {"sng0073": [{"response": "a", "state": {"hotel": {"area": 1}}}]},
            r"dialogue sng0073, turn 0: state hotel.area must be a string",
        ),
        ({"sng0073": [{"response": "a", "state": ["hotel"]}]}, "turn 0: 'state' must be"),
        ({"sng0073": [{"response": "a", "active_domains": "hotel"}]}, "'active_domains' must be a list"),
        ({"SNG0073": [], "sng0073.json": []}, "appears twice"),
    ],
)
def test_malformed_predictions(data, message):
    with pytest.raises(InputError, match=message):
        load_predictions(data)


def test_not_json(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match="not JSON"):
        load_predictions(path)


def test_ids_and_turn_counts():
    counts = {"a": 2, "b": 3, "c": 1}
    preds = load_predictions({"a": [{"response": "x"}] * 2, "b": [{"response": "x"}]})
    coverage, warnings = check_against_test_set(preds, counts)
    assert coverage.as_dict() == {
        "dialogues": 2,
        "dialogues_in_test": 3,
        "turns": 3,
        "turns_in_reference": 6,
        "complete": False,
    }
    kinds = {w["kind"]: w for w in warnings}
    assert kinds["fewer_turns_than_reference"]["examples"] == {"b": {"predicted": 1, "reference": 3}}
    assert kinds["partial_test_set"]["count"] == 1
    with pytest.raises(InputError, match=r"dialogue a: 3 predicted turns but the reference has 2"):
        check_against_test_set(load_predictions({"a": [{"response": "x"}] * 3}), counts)
    unknown = {f"x{i}": [] for i in range(12)}
    full = {**counts, **{f"d{i}": 1 for i in range(997)}}  # the 1000 test dialogues: the ids are wrong
    with pytest.raises(InputError, match=r"12 dialogue id\(s\) not in the MultiWOZ test set: x0, .*x9 and 2 more"):
        check_against_test_set(load_predictions(unknown), full)
    # a test set of 3: the local copy is short, not the predictions wrong
    with pytest.raises(InputError, match=r"the local MultiWOZ copy is truncated: its test set holds 3 of the 1000"):
        check_against_test_set(load_predictions(unknown), counts)


def test_richness_needs_no_data_and_counts_unknown_placeholders():
    predictions = {"SNG0073.json": [{"response": "[value_name] is at [nowhere_slot]."}, {"response": "bye-ly"}]}
    before = copy.deepcopy(predictions)
    result = Evaluator(bleu=False, success=False, richness=True).evaluate(predictions)
    assert predictions == before
    assert result["coverage"] is None  # nothing loaded to check against
    warning = result["warnings"][0]
    assert warning["kind"] == "unknown_placeholder" and warning["names"] == {"nowhere_slot": 1}
    assert warning["examples"]["nowhere_slot"] == "sng0073 turn 0"
    # normalized: "NAME is at." (the unknown placeholder dropped) and "bye" ("-ly" removed): 3 + 1 tokens
    assert result["richness"]["avg_lengths"] == (3 + 1) / 2
    assert result["signature"]["package"].startswith("mwz-eval ")
    assert result["signature"]["normalizers"]["mwzeval"]["steps"]["mwzeval-time"] == "1.0.0"


def test_nothing_requested():
    with pytest.raises(ValueError, match="nothing to evaluate"):
        Evaluator(bleu=False, success=False, richness=False).evaluate({"a": [{"response": "x"}]})


def test_unknown_test_ids_are_an_error(use_mirror):
    with pytest.raises(InputError, match="not in the MultiWOZ test set: nosuch1"):
        Evaluator(bleu=False, success=True, richness=False).evaluate({"nosuch1": [{"response": "x", "state": {}}]})


def test_cli_writes_json_with_signature(tmp_path, use_mirror):
    from mwz_metrics.cli import main

    source = tmp_path / "p.json"
    source.write_text(json.dumps({"sng0073": [{"response": "i have [value_count] trains .", "state": {}}]}))
    out = tmp_path / "out.json"
    assert main(["evaluate", "-i", str(source), "-s", "-r", "-o", str(out)]) == 0
    result = json.loads(out.read_text())
    assert set(result) >= {"bleu", "success", "richness", "dst", "coverage", "warnings", "signature"}
    assert result["bleu"] is None
    # SNG0073 is a taxi goal asking for the PHONE: a taxi needs no venue (inform), but the one
    # turn given never provides the phone (no success).
    assert result["success"]["inform"]["total"] == 100.0 and result["success"]["success"]["total"] == 0.0
    library = Evaluator(bleu=False, success=True, richness=True).evaluate(json.loads(source.read_text()))
    assert result["success"] == json.loads(json.dumps(library["success"]))
    assert result["richness"] == library["richness"]
    assert result["signature"]["line"] == library["signature"]["line"]
    assert result["coverage"]["dialogues"] == 1 and result["coverage"]["dialogues_in_test"] == 1000
    files = {s["file"] for s in result["signature"]["sources"]}
    assert "budzianowski/multiwoz/data/MultiWOZ_2.1.zip" in files

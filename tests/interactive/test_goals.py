"""Goals and booked domains from MultiWOZ 2.1 raw data, against mwzeval's files."""

from __future__ import annotations

import copy
import json
import zipfile

import pytest
from conftest import shared_path

from mwz_datasets.goals import booked_domains_from_raw, goal_from_raw


def identity(domain, slot, value):
    return value


def test_goal_from_raw_structure():
    raw = {
        "taxi": {},
        "police": {},
        "topic": {"restaurant": True},
        "message": ["text"],
        "train": {
            "info": {"arriveBy": "18:00", "leaveAt": "9:00", "day": "monday"},
            "reqt": ["duration", "trainID"],
            "book": {"people": "2"},
        },
        "hotel": {
            "info": {"price range": "cheap", "name": "x"},
            "reqt": ["phone", "postcode", "area"],
            "book": {"stay": "2"},
        },
        "attraction": {"info": {"type": "museum"}, "reqt": ["address", "id"]},
    }
    before = copy.deepcopy(raw)
    goal = goal_from_raw(raw, identity)
    assert raw == before
    assert set(goal) == {"train", "hotel", "attraction"}
    assert goal["train"] == {
        "informable": {"arrive": "18:00", "leave": "9:00", "day": "monday"},
        "requestable": ["REFERENCE", "TRAINID"],
    }
    assert goal["hotel"] == {
        "informable": {"pricerange": "cheap", "name": "x"},
        "requestable": ["PHONE", "POST", "REFERENCE"],
    }
    assert goal["attraction"]["requestable"] == ["ADDRESS", "TRAINID"]


def test_goal_values_normalized_with_domain_and_column():
    calls = []

    def normalize(domain, slot, value):
        calls.append((domain, slot, value))
        return value.upper()

    goal = goal_from_raw({"train": {"info": {"leaveAt": "9am"}, "reqt": []}}, normalize)
    assert goal == {"train": {"informable": {"leave": "9AM"}, "requestable": []}}
    assert calls == [("train", "leave", "9am")]


def test_booked_domains_from_raw():
    def turn(*booked):
        return {
            "metadata": {
                d: {"book": {"booked": [{"reference": "x"}] if d in booked else []}}
                for d in ("taxi", "attraction", "train", "hotel", "restaurant")
            }
        }

    log = [{"metadata": {}}, turn(), {"metadata": {}}, turn("train", "restaurant", "taxi"), {"metadata": {}}]
    assert booked_domains_from_raw(log) == [[], ["restaurant", "train"]]
    with pytest.raises(ValueError, match="turn 1"):
        booked_domains_from_raw([{}, {"metadata": {"hotel": {"book": None}}}])


@pytest.fixture(scope="module")
def mwz21_test():
    path = shared_path("data", "mirror", "budzianowski", "multiwoz", "data", "MultiWOZ_2.1.zip")
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("MultiWOZ_2.1/data.json"))
        ids = archive.read("MultiWOZ_2.1/testListFile.txt").decode().split()
    assert len(ids) == 1000
    return {name.lower().removesuffix(".json"): data[name] for name in ids}


def test_goals_equal_mwzeval(mwz21_test):
    from mwz_plugins import get_registry

    normalize = get_registry().chain("mwzeval")
    expected = json.loads(shared_path("parity", "mwzeval", "goals_test.json").read_text())
    assert set(expected) == set(mwz21_test)
    mismatches = [
        key for key, dialogue in mwz21_test.items() if goal_from_raw(dialogue["goal"], normalize) != expected[key]
    ]
    assert mismatches == []


def test_booked_domains_equal_mwzeval(mwz21_test):
    expected = json.loads(shared_path("data", "mwzeval", "booked_domains.json").read_text())
    mismatches = [
        key for key, dialogue in mwz21_test.items() if booked_domains_from_raw(dialogue["log"]) != expected[key]
    ]
    assert mismatches == []
    # the order matters: some turns book several domains
    assert any(len(turn) > 1 for key in mwz21_test for turn in expected[key])

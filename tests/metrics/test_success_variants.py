"""Inform/Success variants on hand-built dialogues: each option moves the outcome the expected way.

The test set is a hand-built stand-in (one dialogue, a two-venue database), so these run
offline; the real data's figures are in ``benchmarks/table5.py``.
"""

from __future__ import annotations

import evaluate
import pytest

import mwz_metrics  # noqa: F401  (registers the evaluate modules)
from mwz_datasets.goals import gold_active_domains_from_raw
from mwz_metrics.multiwoz import hf_modules
from mwz_metrics.multiwoz import success as success_lib
from mwz_metrics.multiwoz.evaluator import Evaluator
from mwz_metrics.multiwoz.testset import TestSet
from mwz_metrics.settings import SuccessConfig

VENUES = {"north-a": {"name": "alpha", "area": "north"}, "centre-b": {"name": "beta", "area": "centre"}}


def query(domain, constraints):
    """Venues whose every constrained column equals the constraint."""
    return [v for v, row in VENUES.items() if all(row.get(s) == c for s, c in constraints.items())]


def _outcome(state, variant, goal_informable=None, active=(("restaurant",),)):
    goal = {"restaurant": {"informable": goal_informable or {"area": "north"}, "requestable": []}}
    return success_lib.dialogue_success(
        goal, [[]], ["i suggest NAME ."], [state], [list(a) for a in active], query, variant.resolved()
    )


def test_intersection_matching_accepts_what_subset_rejects():
    state = {"restaurant": {}}  # matches both venues: one meets the goal, one does not
    assert not _outcome(state, SuccessConfig()).inform["restaurant"]
    assert _outcome(state, SuccessConfig(matching="intersection")).inform["restaurant"]


def test_name_only_ignores_the_other_constraints():
    # the system names alpha (which meets the goal) but its state has a wrong area
    state = {"restaurant": {"name": "alpha", "area": "centre"}}
    assert not _outcome(state, SuccessConfig()).inform["restaurant"]
    assert _outcome(state, SuccessConfig(name_constraints="name_only")).inform["restaurant"]
    # without a name the option changes nothing
    unnamed = {"restaurant": {"area": "centre"}}
    assert not _outcome(unnamed, SuccessConfig(name_constraints="name_only")).inform["restaurant"]


def test_variant_rejects_unknown_choices():
    with pytest.raises(ValueError, match=r"^matching must be one of \('subset', 'intersection'\), not 'superset'$"):
        SuccessConfig(matching="superset").resolved()
    optimistic = SuccessConfig(optimistic=True)
    assert optimistic.variant() == {
        "matching": "intersection",
        "name_constraints": "name_only",
        "active_domains": "gold",
    }
    assert SuccessConfig(optimistic=True, matching="subset").variant()["matching"] == "subset"  # given beside it
    assert SuccessConfig().is_default and not optimistic.is_default


def test_variant_keeps_its_old_name_for_a_release():
    with pytest.warns(DeprecationWarning, match="SuccessConfig"):
        assert success_lib.Variant is SuccessConfig


def test_gold_active_domains_follow_damd():
    goal = {"restaurant": {"info": {"area": "north"}}, "hotel": {"info": {"area": "north"}}}
    empty = {"restaurant": {"semi": {"area": ""}, "book": {}}, "hotel": {"semi": {"area": ""}, "book": {}}}
    asked = {"restaurant": {"semi": {"area": "north"}, "book": {}}, "hotel": {"semi": {"area": ""}, "book": {}}}
    log = [
        {"text": "hi", "metadata": {}},
        {"text": "hello", "metadata": empty, "dialog_act": {"general-greet": []}},
        {"text": "food in the north", "metadata": {}},
        {"text": "...", "metadata": asked, "dialog_act": {"Restaurant-Inform": [], "Booking-Inform": []}},
        {"text": "and a hotel?", "metadata": {}},
        {"text": "...", "metadata": asked, "dialog_act": {"Hotel-Request": [], "general-reqmore": []}},
        {"text": "thanks", "metadata": {}},
        {"text": "bye", "metadata": asked, "dialog_act": {}},
    ]
    # acts' domain; changed constraints first; booking/general dropped beside others; none -> previous
    assert gold_active_domains_from_raw(goal, log) == [["general"], ["restaurant"], ["hotel"], ["hotel"]]


class HandBuiltTestSet(TestSet):
    """One dialogue whose gold acts say the restaurant is active; a two-venue database."""

    def __init__(self):
        super().__init__()
        goal = {"restaurant": {"informable": {"area": "north"}, "requestable": []}}
        self.__dict__["multiwoz21"] = {"goals": {"sng0001": goal}, "booked_domains": {"sng0001": [[]]}}
        self.__dict__["gold_active_domains"] = {"sng0001": [["restaurant"]]}
        self.__dict__["database"] = type("Db", (), {"query": staticmethod(query)})()


# The system offers alpha (right) with a wrong area in its state, and says no domain is active.
PREDICTIONS = {
    "sng0001": [
        {
            "response": "i suggest [restaurant_name] .",
            "state": {"restaurant": {"name": "alpha"}},
            "active_domains": [],
        }
    ]
}


@pytest.fixture()
def hand_built(monkeypatch):
    testset = HandBuiltTestSet()
    monkeypatch.setattr(hf_modules, "testset", lambda *args, **kwargs: testset)
    return testset


def _inform(testset, **options):
    result = Evaluator(bleu=False, richness=False, testset=testset, **options).evaluate(PREDICTIONS)
    return result["success"]["inform"]["total"], result["signature"]


def test_gold_active_domains_change_the_outcome(hand_built):
    assert _inform(hand_built)[0] == 0.0  # nothing offered in a predicted-active domain
    score, signature = _inform(hand_built, active_domains="gold")
    assert score == 100.0
    assert signature["fields"]["options"]["active_domains"] == "gold"
    assert "dialog_act" in signature["success_inputs"]["active_domains"]


def test_optimistic_sets_all_three_and_single_options_override(hand_built):
    score, signature = _inform(hand_built, optimistic=True)
    assert score == 100.0
    assert {k: signature["fields"]["options"][k] for k in ("matching", "name_constraints", "active_domains")} == {
        "matching": "intersection",
        "name_constraints": "name_only",
        "active_domains": "gold",
    }
    assert _inform(hand_built, optimistic=True, active_domains="predicted")[0] == 0.0
    default_options = _inform(hand_built)[1]["fields"]["options"]
    assert default_options["matching"] == "subset" and default_options["active_domains"] == "predicted"


def test_evaluate_module_takes_the_options(hand_built):
    module = evaluate.load("mwz_success")
    plain = module.compute(predictions=PREDICTIONS)
    optimistic = module.compute(predictions=PREDICTIONS, optimistic=True)
    assert plain["success"]["inform"]["total"] == 0.0
    assert optimistic["success"]["inform"]["total"] == 100.0
    single = module.compute(predictions=PREDICTIONS, active_domains="gold")
    assert single["signature"]["fields"]["options"]["active_domains"] == "gold"


def test_an_empty_state_naming_venues_every_turn_is_linear():
    """A state like {"train": {}} matches every venue; each mention compared the offered venues with the
    matching ones list against list (issue 43: 98 s for 1000 sessions). With 20,000 venues and 200
    mentions that is 4e10 comparisons (hours); as sets it is a fraction of a second, same outcome."""
    import time

    many = [f"t{i}" for i in range(20_000)]
    goal = {"train": {"informable": {"day": "monday"}, "requestable": ["TRAINID"]}}
    turns = 200
    started = time.perf_counter()
    outcome = success_lib.dialogue_success(
        goal,
        [[]] * turns,
        ["the TRAINID leaves at 9"] * turns,
        [{"train": {}}] * turns,
        [["train"]] * turns,
        lambda domain, constraints: many if not constraints else many[:1],
    )
    assert time.perf_counter() - started < 5
    # every train offered, only one meets the goal: subset matching fails, as with a list
    assert outcome.inform == {"train": False, "total": False}

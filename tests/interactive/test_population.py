"""A population of users (issue 49, item 2): each session draws its behaviours from its own seed, and over
the 1000 test goals the population's rates are the MultiWOZ 2.1 validation users' (each within their 95%
interval; the default user is outside five of the six), and ``mwz simulator realism`` says so."""

from __future__ import annotations

import random

import pytest

from mwz_metrics.interactive.harness import api
from mwz_metrics.interactive.user import profiles


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


@pytest.fixture()
def env(synth22_env):
    """The synth22 mirror for the test."""


def test_each_session_draws_its_own_user_from_its_seed_in_the_populations_shares(env, context):
    population = profiles.POPULATION
    draws = [population.draw(random.Random(i)) for i in range(4000)]
    for name, share in (*population.styles, *population.traits):
        found = sum(name in d for d in draws) / len(draws)
        assert abs(found - share) < 0.025, (name, found, share)
    assert not any({"terse", "eager"} <= set(d) for d in draws)  # one style a session at most

    run = api.prepare("oracle-text", goals=30, profile="population", context=context, seed=3)
    first, again = (api.run_sessions(run, output=None) for _ in range(2))
    drawn = [s["details"]["population"] for s in first]
    assert first == again  # the session's seed decides its user, and all it says
    assert len({tuple(d) for d in drawn}) > 5  # a different user from session to session
    other = api.prepare("oracle-text", goals=30, profile="population", context=context, seed=4)
    assert drawn != [s["details"]["population"] for s in api.run_sessions(other, output=None)]
    played = run.config["simulator"]["profile"]
    assert (played["name"], played["version"]) == ("population", "1.0.0")
    assert played["styles"] == dict(population.styles) and played["traits"] == dict(population.traits)


def test_the_populations_rates_are_the_real_validation_users(env, context):
    """On the 1000 test goals with oracle-text (what ``mwz simulator realism --profile population`` runs)."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.interactive.diagnostics import behaviour as figures
    from mwz_metrics.interactive.diagnostics.realism import _vocabulary, corpus_turns, session_turns

    validation = load_corpus("validation").dialogues
    vocabulary = _vocabulary(context, validation)
    intervals = figures.behaviour_intervals(corpus_turns(validation), vocabulary)
    assert intervals["first_turn_acts"] == pytest.approx((1.582, 1.644), abs=0.002)  # the real users'
    run = api.prepare("oracle-text", profile="population", context=context)
    sessions = api.run_sessions(run, output=None)
    measured = figures.behaviour(session_turns(sessions), vocabulary)
    for key, interval in intervals.items():
        assert figures.distance(measured[key], interval) == 0, (key, measured[key], interval)
    assert sum(s["complete"] for s in sessions) >= 990  # a realistic user, not a harder one for a system that listens


def test_realism_prints_the_distance_to_the_real_interval_and_the_no_offer_rates():
    from mwz_metrics.cli.realism_users import table

    behaviour = {"informs_per_user_turn": 1.09, "first_turn_acts": 1.47, "sessions_changing_a_value": 19.4}
    behaviour |= {"repeated_requests": 0.0, "misspelled_words": 0.32, "user_turns_with_two_domains": 0.0}
    distribution = dict.fromkeys(("system_turns_per_session", "words_per_user_turn", "distinct_1", "distinct_2"), 1.0)
    intervals = {k: [v - 0.01, v + 0.01] for k, v in behaviour.items()}
    user = {"oracle_histories": None, "distribution": distribution, "behaviour": behaviour}
    rates = {o: {"rate": 50.0, "ci95": [40.0, 60.0]} for o in ("changes", "answers", "other")}
    report = {
        "dialogues": 1000,
        "cheng_et_al_bleu": 17.92,
        "columns": {
            "population": {**user, "from_validation": dict.fromkeys(behaviour, 0.0)},
            "real (test)": {"distribution": distribution, "behaviour": behaviour},
            "real (validation)": {"distribution": distribution, "behaviour": behaviour, "ci95": intervals},
        },
        "no_offer": {"real": {"turns": 120, **rates}, "population": rates},
        "simulators": {"population": {"name": "agenda", "version": "2.1.0", "profile": {"name": "population", "version": "1.0.0"}}},
    }  # fmt: skip
    lines = table(report).splitlines()
    at = lines.index("distance to the validation users' 95% interval (0.00: within; bootstrap over dialogues)")
    assert lines[at + 2].split() == ["acts", "in", "a", "domain's", "first", "turn", "0.00", "[1.46,", "1.48]"]
    changes = next(line for line in lines if "changes a constraint" in line)
    assert changes.split()[-5:] == ["50.00", "n/a", "50.0", "[40,", "60]"]  # population, real (test), validation

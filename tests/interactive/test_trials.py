"""Trials per goal (pass^k, goal-resampled intervals, resume), detectable differences, paired comparisons
of interactive runs, and user profiles."""

from __future__ import annotations

import json
import random
from math import comb

import numpy as np
import pytest
from conftest import kill_9_then_resume

from mwz_metrics import power
from mwz_metrics.interactive.harness import api
from mwz_metrics.interactive.harness import sessions as session_files
from mwz_metrics.interactive.protocol import as_system, parse_session_id, session_id, session_seed
from mwz_metrics.interactive.scoring import trials


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


@pytest.fixture()
def env(synth22_env):
    """The synth22 mirror for the test."""


# -- pass^k against its definition -------------------------------------------------------------


def _scored(outcomes: dict[str, list[float | None]]) -> tuple[list[dict], list[dict]]:
    """Sessions and their per-session figures for goals with these Success outcomes per trial."""
    sessions, per_session = [], []
    for goal, values in outcomes.items():
        for trial, value in enumerate(values):
            sessions.append({"id": session_id(goal, trial), "trial": trial, "goal": {"dialogue_id": goal}})
            per_session.append({"id": session_id(goal, trial), "success": value})
    return sessions, per_session


def test_pass_hat_k_is_the_definition_computed_from_the_sessions():
    outcomes = {
        "g1": [1.0, 1.0, 1.0, 1.0],  # c = n
        "g2": [1.0, 0.0, 1.0, 0.0],  # c = 2 < k for k = 3, 4
        "g3": [0.0, 0.0, 0.0, 0.0],
        "g4": [1.0, 1.0, 1.0, 0.0],
        "g5": [1.0, None, 0.0, 1.0],  # a session mwzeval does not count: n = 3
    }
    sessions, per_session = _scored(outcomes)
    figures = trials.trial_figures(sessions, per_session, trials=4, resamples=200, seed=0)
    counted = {g: [v for v in vs if v is not None] for g, vs in outcomes.items()}
    for k in range(1, 5):
        expected = [comb(int(sum(v)), k) / comb(len(v), k) for v in counted.values() if len(v) >= k]
        assert figures["pass_hat_k"][str(k)] == pytest.approx(100 * sum(expected) / len(expected))
    assert figures["pass_hat_k"]["4"] == pytest.approx(100 * (1 + 0 + 0 + 0) / 4)  # g2 with c < k counts 0
    assert figures["all_trials"] == pytest.approx(20.0) and figures["no_trial"] == pytest.approx(20.0)  # g1; g3
    values = [figures["pass_hat_k"][str(k)] for k in range(1, 5)]
    assert values == sorted(values, reverse=True)


def test_pass_hat_k_never_rises_and_pass_1_is_the_mean_success():
    rng = random.Random(7)
    for _ in range(50):
        outcomes = {f"g{i}": [float(rng.random() < rng.random()) for _ in range(6)] for i in range(30)}
        sessions, per_session = _scored(outcomes)
        figures = trials.trial_figures(sessions, per_session, trials=6, resamples=0, seed=0)
        values = [figures["pass_hat_k"][str(k)] for k in range(1, 7)]
        assert all(a >= b - 1e-9 for a, b in zip(values, values[1:]))
        mean = 100 * np.mean([s["success"] for s in per_session])
        assert values[0] == pytest.approx(mean)


def test_the_goal_resampler_keeps_a_goals_trials_together_and_one_trial_as_before():
    from mwz_metrics import bootstrap

    single = trials.GoalResampler([[0], [1], [2], [3], [4]], 50, 3)
    assert np.array_equal(single.weights(), bootstrap.resample_weights(5, 50, 3))
    grouped = trials.GoalResampler([[0, 1], [2, 3], [4, 5]], 50, 3)
    weights = grouped.weights()
    assert weights.shape == (50, 6)
    assert np.array_equal(weights[:, 0], weights[:, 1]) and np.array_equal(weights[:, 4], weights[:, 5])
    assert np.array_equal(weights.sum(axis=1), np.full(50, 6))


def test_session_ids_and_seeds():
    assert session_id("pmul1", None) == "pmul1" and session_id("pmul1", 3) == "pmul1#3"
    assert parse_session_id("pmul1#3") == ("pmul1", 3) and parse_session_id("pmul1") == ("pmul1", None)
    assert session_seed(5, "pmul1", None)[0] == session_seed(5, "pmul1", 0)[0] == "5:pmul1"  # as before trials
    seeds = {session_seed(5, "pmul1", t)[1] for t in range(8)}
    assert len(seeds) == 8 and all(0 <= s < 2**31 for s in seeds)


# -- a system that succeeds with probability p, by the request's seed -------------------------


class CoinSystem:
    """The oracle in a session whose seed draws heads (probability ``p``); else no help, and after its
    first turn a malformed answer, which ends the session (a failure, and a short one)."""

    def __init__(self, oracle, p: float) -> None:
        self.oracle, self.p = oracle, p

    def respond(self, request):
        if random.Random(request["seed"]).random() < self.p:
            return self.oracle.respond(request)
        return {"response": "I am sorry, I cannot help with that."} if request["turn"] == 0 else []


def _coin_run(context, p, goals, k):
    run = api.prepare("oracle", goals=goals, trials=k, context=context)
    run.system = CoinSystem(run.system, p)
    sessions = api.run_sessions(run, output=None)
    return sessions, api.score(sessions, run.config, context=context, resamples=0, richness=False)


def test_a_system_succeeding_with_probability_p_gets_p_and_p_to_the_4(env, context):
    p, goals, k = 0.6, 200, 8
    sessions, result = _coin_run(context, p, goals, k)
    assert result["sessions"] == goals * k
    figures = result["trials"]
    half = 1.96 * np.sqrt(p * (1 - p) / (goals * k))
    assert abs(figures["pass_hat_k"]["1"] / 100 - p) <= half + 0.01  # the oracle itself fails a goal or two
    half4 = 1.96 * np.sqrt(p**4 * (1 - p**4) / goals)
    assert abs(figures["pass_hat_k"]["4"] / 100 - p**4) <= half4
    assert figures["pass_hat_k"]["1"] == pytest.approx(result["success"])
    # run again with the same seed (the first 25 goals, to keep the test fast: each session depends on
    # its seed, goal and trial alone): the same sessions, hence the same numbers
    again, rescored = _coin_run(context, p, 25, k)
    assert again == sessions[: 25 * k]
    first = trials.trial_figures(sessions[: 25 * k], result["per_session"][: 25 * k], trials=k, resamples=0, seed=0)
    assert rescored["trials"]["pass_hat_k"] == first["pass_hat_k"]


def test_trial_zero_is_the_run_without_trials_and_the_seed_reaches_the_system(env, context):
    seen = []

    def spy(request):
        seen.append((request["dialogue_id"], request.get("trial"), request["seed"]))
        return {"response": "sorry"}

    one = api.prepare("oracle-text", goals=3, context=context)
    four = api.prepare("oracle-text", goals=3, trials=4, context=context)
    plain = api.run_sessions(one, output=None)
    with_trials = api.run_sessions(four, output=None)
    first_goal = four.goals[0].dialogue_id
    assert [s["id"] for s in with_trials][:4] == [f"{first_goal}#{t}" for t in range(4)]
    firsts = [s for s in with_trials if s["trial"] == 0]
    assert [s["turns"] for s in firsts] == [s["turns"] for s in plain]
    assert len({json.dumps(s["turns"]) for s in with_trials if s["goal"] == plain[0]["goal"]}) > 1
    four.system = as_system(spy)
    api.run_sessions(four, output=None)
    assert {(d, t) for d, t, _ in seen} == {(g.dialogue_id, t) for g in four.goals for t in range(4)}
    assert len({s for _, _, s in seen}) == 12


# -- kill -9 and resume ----------------------------------------------------------------------


def test_kill_9_then_resume_with_trials_and_jobs_gives_the_uninterrupted_run(env, context, tmp_path, synth22):
    lines, resumed, uninterrupted, killed, whole = kill_9_then_resume(
        tmp_path, synth22, ["--goals", "10", "--trials", "4", "-j", "8", "--resamples", "100"], slow_after=12, kill_at=9
    )
    assert 9 <= lines < 41, lines
    assert resumed.returncode == 0, resumed.stderr
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    run_a, a = session_files.read(killed)
    run_b, b = session_files.read(whole)
    assert run_a == run_b and run_a["trials"] == 4
    keys = [(parse_session_id(s["id"])[0], s["trial"]) for s in a]
    assert len(keys) == len(set(keys)) == 40  # every (goal, trial) once: none lost, none run twice
    assert sorted(a, key=lambda s: s["id"]) == sorted(b, key=lambda s: s["id"])
    first, second = json.loads(resumed.stdout), json.loads(uninterrupted.stdout)
    for key in ("inform", "success", "complete", "turns", "ci95", "end_reasons", "trials"):
        assert first[key] == second[key], key
    assert first["signature"]["line"] == second["signature"]["line"] and "trials=4" in first["signature"]["line"]


# -- infrastructure failures ------------------------------------------------------------------


def test_infrastructure_ends_count_as_failures_unless_excluded(env, context):
    from mwz_metrics.interactive.protocol import SessionEnd

    run = api.prepare("oracle", goals=12, trials=2, context=context)
    oracle = run.system

    def flaky(request):
        if request["dialogue_id"] == run.goals[0].dialogue_id:
            raise SessionEnd("system_timeout", "no answer")
        return oracle.respond(request)

    run.system = as_system(flaky)
    sessions = api.run_sessions(run, output=None)
    counted = api.score(sessions, run.config, context=context, resamples=0)
    dropped = api.score(sessions, run.config, context=context, resamples=0, exclude_infra=True)
    assert counted["infrastructure"] == {"ends": {"system_timeout": 2}, "sessions": 2, "counted": "as failures"}
    assert counted["sessions"] == 24 and dropped["sessions"] == 22
    assert dropped["success"] > counted["success"]
    assert "infra=failures" in counted["signature"]["line"] and "infra=excluded" in dropped["signature"]["line"]


# -- detectable differences and paired comparisons ----------------------------------------------


def test_detectable_difference_and_plan_follow_the_normal_approximation():
    differences = [1.0, 0.0] * 50
    sd = np.std(differences, ddof=1)
    assert power.detectable_difference(differences) == pytest.approx(power.z_sum() * sd / 10)
    assert power.z_sum() == pytest.approx(1.959964 + 0.841621, abs=1e-5)
    between, within = power.variance_components({"a": [1, 1, 1, 1], "b": [0, 0, 0, 0], "c": [1, 0, 1, 0]})
    assert within == pytest.approx(1 / 9) and between > 0  # c's squares (1) over every goal's 3 degrees
    plan = power.plan(0.05, between, within)
    assert [row["trials"] for row in plan] == [1, 2, 4, 8]
    assert all(a["goals"] >= b["goals"] for a, b in zip(plan, plan[1:]))  # more trials, fewer goals


def test_compare_of_interactive_runs_pairs_them_and_states_the_detectable_difference(env, context, tmp_path, capsys):
    from conftest import run_cli

    for name, p in (("a", None), ("b", 0.5), ("c", 0.95)):
        run = api.prepare("oracle", goals=30, trials=2, context=context)
        if p is not None:
            run.system = CoinSystem(run.system, p)
        api.run_sessions(run, output=tmp_path / f"{name}.jsonl")
    inputs = [arg for name in "abc" for arg in ("-i", f"{name}={tmp_path / name}.jsonl")]
    resamples = 200
    code, out, err = run_cli(capsys, "compare", *inputs, "--resamples", str(resamples), "--plan", "5")
    assert code == 0, err
    assert "b - a, paired by goal and trial over 30 goals: Success" in out and "c - a, paired by goal and trial" in out
    # b's half of the sessions failing: no resample comes near, the smallest p-value there is, (0 + 1) / (R + 1)
    assert f"(p = {1 / (resamples + 1):.3f})" in out
    assert out.count("smallest Success difference detectable at this size") == 2
    assert "to detect 5 points:" in out and "goals x 8 trials" in out
    code, out, err = run_cli(capsys, "compare", *inputs, "--resamples", "200", "--format", "json")
    rows = {r["system"]: r for r in json.loads(out)["rows"] if r["metric"] == "success" and r["domain"] == "total"}
    assert "p_value" not in rows["a"] and rows["b"]["p_value"] < 0.05
    for name in "bc":
        difference = rows[name]["value"] - rows["a"]["value"]
        assert rows[name]["below_detectable"] == (abs(difference) < rows[name]["detectable"]), name
    assert not rows["b"]["below_detectable"] and 0 < rows["b"]["detectable"] < 30


def test_a_file_written_with_jobs_scores_as_one_written_without(env, context, tmp_path, capsys):
    from conftest import run_cli

    for name, jobs in (("one", 1), ("two", 4)):
        run = api.prepare("oracle-text", goals=20, trials=2, context=context)
        api.run_sessions(run, output=tmp_path / f"{name}.jsonl", jobs=jobs)
    outputs = []
    for name in ("one", "two"):
        code, out, err = run_cli(capsys, "compare", "-i", f"x={tmp_path / name}.jsonl", "--format", "json")
        assert code == 0, err
        outputs.append(json.loads(out)["rows"])
    assert outputs[0] == outputs[1]


# -- user profiles ----------------------------------------------------------------------------


def test_every_profile_moves_its_figure_and_oracle_text_still_succeeds(env, context):
    from mwz_metrics.interactive.diagnostics.behaviour import MOVED_BY
    from mwz_metrics.interactive.diagnostics.realism import SimulatedUser, measure_users

    users = []
    for profile in (None, "terse", "eager", "fickle", "impatient", "noisy", "multidomain"):
        run = api.prepare("oracle-text", goals=40, profile=profile, context=context)
        sessions = api.run_sessions(run, output=None)
        result = api.score(sessions, run.config, context=context, resamples=0, richness=False)
        assert result["success"] >= 90.0, (profile, result["success"])
        assert all(t.get("acts") is not None for s in sessions for t in s["turns"] if t["speaker"] == "user")
        users.append(SimulatedUser(profile or "default", run.simulator, sessions))
    report = measure_users(context, users, dialogues=40, histories={"default", "impatient"})
    columns = report["columns"]
    for key, (profile, direction) in MOVED_BY.items():
        if key == "repeated_requests":
            mine, default = (columns[n]["oracle_histories"]["requests_repeated"] for n in (profile, "default"))
        else:
            mine, default = (columns[n]["behaviour"][key] for n in (profile, "default"))
        assert (mine < default) if direction.startswith("down") else (mine > default), (key, mine, default)


def test_echo_stays_a_failure_under_every_profile(env, context):
    for profile in (None, "terse", "eager", "fickle", "impatient", "noisy", "multidomain"):
        run = api.prepare("echo", goals=40, profile=profile, context=context)
        result = api.score(api.run_sessions(run, output=None), run.config, context=context, resamples=0)
        assert result["success"] <= 5.0, (profile, result["success"])


def test_noise_reaches_the_words_only_and_profiles_are_in_the_signature(env, context):
    from mwz_metrics.interactive.user.profiles import typo

    clean = api.run_sessions(api.prepare("oracle", goals=10, context=context), output=None)
    run = api.prepare("oracle", goals=10, profile="noisy", context=context)
    noisy = api.run_sessions(run, output=None)
    users = [(t, u) for a, b in zip(clean, noisy) for t, u in zip(a["turns"], b["turns"]) if t["speaker"] == "user"]
    assert all(t["acts"] == u["acts"] for t, u in users)  # the same acts (the oracle reads them), other words
    assert any(t["text"] != u["text"] for t, u in users)
    result = api.score(noisy, run.config, context=context, resamples=0)
    # agenda 2.1.0: a no-offer is heard before a request of the same turn (issue 49, item 4)
    assert "simulator=agenda@2.1.0+noisy@1.0.0" in result["signature"]["line"]
    assert typo("restaurant", random.Random(1)) != "restaurant"


def test_profiles_are_registered_plugins_with_their_modules_versions():
    from mwz_metrics.interactive.user import profiles
    from mwz_plugins import get_registry

    registry = get_registry()
    # population: a user drawn per session at the real users' rates (issue 49, item 2)
    assert set(registry.profiles) == {"terse", "eager", "fickle", "impatient", "noisy", "multidomain", "population"}
    for name, entry in registry.profiles.items():
        profile = getattr(profiles, name.upper())
        assert (profile.name, profile.version) == (name, entry.version)


def test_interact_profiles_prints_success_per_profile(env, context, tmp_path, capsys):
    from conftest import run_cli

    out_file = tmp_path / "runs" / "o.jsonl"
    code, out, err = run_cli(
        capsys, "interact", "--system", "oracle-text", "--goals", "6", "--profile", "terse", "--profile", "noisy",
        "-o", str(out_file), "--resamples", "100",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[2:5]] == ["default", "terse", "noisy"]
    assert (tmp_path / "runs" / "o.terse.jsonl").exists() and (tmp_path / "runs" / "o.noisy.jsonl").exists()


def test_realism_measures_a_registered_simulator_through_the_stub_chat_server(env, context, capsys):
    from chat_stub import ChatStub
    from conftest import run_cli

    with ChatStub(context, "user") as stub:
        code, out, err = run_cli(
            capsys, "simulator", "realism", "--simulator", "llm", "--endpoint", stub.endpoint, "--model", "stub",
            "--goals", "4",
        )  # fmt: skip
    assert code == 0, err
    assert stub.requests > 0
    header = out.splitlines()[1].split()
    assert header[0] == "llm" and "real" in header
    bleu = next(line for line in out.splitlines() if line.strip().startswith("BLEU")).split()
    assert bleu[1] != "n/a"  # oracle histories through the endpoint


def test_interact_plans_goals_and_trials_from_a_pilot_run(env, context, tmp_path, capsys):
    from conftest import run_cli

    code, out, err = run_cli(
        capsys, "interact", "--system", "oracle-text", "--simulator-option", "patience=1", "--goals", "10",
        "--trials", "2", "--plan", "5", "-o", str(tmp_path / "pilot.jsonl"), "--resamples", "0",
    )  # fmt: skip
    assert code == 0, err
    assert "to detect 5 points of Success against another system" in out
    planned = [line for line in out.splitlines() if "trial(s) per goal" in line]
    assert [line.split()[0] for line in planned] == ["1", "2", "4", "8"]

"""Training across users (issue 49, item 3): an environment plays one user profile, or draws one per
episode from a list, reproducibly from the episode's seed, and names it in the episode's record; the
example's ``--hold-out`` keeps a profile out of the training episodes while the curve still measures it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("stable_baselines3")

from mwz_metrics.training.system_envs import SystemActsEnv  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
USERS = ["default", "terse", "impatient", "population"]


def _episode(env, **reset) -> dict:
    """One episode played by the reference policy's choices; the last step's info."""
    _obs, info = env.reset(**reset)
    done = False
    while not done:
        _obs, _reward, terminated, truncated, info = env.step(info["expert_action"])
        done = terminated or truncated
    return info


def test_the_environment_draws_its_user_per_episode_from_the_seed(synth22_env, synth22_context):
    """Each episode plays one of the listed profiles, drawn from its seed: the same seeds give the same users
    (in a second environment too, and with the environment's own seed and then none); the episode's info
    names the user, and its session is scored under that profile's run configuration (the signature's
    simulator names it, as ``mwz interact --profile`` would)."""
    first = SystemActsEnv(context=synth22_context, goals=5, max_turns=6, profile=USERS)
    second = SystemActsEnv(context=synth22_context, goals=5, max_turns=6, profile=",".join(USERS))
    drawn = [first.reset(seed=seed)[1]["profile"] for seed in range(40)]
    assert drawn == [second.reset(seed=seed)[1]["profile"] for seed in range(40)]
    assert set(drawn) == set(USERS)  # every user is drawn, none other
    assert [first.reset(seed=seed)[1]["profile"] for seed in range(40)] == drawn  # reset again: the same

    def unseeded(env) -> list[tuple[str, str, int]]:
        _obs, info = env.reset(seed=11)
        played = [(info["profile"], info["dialogue_id"], info["session_seed"])]
        for _ in range(15):
            _obs, info = env.reset()
            played.append((info["profile"], info["dialogue_id"], info["session_seed"]))
        return played

    assert unseeded(first) == unseeded(second)
    assert len({profile for profile, _goal, _seed in unseeded(first)}) > 1

    for profile in USERS:
        seed = drawn.index(profile)
        info = _episode(first, seed=seed)
        assert info["profile"] == profile and info["session_seed"] == seed
        simulator = first.run.users[profile].config["simulator"]
        assert first.run.users[profile].config["environment"]["profiles"] == USERS
        named = "simulator=agenda@2.1.0" + ("" if profile == "default" else f"+{profile}@1.0.0") + ","
        assert named in info["signature"], info["signature"]
        assert (simulator.get("profile") or {}).get("name") == (None if profile == "default" else profile)
        if profile == "population":  # the behaviours it drew, in the session record
            assert "population" in info["session"]["details"]
    chosen = _episode(first, seed=drawn.index("default"), options={"profile": "terse"})  # the caller's choice
    assert chosen["profile"] == "terse" and "+terse@1.0.0," in chosen["signature"]
    with pytest.raises(ValueError, match="'eager' is not among this environment's users"):
        first.reset(seed=0, options={"profile": "eager"})

    one = SystemActsEnv(context=synth22_context, goals=5, max_turns=6, profile="population")
    assert {one.reset(seed=seed)[1]["profile"] for seed in range(10)} == {"population"}
    assert "environment" in one.run.config and "profiles" not in one.run.config["environment"]


def test_hold_out_keeps_a_profile_out_of_training_episodes(synth22_env, synth22_context, tmp_path, monkeypatch, capsys):
    """``--hold-out terse``: no training episode (imitation's or PPO's) plays the terse user, while the
    curve measures it on the held-out goals beside the users trained against."""
    played: list[tuple[str, str, bool]] = []  # (user, goal, asked for by the caller) of every episode
    reset = SystemActsEnv.reset

    def recording(self, *, seed=None, options=None):
        observation, info = reset(self, seed=seed, options=options)
        played.append((info["profile"], info["dialogue_id"], bool((options or {}).get("profile"))))
        return observation, info

    monkeypatch.setattr(SystemActsEnv, "reset", recording)
    sys.path.insert(0, str(EXAMPLES))
    try:
        train_policy = __import__("train_policy")
    finally:
        sys.path.remove(str(EXAMPLES))
    argv = ["--out", str(tmp_path), "--profiles", "default,terse,impatient", "--hold-out", "terse"]
    argv += ["--teacher", "reference", "--imitation-episodes", "30", "--imitation-epochs", "1"]
    argv += ["--steps", "512", "--eval-every", "512", "--envs", "1", "--held-out", "4", "--seed", "2"]
    assert train_policy.main(argv, context=synth22_context) == 0
    meta = json.loads((tmp_path / "policy.json").read_text())
    assert meta["signature"]["users"]["trained"] == ["default", "impatient"]
    assert meta["signature"]["users"]["held_out"] == ["terse"]
    curve = json.loads((tmp_path / "curve.json").read_text())
    assert curve == meta["curve"] and len(curve) == 3  # initial, imitation, 512 PPO steps
    assert all(list(point["users"]) == ["default", "impatient", "terse"] for point in curve)
    assert all(point["held_out_users"] == ["terse"] for point in curve)
    held_goals = {goal for _user, goal, asked in played if asked}  # the curve's episodes
    assert len(held_goals) == 4
    training = [(user, goal) for user, goal, asked in played if not asked]
    assert len(training) > 60  # imitation's 30 sessions and PPO's 512 steps
    assert not held_goals & {goal for _user, goal in training}
    assert {user for user, _goal in training} == {"default", "impatient"}  # never terse
    out = capsys.readouterr().out
    assert f"policy saved to {tmp_path / 'policy.zip'}" in out and "terse*" in out

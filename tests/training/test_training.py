"""Training against the simulator (mwz_metrics.training): the environments are the sessions and the
scores of ``mwz interact``, Gymnasium's and stable-baselines3's checkers accept them, and PPO learns."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import run_cli

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("stable_baselines3")

from mwz_metrics.interactive.acts import parse_acts  # noqa: E402
from mwz_metrics.interactive.harness import api  # noqa: E402
from mwz_metrics.interactive.language.extract import signature  # noqa: E402
from mwz_metrics.training import envs  # noqa: E402, F401  (registers the environments)
from mwz_metrics.training.records import RewardError, RewardSpec  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GOALS = 50


def _play(env, goal: str, seed: int, choose) -> tuple[dict, float]:
    """One episode: ``choose(observation, info)`` gives each action; the session record and the last reward."""
    obs, info = env.reset(seed=seed, options={"goal": goal})
    done, reward = False, 0.0
    while not done:
        obs, reward, terminated, truncated, info = env.step(choose(obs, info))
        done = terminated or truncated
    return info, reward


def _without_report(session: dict) -> dict:
    return {
        k: v for k, v in session.items() if k not in ("system_report", "outcome")
    }  # outcome: what mwz interact adds when it writes


# -- the reward specification ----------------------------------------------------------------------


def test_reward_spec_reads_cheng_and_convlab_spellings():
    spec = RewardSpec.parse("success+0.1*inv_sent+0.1*sess")
    assert spec.weights == (("success", 1.0), ("inv_sent", 0.1), ("sess", 0.1))
    assert spec.metrics == ("fluency", "coherence")
    assert RewardSpec.parse(spec.text) == spec
    penalty = RewardSpec.parse("success - 0.05*turns")
    assert penalty.value({"success": 1.0, "turns": 4}) == pytest.approx(0.8)
    assert penalty.text == "success-0.05*turns"
    with pytest.raises(RewardError, match="bleu"):
        RewardSpec.parse("success+bleu")


def test_reasked_counts_the_systems_requests_for_what_the_user_gave():
    """A request for a slot the user gave (a value or "don't care"; a ``booking`` request is about the
    domain the user last spoke of) counts, each time; a request for what is missing does not."""
    from mwz_metrics.training.scorer import reasked

    def turn(speaker: str, *acts: str) -> dict:
        return {"speaker": speaker, "text": "", "acts": [a.split() for a in acts]}

    session = {
        "turns": [
            turn("user", "inform restaurant food italian"),
            turn("system", "request restaurant food ?", "request restaurant area ?"),  # food: given
            turn("user", "inform restaurant area dontcare", "inform restaurant people 2"),
            turn("system", "request booking people ?", "request booking time ?"),  # people: given (restaurant)
            turn("user", "inform hotel none none"),
            turn("system", "request booking people ?", "request hotel area ?"),  # the hotel's: not given
            turn("user", "inform hotel area north"),
            turn("system", "request hotel area ?", "request restaurant area ?"),  # both given
        ]
    }
    assert reasked(session) == 4
    assert reasked({"turns": session["turns"][:2]}) == 1
    assert reasked({"turns": []}) == 0
    spec = RewardSpec.parse("success-0.1*reasked")
    assert spec.value({"success": 1.0, "reasked": 4.0}) == pytest.approx(0.6)


def test_the_act_environment_charges_each_request_for_what_the_user_gave(synth22_env, synth22_context):
    """With ``reward="success-0.1*reasked"`` an episode whose agent asks, every turn, for the first slot the
    user gave is charged 0.1 for each of those requests: ``info["figures"]["reasked"]`` counts them."""
    from mwz_metrics.training.scorer import reasked
    from mwz_metrics.training.system_envs import SystemActsEnv

    env = SystemActsEnv(context=synth22_context, goals=5, max_turns=5, reward="success-0.1*reasked")
    level = env.level
    for seed in range(20):  # an episode whose user gives a slot in its first turn that one request asks for
        _obs, info = env.reset(seed=seed)
        given = [a for a in parse_acts(info["history"][-1]["acts"]) if a.intent == "inform" and a.slot != "none"]
        keys = [(f"request|{a.domain}|{a.slot}|none",) for a in given]
        if any(k in level.index for k in keys):
            break
    ask = level.index[next(k for k in keys if k in level.index)]
    done, reward = False, 0.0
    while not done:
        _obs, reward, terminated, truncated, info = env.step(ask)
        done = terminated or truncated
    charged = info["figures"]["reasked"]
    assert charged == reasked(info["session"]) >= 4  # asked at each of the 5 turns, the user had said it
    assert reward == pytest.approx(info["figures"]["success"] - 0.1 * charged)


# -- Gymnasium -------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", [envs.TEXT_ID, envs.ACTS_ID, envs.USER_ID])
def test_gymnasium_makes_and_checks_each_environment(env_id, synth22_env, synth22_context):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(env_id, context=synth22_context, goals=5, max_turns=4)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert info["split"] == "validation" and info["evaluation"] is False
    assert info["reward_spec"]["spec"] == "success"
    env.close()


def test_stable_baselines_checks_the_act_environment(synth22_env, synth22_context):
    from stable_baselines3.common.env_checker import check_env

    from mwz_metrics.training.system_envs import SystemActsEnv

    check_env(SystemActsEnv(context=synth22_context, goals=5, max_turns=4), warn=True)


def test_vector_environments_run(synth22_env, synth22_context):
    from mwz_metrics.training.system_envs import SystemActsEnv

    def make():
        return SystemActsEnv(context=synth22_context, goals=10, max_turns=6)

    for vector in (gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv):
        env = vector([make, make])
        obs, _info = env.reset(seed=[3, 4])
        ended = 0
        for _ in range(12):
            obs, reward, terminated, truncated, _info = env.step(env.action_space.sample())
            ended += int((terminated | truncated).sum())
        assert obs.shape == (2, env.single_observation_space.shape[0])
        assert ended >= 2  # sessions ended and the vector reset them
        env.close()


# -- the sessions are mwz interact's ----------------------------------------------------------------


def test_text_environment_plays_mwz_interacts_sessions(synth22_env, synth22_context):
    """oracle-text as the policy: the environment's sessions and scores are mwz interact's (50 goals)."""
    from mwz_metrics.interactive.systems.reference import OracleSystem
    from mwz_metrics.training.system_envs import SystemTextEnv

    run = api.prepare("oracle-text", goals=GOALS, seed=7, context=synth22_context)
    expected = api.run_sessions(run, output=None)
    scored = api.score(expected, run.config, context=synth22_context, resamples=0)
    success = {s["id"]: s["success"] for s in scored["per_session"]}
    oracle = OracleSystem(synth22_context, with_acts=False)
    # a reference system reads the user's acts whatever the run says: mwz interact records user_acts=true
    env = SystemTextEnv(context=synth22_context, split="test", goals=[s["id"] for s in expected], user_acts=True)
    for session in expected:
        info, reward = _play(env, session["id"], 7, lambda obs, info: oracle.respond(info))
        assert info["evaluation"] is True  # test goals say so
        assert _without_report(info["session"]) == _without_report(session)
        assert reward == success[session["id"]]
    assert sum(success.values()) > 0.9 * GOALS


def test_act_environment_plays_what_mwz_interact_scores_of_the_policy(
    synth22_env, synth22_context, capsys, monkeypatch, tmp_path, request
):
    """The reference policy's acts through the act vocabulary: the environment's sessions and rewards are
    those ``mwz interact --system policy_system:make --system-option policy=oracle --user-acts`` records."""
    from mwz_metrics.training import act_level
    from mwz_metrics.training.system_envs import SystemActsEnv

    monkeypatch.chdir(EXAMPLES)
    request.addfinalizer(lambda: sys.modules.pop("policy_system", None))  # imported from examples/, pass or fail
    out = tmp_path / "policy.jsonl"
    argv = ["interact", "--system", "policy_system:make", "--system-option", "policy=oracle", "--user-acts"]
    code, _out, err = run_cli(capsys, *argv, "--goals", str(GOALS), "--seed", "2", "-o", str(out))
    assert code == 0, err
    config, sessions = api.load_session_file(out)
    assert config["system"]["policy"] == "oracle" and config["system"]["act_level"]["version"] == act_level.VERSION
    scored = api.score(sessions, config, context=synth22_context, resamples=0)
    success = {s["id"]: s["success"] for s in scored["per_session"]}
    env = SystemActsEnv(context=synth22_context, split="test", goals=[s["id"] for s in sessions])
    for session in sessions:
        info, reward = _play(env, session["id"], 2, lambda obs, info: info["expert_action"])
        assert _without_report(info["session"]) == _without_report(session)
        assert reward == success[session["id"]]
    assert scored["success"] >= 95.0  # the reference policy, said by the wizards' act sets


def test_a_saved_policy_acts_the_same_from_two_threads(synth22_env, synth22_context, tmp_path):
    """``mwz interact -j 2`` asks a policy system for two sessions' actions at once: each action is the one
    it gives alone (stable-baselines3's predict keeps its action distribution on the policy object)."""
    import threading

    from stable_baselines3 import PPO

    from mwz_metrics.training import act_level
    from mwz_metrics.training.policy_system import PolicySystem
    from mwz_metrics.training.system_envs import SystemActsEnv

    env = SystemActsEnv(context=synth22_context, goals=10, max_turns=8)
    PPO("MlpPolicy", env, seed=0, device="cpu").save(tmp_path / "policy.zip")  # untrained: its actions vary
    meta = {"signature": {"act_level": {"version": act_level.VERSION}}, "vocabulary": env.level.vocabulary}
    (tmp_path / "policy.json").write_text(json.dumps(meta))
    system = PolicySystem(synth22_context, str(tmp_path / "policy.zip"))
    readings = []
    for seed in range(10):
        _obs, info = env.reset(seed=seed)
        done = False
        while not done:
            readings.append(env._reading)
            _obs, _reward, terminated, truncated, info = env.step(info["expert_action"])
            done = terminated or truncated
    readings = readings * (2000 // len(readings) + 1)
    alone = [system.action(r) for r in readings]
    assert len(set(alone)) > 1
    together: list[int | None] = [None] * len(readings)

    def act(start: int) -> None:
        for i in range(start, len(readings), 2):
            together[i] = system.action(readings[i])

    threads = [threading.Thread(target=act, args=(k,)) for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert together == alone


def test_reset_replays_a_session_file(synth22_env, synth22_context, capsys, tmp_path):
    """reset(seed=S, options={"goal": ID}) then the file's system turns: the file's user turns and,
    at the end, its Success."""
    from mwz_metrics.training.system_envs import SystemTextEnv

    out = tmp_path / "oracle.jsonl"
    code, _out, err = run_cli(
        capsys, "interact", "--system", "oracle-text", "--goals", "8", "--seed", "5", "-o", str(out)
    )
    assert code == 0, err
    config, sessions = api.load_session_file(out)
    scored = api.score(sessions, config, context=synth22_context, resamples=0)
    success = {s["id"]: s["success"] for s in scored["per_session"]}
    env = SystemTextEnv(context=synth22_context, split="test", goals=[s["id"] for s in sessions])
    for session in sessions:
        users = [t["text"] for t in session["turns"] if t["speaker"] == "user"]
        systems = [t for t in session["turns"] if t["speaker"] == "system"]
        obs, info = env.reset(seed=5, options={"goal": session["id"]})
        seen = [obs]
        for turn in systems:
            obs, reward, terminated, truncated, info = env.step({"response": turn["text"], "state": turn.get("state")})
            if not (terminated or truncated):
                seen.append(obs)
        assert seen == users
        assert terminated or truncated
        assert reward == success[session["id"]] and reward in (0.0, 1.0)
        assert info["reward_spec"]["spec"] == "success" and "reward=success" in info["signature"]


def test_user_environment_scores_the_agent_as_a_user(synth22_env, synth22_context):
    """The agent replays a test dialogue's user turns against the oracle: the session is scored."""
    from mwz_metrics.training.user_env import UserEnv

    goal = next(iter(synth22_context.goals))
    env = UserEnv(context=synth22_context, system="oracle", split="test", goals=[goal])
    obs, info = env.reset(seed=0, options={"goal": goal})
    assert obs and info["goal"]["dialogue_id"] == goal
    turns = synth22_context.test[goal]["user_turns"]
    for i, turn in enumerate(turns):
        obs, reward, terminated, truncated, info = env.step({**turn, "final": i == len(turns) - 1})
        if terminated or truncated:
            break
    assert terminated and info["end"] == "user_done"
    assert info["figures"]["success"] == reward
    env.close()


# -- training --------------------------------------------------------------------------------------


def _example(name: str):
    sys.path.insert(0, str(EXAMPLES))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(EXAMPLES))


def test_training_refuses_test_goals_unless_told(tmp_path, capsys):
    train_policy = _example("train_policy")
    assert train_policy.main(["--out", str(tmp_path), "--split", "test"]) == 2
    assert "--allow-test-goals" in capsys.readouterr().err


def test_short_training_beats_the_random_policy(synth22_env, synth22_context, tmp_path):
    """The example script on a short budget (imitation of the wizards' turns, 1024 PPO steps): the
    held-out Success is above the random policy's, and what is written carries the reward specification."""
    from mwz_metrics.training import ppo
    from mwz_metrics.training.system_envs import SystemActsEnv

    train_policy = _example("train_policy")
    held = 30  # validation goals held out of training: the curve's, and the random policy's below
    argv = ["--steps", "1024", "--imitation-epochs", "5", "--value-episodes", "20", "--held-out", str(held)]
    assert (
        train_policy.main(
            ["--out", str(tmp_path), *argv, "--eval-every", "1024", "--envs", "2", "--seed", "3"],
            context=synth22_context,
        )
        == 0
    )
    assert (tmp_path / "policy.zip").is_file()
    meta = json.loads((tmp_path / "policy.json").read_text())
    assert meta["signature"]["reward"]["spec"] == "success-0.1*reasked"  # the default
    assert meta["signature"]["options"]["teacher"] == "wizards"  # the default
    _train, held_out = ppo._goal_ids(synth22_context, ppo.TrainingOptions(held_out=held))
    random_env = SystemActsEnv(context=synth22_context, goals=held_out)
    random_env.action_space.seed(3)
    random = ppo.evaluate(None, random_env, held_out, seed=3)
    trained = max(p["success"] for p in meta["curve"][1:])
    assert trained > random["success"] + 30, (meta["curve"], random)


def test_wizard_demonstrations_are_the_wizards_act_sets_of_training_dialogues(synth22_env, synth22_context):
    """Imitation reads each validation wizard turn as a system would and labels it with the wizard's act
    set; the held-out goals' dialogues are left out; test wizards are never read."""
    from mwz_metrics.training import imitation, ppo, wizards
    from mwz_metrics.training.act_level import ActLevel

    level = ActLevel(synth22_context)
    training, held_out = ppo._goal_ids(synth22_context, ppo.TrainingOptions(held_out=50))
    first = wizards.dialogues(synth22_context)[1]  # the 0th is held out (every total // 50-th from 0)
    assert first["key"] in training and wizards.dialogues(synth22_context)[0]["key"] in held_out
    data = imitation.wizard_demonstrations(level, synth22_context, "validation", [first["key"]])
    said = [e for e in first["history"] if e["speaker"] == "system" and e["acts"]]
    assert len(data["actions"]) == len(said)
    for index, entry in zip(data["actions"], said):
        expected = (signature(parse_acts(entry["acts"])),)
        if expected in level.index:
            assert level.vocabulary[index] == expected
    everything = imitation.wizard_demonstrations(level, synth22_context, "validation", training)
    assert 0.6 < float(everything["exact"]) < 1.0
    assert len(everything["actions"]) < sum(
        1 for d in wizards.dialogues(synth22_context) for e in d["history"] if e["speaker"] == "system" and e["acts"]
    )  # the held-out dialogues' turns are not there
    with pytest.raises(ValueError, match="never learnt from"):
        wizards.dialogues(synth22_context, "test")


def test_vocabulary_is_the_wizards_most_frequent_act_sets(synth22_env, synth22_context):
    from mwz_metrics.training import act_level, wizards

    counts = wizards.act_sets(synth22_context)
    vocabulary = act_level.vocabulary(synth22_context)
    assert len(vocabulary) == act_level.SIZE and all(len(entry) == 1 for entry in vocabulary)
    frequencies = [counts[entry[0]] for entry in vocabulary]
    assert frequencies == sorted(frequencies, reverse=True)
    assert vocabulary[0] == [counts.most_common(1)[0][0]]  # "bye|general|none|none"


def test_reference_teacher_and_unknown_teachers(synth22_env, synth22_context, tmp_path):
    """``teacher="reference"`` imitates the reference rule policy's choices; an unknown teacher is refused."""
    from mwz_metrics.training import ppo

    said: list[str] = []
    options = ppo.TrainingOptions(
        steps=0, teacher="reference", imitation_episodes=30, imitation_epochs=5, held_out=5, envs=1
    )
    meta = ppo.train(tmp_path, options, context=synth22_context, log=said.append)
    assert [p["stage"] for p in meta["curve"]] == ["initial", "imitation"]
    assert any("reference turns of 30 sessions" in line for line in said), said
    with pytest.raises(ValueError, match="teacher 'teachers'"):
        ppo.train(tmp_path, ppo.TrainingOptions(teacher="teachers"), context=synth22_context)


def test_train_split_where_the_copy_has_none_is_one_clear_line(synth22_env, synth22_context, tmp_path, capsys):
    """``split="train"`` reads the 2.1 train goals where the full file is present; the mirror's copy has
    validation and test only, which the script says in one line (exit 2)."""
    from mwz_metrics.inputs import InputError
    from mwz_metrics.training import splits

    with pytest.raises(InputError, match="MultiWOZ 2.1 train: no dialogues in .*without the train split"):
        splits.goals(synth22_context, "train")
    train_policy = _example("train_policy")
    assert train_policy.main(["--out", str(tmp_path), "--split", "train"], context=synth22_context) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no dialogues" in err


def test_the_readmes_language_model_loop_runs(synth22_env, synth22_context):
    """The training page's reset/generate/step loop (docs/training.md), as a user copies it, with a stand-in model and trainer
    (three episodes): each episode ends with the session's Success as its reward."""
    import builtins

    readme = (EXAMPLES.parent / "docs" / "training.md").read_text(encoding="utf-8")
    code = readme.split("<!-- example-llm-training -->", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    rewards: list[float] = []
    prompts: list[str] = []

    def generate(prompt: str) -> str:
        prompts.append(prompt)
        return "[value_name] is in the [value_area] . their phone number is [value_phone] ."

    def update(transcript: list, reward: float) -> None:
        assert transcript and all(isinstance(p, str) and isinstance(r, str) for p, r in transcript)
        rewards.append(reward)

    namespace = {"generate": generate, "update": update, "range": lambda n: builtins.range(min(n, 3))}
    exec(compile(code, "docs/training.md", "exec"), namespace)
    assert len(rewards) == 3 and all(r in (0.0, 1.0) for r in rewards)
    assert prompts[0].startswith("user: ")

"""PPO on ``mwz/MultiWOZ-SystemActs-v0`` (stable-baselines3; no RL algorithm of our own), warm-started
by imitation: what ``examples/train_policy.py`` runs.

1. **Imitation** (behaviour cloning into the PPO policy network, as ConvLab's MLE policy; see
   :mod:`.imitation`): by default of the validation wizards' own act sets in the training dialogues
   (``teacher="wizards"``), the value head then fitted on the cloned policy's sessions; or of the
   reference rule policy's choices while it plays the training goals (``teacher="reference"``); or
   none (``teacher="none"``, PPO from scratch).
2. **PPO** on validation goals, reward the session's score (by default mwzeval's Success less 0.1 for
   each request for a slot the user had already given, :func:`.scorer.reasked`: with every user trained
   against, asking again for what was said costs nothing, as they answer every request at once; a user
   who answers one thing a turn is then asked the same thing forever), against a mixture of users: each
   episode plays one of ``profiles`` (by default the default user and every registered profile,
   :data:`ALL`), drawn from its session seed (:func:`.sessions.draw`), less those of ``hold_out``.
3. **The curve**: Success of the deterministic policy on held-out validation goals (never trained on:
   neither their goals nor their wizards' turns), with each user of the mixture and each held-out profile,
   before and after imitation and every ``eval_every`` PPO steps; the policy kept is the best point's by
   the mean over the training users (the held-out profiles never choose it).

Everything is seeded (``seed``): the goals drawn, the users drawn, the sessions, the networks.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mwz_metrics.training import imitation, splits
from mwz_metrics.training.sessions import DEFAULT_USER, profile_names
from mwz_plugins.errors import InputError

logger = logging.getLogger(__name__)

GAMMA = 0.99  # PPO's discount, and the imitation returns'
ALL = "all"  # the profiles: the default user and every registered profile the simulator plays


@dataclasses.dataclass
class TrainingOptions:
    """The defaults fit a 2-core CPU in well under 20 minutes."""

    steps: int = 400_000  # PPO environment steps (against the mixture of users the curve still climbs at 100,000)
    seed: int = 0
    teacher: str = "wizards"  # imitated before PPO: "wizards", "reference" or "none" (see .imitation)
    imitation_epochs: int = 20
    value_episodes: int = 300  # wizards: sessions of the cloned policy its value head is fitted on
    imitation_episodes: int = 1500  # reference: sessions it plays
    explore: float = 0.2  # reference: the share of its turns acted at random (labelled with its choice)
    held_out: int = 200  # validation goals kept out of training, for the curve
    eval_every: int = 20_000
    envs: int = 4
    reward: str = "success-0.1*reasked"  # a request for what the user gave costs (see .scorer.reasked)
    simulator: str = "agenda"
    split: str = "validation"
    learning_rate: float = 5e-5
    allow_test_goals: bool = False
    profiles: str = ALL  # the users trained against: "all" or names, comma-separated ("default": no profile)
    hold_out: str = ""  # profiles left out of training (comma-separated), still in the curve


def users(options: TrainingOptions) -> tuple[list[str], list[str]]:
    """The users trained against and the profiles held out of training (the curve has both). A profile
    that plays a held-out one in some of its sessions (the population draws terse users) is held out with
    it (:func:`held_out_with`): no training episode plays a held-out profile's behaviour."""
    held = _held(options)
    held += list(held_out_with(options))
    training = [n for n in _listed(options) if n not in held]
    if not training:
        raise InputError(f"--profiles {options.profiles} --hold-out {options.hold_out}: no user left to train against")
    return training, held


def held_out_with(options: TrainingOptions) -> dict[str, list[str]]:
    """The profiles of the mixture held out because some of their sessions play a held-out profile (the
    population's styles and traits), and which."""
    held = _held(options)
    found: dict[str, list[str]] = {}
    for name in _listed(options) if held else []:
        drawn = [h for h in held if h in _draws(name, options.simulator)] if name not in held else []
        if drawn:
            found[name] = drawn
    return found


def _listed(options: TrainingOptions) -> list[str]:
    """The users ``profiles`` names, each once (``all`` read)."""
    names: list[str] = []
    for name in profile_names(options.profiles):
        names += _registered(options.simulator) if name == ALL else [name]
    return list(dict.fromkeys(names))


def _held(options: TrainingOptions) -> list[str]:
    """The profiles ``hold_out`` names, each once."""
    return list(dict.fromkeys(profile_names(options.hold_out))) if options.hold_out.strip() else []


def _draws(name: str, simulator: str) -> set[str]:
    """The profiles whose behaviour some sessions of ``name`` play (a population's styles and traits)."""
    if name == DEFAULT_USER:
        return set()
    from mwz_metrics.interactive.harness.loading import load_profile

    profile = load_profile(name, simulator)
    return {n for n, _share in (*getattr(profile, "styles", ()), *getattr(profile, "traits", ()))}


def _registered(simulator: str) -> list[str]:
    """The default user and every registered profile ``simulator`` plays, by name."""
    from mwz_plugins import get_registry

    profiles = get_registry().profiles
    return [DEFAULT_USER, *sorted(n for n, entry in profiles.items() if simulator in entry.simulators)]


def _goal_ids(context: Any, options: TrainingOptions) -> tuple[list[str], list[str]]:
    """Training and held-out goal ids of the split."""
    ids = list(splits.goals(context, options.split))
    kept = splits.held_out(options.held_out, len(ids))
    return [g for i, g in enumerate(ids) if i not in kept], [g for i, g in enumerate(ids) if i in kept]


def _env(context: Any, goals: list[str], options: TrainingOptions, profiles: list[str] | None = None) -> Any:
    """The act environment on ``goals`` against ``profiles`` (by default the users trained against)."""
    from mwz_metrics.training.system_envs import SystemActsEnv

    return SystemActsEnv(
        context=context,
        split=options.split,
        goals=goals,
        reward=options.reward,
        simulator=options.simulator,
        profile=profiles if profiles is not None else users(options)[0],
    )


def evaluate(model: Any, env: Any, goals: list[str], seed: int, profile: str | None = None) -> dict[str, float]:
    """Success, Inform and mean reward of the deterministic policy on ``goals`` (one session each), with
    the user ``profile`` (one of the environment's; None: the environment's draw)."""
    totals = {"success": 0.0, "inform": 0.0, "reward": 0.0, "turns": 0.0}
    for goal in goals:
        chosen = {"goal": goal} if profile is None else {"goal": goal, "profile": profile}
        obs, _info = env.reset(seed=seed, options=chosen)
        done, reward, info = False, 0.0, {}
        while not done:
            action = int(model.predict(obs, deterministic=True)[0]) if model is not None else env.action_space.sample()
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        totals["reward"] += reward
        for key in ("success", "inform", "turns"):
            totals[key] += info["figures"][key]
    n = max(len(goals), 1)
    return {
        "success": 100 * totals["success"] / n,
        "inform": 100 * totals["inform"] / n,
        "reward": totals["reward"] / n,
        "turns": totals["turns"] / n,
    }


def _imitate(model: Any, context: Any, goals: list[str], options: TrainingOptions, level: Any) -> str:
    """Behaviour cloning from ``options.teacher`` (see :mod:`.imitation`); what was done, in words."""
    if options.teacher == "wizards":
        if options.split == "test":  # allowed by allow_test_goals; the wizards are validation's even then
            data = imitation.wizard_demonstrations(level, context, "validation")
        else:  # the training goals' own dialogues: the held-out goals' wizards are never seen
            data = imitation.wizard_demonstrations(level, context, options.split, goals)
        accuracy = imitation.clone(model, data, options.imitation_epochs, options.seed)
        said = f"{len(data['actions'])} wizard turns ({100 * float(data['exact']):.1f}% of their act sets in the vocabulary)"
        if options.value_episodes:
            played = imitation.rollouts(
                model, _env(context, goals, options), options.value_episodes, options.seed, GAMMA
            )
            error = imitation.fit_values(model, played, options.imitation_epochs, options.seed)
            said += f"; value head fitted on {len(played['returns'])} turns of {options.value_episodes} sessions (MSE {error:.3f})"
    else:
        data = imitation.reference_demonstrations(
            _env(context, goals, options), options.imitation_episodes, options.explore, options.seed, GAMMA
        )
        accuracy = imitation.clone(model, data, options.imitation_epochs, options.seed)
        said = f"{len(data['actions'])} reference turns of {options.imitation_episodes} sessions"
    return f"{said}, accuracy {100 * accuracy:.1f}%"


def train(
    out: str | Path, options: TrainingOptions, *, context: Any = None, log: Callable[[str], None] = logger.info
) -> dict[str, Any]:
    """Imitation, then PPO; writes ``out/policy.zip``, ``out/curve.json`` (the curve so far, at each point)
    and ``out/policy.json`` (the curve, the timings, the vocabulary, the signature with the users trained
    against and held out). Returns what ``policy.json`` holds."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from mwz_metrics.interactive.harness.context import InteractiveContext
    from mwz_metrics.training.records import GoalSplit

    if options.teacher not in imitation.TEACHERS:
        raise InputError(f"teacher {options.teacher!r}: one of {', '.join(imitation.TEACHERS)}")
    if GoalSplit(options.split, 0).evaluation and not options.allow_test_goals:
        raise InputError(
            "--split test trains on the evaluation goals, measuring a policy on what it learnt from:"
            " pass --allow-test-goals (allow_test_goals=True) to do it anyway"
        )
    started = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(options.seed)
    torch.set_num_threads(1)
    context = context or InteractiveContext()
    training_users, held_users = users(options)
    log(f"users trained against (one drawn per episode): {', '.join(training_users)}")
    if held_users:
        with_them = "".join(f"; {n} plays {', '.join(h)} in some sessions" for n, h in held_out_with(options).items())
        log(f"held out of training (in the curve only): {', '.join(held_users)}{with_them}")
    training_goals, held_out = _goal_ids(context, options)
    evaluation_env = _env(context, held_out, options, training_users + held_users)
    vec = DummyVecEnv([lambda: _env(context, training_goals, options) for _ in range(options.envs)])
    model = PPO(
        "MlpPolicy",
        vec,
        learning_rate=options.learning_rate,
        n_steps=512,
        batch_size=256,
        n_epochs=4,
        gamma=GAMMA,
        clip_range=0.1,
        ent_coef=0.0,
        seed=options.seed,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [256, 256]}},
        verbose=0,
    )
    curve: list[dict[str, Any]] = []
    timings: dict[str, float] = {}

    def point(stage: str, steps: int) -> dict[str, Any]:
        t = time.perf_counter()
        by_user = {
            name: evaluate(model, evaluation_env, held_out, seed=options.seed, profile=name)
            for name in training_users + held_users
        }
        figures = curve_point(stage, steps, by_user, training_users, held_users)
        curve.append(figures)
        timings["curve_s"] = timings.get("curve_s", 0.0) + time.perf_counter() - t
        (out / "curve.json").write_text(json.dumps(curve, indent=1) + "\n")  # so far: a long run can be watched
        log(f"{stage} at {steps} PPO steps, {len(held_out)} held-out validation goals: {said(figures)}")
        return figures

    point("initial", 0)
    if options.teacher != "none":
        t = time.perf_counter()
        imitated = _imitate(model, context, training_goals, options, evaluation_env.level)
        timings["imitation_s"] = time.perf_counter() - t
        log(f"imitation: {imitated}, {timings['imitation_s']:.0f} s")
        point("imitation", 0)
    best = (curve[-1]["success"], 0)
    model.save(out / "policy.zip")
    t = time.perf_counter()
    done = 0
    while done < options.steps:
        chunk = min(options.eval_every, options.steps - done)
        learning = time.perf_counter()
        model.learn(total_timesteps=chunk, reset_num_timesteps=False)
        timings["learn_s"] = timings.get("learn_s", 0.0) + time.perf_counter() - learning
        done += chunk
        figures = point("ppo", done)
        if figures["success"] >= best[0]:
            best = (figures["success"], done)
            model.save(out / "policy.zip")
    timings["ppo_s"] = time.perf_counter() - t  # PPO and its curve points
    timings["ppo_steps_per_s"] = options.steps / timings["learn_s"] if timings.get("learn_s") else 0.0  # PPO alone
    timings["total_s"] = time.perf_counter() - started
    level = evaluation_env.level
    spec = evaluation_env.run.reward
    meta = {
        "signature": {
            "environment": evaluation_env.environment,
            "act_level": level.identity,
            "reward": spec.as_json(),
            "split": options.split,
            "held_out": len(held_out),
            "training_goals": len(training_goals),
            "users": {
                "trained": training_users,
                "held_out": held_users,
                "held_out_with": held_out_with(options),  # profiles that play a held-out one in some sessions
                "drawn": "per episode, from its seed",
            },
            "simulator": evaluation_env.run.config["simulator"],
            "data": evaluation_env.run.config["data"],
            "options": dataclasses.asdict(options),
            "libraries": _versions(),
        },
        "kept": {"ppo_steps": best[1], "held_out_success": best[0], "chosen_by": "mean Success of the training users"},
        "curve": curve,
        "timings": timings,
        "vocabulary": [list(k) for k in level.vocabulary],
    }
    (out / "policy.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def curve_point(
    stage: str, steps: int, by_user: dict[str, dict[str, float]], training: list[str], held: list[str]
) -> dict[str, Any]:
    """A point of the curve: each user's figures, and Success of the training users (their mean, which
    chooses the policy kept, and their worst) and of the held-out profiles."""

    def summary(names: list[str]) -> dict[str, Any]:
        if not names:
            return {}
        worst = min(names, key=lambda n: by_user[n]["success"])
        return {
            "mean": sum(by_user[n]["success"] for n in names) / len(names),
            "worst": by_user[worst]["success"],
            "worst_user": worst,
        }

    trained = summary(training)
    return {
        "stage": stage,
        "ppo_steps": steps,
        "success": trained["mean"],  # the mean of the training users: what chooses the policy kept
        "users": by_user,
        "held_out_users": held,
        "trained": trained,
        "held_out": summary(held),
        "all": summary(training + held),
    }


def said(point: dict[str, Any]) -> str:
    """A curve point in one line: Success per user (held-out profiles marked *), worst and mean of them all."""
    held = set(point["held_out_users"])
    users = ", ".join(f"{n}{'*' if n in held else ''} {f['success']:.1f}" for n, f in point["users"].items())
    whole = point["all"]
    return f"Success {users}; worst {whole['worst']:.1f} ({whole['worst_user']}), mean {whole['mean']:.1f}"


def _versions() -> dict[str, str]:
    import gymnasium
    import stable_baselines3
    import torch

    from mwz_plugins.version import __version__

    return {
        "mwz-eval": __version__,
        "gymnasium": gymnasium.__version__,
        "stable-baselines3": stable_baselines3.__version__,
        "torch": torch.__version__,
    }

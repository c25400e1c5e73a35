"""Train a dialogue policy against the simulator: PPO (stable-baselines3) on ``mwz/MultiWOZ-SystemActs-v0``,
warm-started by imitation of the MultiWOZ 2.1 validation wizards' act sets, on validation goals only,
against a mixture of users (the default user and every registered profile, one drawn per episode);
the reward is the session's mwzeval Success, scored as ``mwz interact`` scores it, less 0.1 for each request
for a slot the user had already given (``reasked``).

    pip install "mwz-eval[rl]"
    python train_policy.py --out runs/ppo [--steps 100000] [--seed 0] [--teacher wizards|reference|none]
                           [--profiles all|default,terse,...] [--hold-out terse,impatient]
    mwz interact --system policy_system:make --system-option policy=runs/ppo/policy.zip --user-acts --profiles all

Writes ``DIR/policy.zip`` (the PPO model, the best held-out point), ``DIR/curve.json`` (the learning
curve: held-out validation Success per user, written at each point) and ``DIR/policy.json`` (the curve,
timings, the act vocabulary and the signature: environment, act level, reward, users, data, options).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from pathlib import Path
from typing import Any

from mwz_metrics.training.imitation import TEACHERS
from mwz_metrics.training.ppo import TrainingOptions, train
from mwz_metrics.training.records import SPLITS
from mwz_plugins.errors import MwzError

logger = logging.getLogger("train_policy")


def main(argv: list[str] | None = None, *, context: Any = None) -> int:
    """Parse the options, train, log the curve; the exit status. ``context``: an interactive context
    already loaded (a test's), else one is made from the environment (``MWZ_MIRROR``, ``MWZ_CACHE``)."""
    defaults = TrainingOptions()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for policy.zip and policy.json")
    parser.add_argument("--steps", type=int, default=defaults.steps, help="PPO environment steps")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument(
        "--teacher",
        default=defaults.teacher,
        choices=TEACHERS,
        help="imitated before PPO: the validation wizards' act sets, the reference rule policy's, or none",
    )
    parser.add_argument("--imitation-epochs", type=int, default=defaults.imitation_epochs)
    parser.add_argument(
        "--value-episodes",
        type=int,
        default=defaults.value_episodes,
        help="wizards: sessions of the cloned policy that its value head is fitted on",
    )
    parser.add_argument(
        "--imitation-episodes",
        type=int,
        default=defaults.imitation_episodes,
        help="reference: sessions it plays for imitation",
    )
    parser.add_argument("--held-out", type=int, default=defaults.held_out, help="validation goals for the curve")
    parser.add_argument("--eval-every", type=int, default=defaults.eval_every)
    parser.add_argument("--envs", type=int, default=defaults.envs)
    parser.add_argument(
        "--reward",
        default=defaults.reward,
        help='e.g. "success", "success+0.1*inv_sent+0.1*sess", "success-0.02*turns"',
    )
    parser.add_argument(
        "--profiles",
        default=defaults.profiles,
        help='the users trained against, one drawn per episode: "all" (the default user and every registered'
        ' profile) or names, comma-separated ("default": the user without a profile)',
    )
    parser.add_argument(
        "--hold-out",
        default=defaults.hold_out,
        help="profiles left out of training, comma-separated (the curve still measures them), e.g. terse,impatient",
    )
    parser.add_argument("--simulator", default=defaults.simulator)
    parser.add_argument("--split", default=defaults.split, choices=SPLITS)
    parser.add_argument(
        "--allow-test-goals", action="store_true", help="train on test goals anyway (refused otherwise)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("mwz_metrics.training").setLevel(logging.INFO)
    logger.setLevel(logging.INFO)
    given = vars(args)  # every option the command line names, the others at their defaults
    options = TrainingOptions(**{f.name: given[f.name] for f in dataclasses.fields(TrainingOptions) if f.name in given})
    try:
        meta = train(args.out, options, context=context)
    except MwzError as error:  # bad input: test goals not allowed, a reward that cannot be read, no train split
        print(f"train_policy.py: {error}", file=sys.stderr)
        return 2
    print(curve_table(meta["curve"], len_goals=meta["signature"]["held_out"]))
    logger.info("timings: %s", {k: round(v, 1) for k, v in meta["timings"].items()})
    kept = meta["kept"]
    print(
        f"policy saved to {Path(args.out) / 'policy.zip'} (the point at {kept['ppo_steps']} PPO steps:"
        f" mean held-out Success of the training users {kept['held_out_success']:.1f});"
        f" the curve in {Path(args.out) / 'curve.json'} and {Path(args.out) / 'policy.json'}"
    )
    return 0


def curve_table(curve: list[dict[str, Any]], *, len_goals: int) -> str:
    """The learning curve: Success on the held-out validation goals per user (* held out of training)."""
    users = list(curve[0]["users"])
    held = set(curve[0]["held_out_users"])
    names = [f"{u}*" if u in held else u for u in users]
    width = max(8, *(len(n) for n in names))
    lines = [
        f"held-out validation Success ({len_goals} goals) per user (* held out of training), worst and mean of all"
    ]
    lines.append(f"{'stage':<10} {'steps':>7}  " + " ".join(f"{n:>{width}}" for n in names) + "    worst     mean")
    for point in curve:
        row = " ".join(f"{point['users'][u]['success']:>{width}.1f}" for u in users)
        whole = point["all"]
        lines.append(
            f"{point['stage']:<10} {point['ppo_steps']:>7}  {row} {whole['worst']:>8.1f} {whole['mean']:>8.1f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

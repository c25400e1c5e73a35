"""Train a dialogue policy against the simulator: PPO (stable-baselines3) on ``mwz/MultiWOZ-SystemActs-v0``,
warm-started by imitation of the MultiWOZ 2.1 validation wizards' act sets, on validation goals only;
the reward is the session's mwzeval Success, scored as ``mwz interact`` scores it.

    pip install "mwz-eval[rl]"
    python train_policy.py --out runs/ppo [--steps 100000] [--seed 0] [--teacher wizards|reference|none]
    mwz interact --system policy_system:make --system-option policy=runs/ppo/policy.zip --user-acts

Writes ``DIR/policy.zip`` (the PPO model, the best held-out point) and ``DIR/policy.json`` (the learning
curve, timings, the act vocabulary and the signature: environment, act level, reward, data, options).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
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
    for point in meta["curve"]:
        logger.info("curve: %-9s %6d steps  Success %5.1f", point["stage"], point["ppo_steps"], point["success"])
    logger.info("timings: %s", {k: round(v, 1) for k, v in meta["timings"].items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())

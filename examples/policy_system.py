"""A policy trained by ``train_policy.py`` as a system under test (act level: it reads the user's acts)::

    mwz interact --system policy_system:make --system-option policy=runs/ppo/policy.zip --user-acts

``policy=oracle`` plays the reference policy's choices and ``policy=random`` uniform random actions
(``seed=N``) through the same act vocabulary: the bounds a trained policy sits between.
"""

from __future__ import annotations

from mwz_metrics.interactive.harness.context import InteractiveContext
from mwz_metrics.training.policy_system import PolicySystem


def make(policy: str = "oracle", seed: str = "0") -> PolicySystem:
    """The system ``--system policy_system:make`` names (options arrive as strings)."""
    return PolicySystem(InteractiveContext(), policy, seed=int(seed))

"""Registers the three environments with Gymnasium (importing this module is what ``gymnasium.make`` needs):

>>> import gymnasium, mwz_metrics.training.envs  # doctest: +SKIP
>>> env = gymnasium.make("mwz/MultiWOZ-SystemActs-v0", split="validation")  # doctest: +SKIP

``gymnasium.make("mwz_metrics.training.envs:mwz/MultiWOZ-System-v0")`` imports it itself.
"""

from __future__ import annotations

import gymnasium

from mwz_metrics.training.system_envs import ACTS_ID, TEXT_ID
from mwz_metrics.training.user_env import USER_ID

_ENTRY_POINTS = {
    TEXT_ID: "mwz_metrics.training.system_envs:SystemTextEnv",
    ACTS_ID: "mwz_metrics.training.system_envs:SystemActsEnv",
    USER_ID: "mwz_metrics.training.user_env:UserEnv",
}

for _id, _entry_point in _ENTRY_POINTS.items():
    if _id not in gymnasium.registry:
        # the session's own turn limit truncates; Gymnasium's would cut a session the scorer never saw end
        gymnasium.register(id=_id, entry_point=_entry_point, disable_env_checker=False)

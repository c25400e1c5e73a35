"""Training against the simulator: Gymnasium environments whose reward is the evaluation's own score.

``import mwz_metrics.training.envs`` registers ``mwz/MultiWOZ-System-v0`` (text),
``mwz/MultiWOZ-SystemActs-v0`` (dialogue acts) and ``mwz/MultiWOZ-User-v0`` (the agent plays the
user). This room sits above the interactive one and imports it, never the reverse; gymnasium,
torch and stable-baselines3 (the ``rl`` extra) are imported only by the modules that use them.
"""

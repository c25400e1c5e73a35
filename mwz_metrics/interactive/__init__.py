"""Interactive evaluation: a simulated user talks to the system under test, and the sessions are scored.

Where each role lives (dependencies point down this list, never up):

- ``acts``, ``vocabulary``, ``goals``, ``protocol``, ``chat``: the floor every role stands on (the acts,
  the one vocabulary of domains, values, intents and placeholders, the user goals, what a system
  receives and answers, the chat-endpoint client);
- ``language/``: templates of MultiWOZ 2.1 validation (extract, lexicon, moments) and the banks that say
  acts in words;
- ``user/``: the simulated user, i.e. where it decides what to say next (``user/agenda.py``), what it
  tracks of its goal (``user/tracker.py``) and how it understands a system (``user/reader.py``);
- ``systems/``: the reference systems and the adapters for a system in a file or behind HTTP;
- ``scoring/``: mwzeval's figures per session and run, the act figures, exports, explanations;
- ``harness/``: the run (``runner``), session files, loading by name, the context, the library API;
- ``diagnostics/``: studies of the simulator itself (agreement with the test wizards, realism).

The names below are re-exported lazily, so that importing this package costs nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "interact": "mwz_metrics.interactive.harness.api",
    "prepare": "mwz_metrics.interactive.harness.api",
    "run_sessions": "mwz_metrics.interactive.harness.api",
    "score": "mwz_metrics.interactive.harness.api",
    "load_session_file": "mwz_metrics.interactive.harness.api",
    "InteractiveContext": "mwz_metrics.interactive.harness.context",
    "run_session": "mwz_metrics.interactive.harness.runner",
    "Act": "mwz_metrics.interactive.acts",
    "parse_acts": "mwz_metrics.interactive.acts",
    "UserGoal": "mwz_metrics.interactive.goals",
    "System": "mwz_metrics.interactive.protocol",
    "SystemTurn": "mwz_metrics.interactive.protocol",
    "SessionEnd": "mwz_metrics.interactive.protocol",
    "UserSimulator": "mwz_metrics.interactive.user.base",
    "SimulatorFactory": "mwz_metrics.interactive.user.base",
    "UserTurn": "mwz_metrics.interactive.user.base",
    "load_sessions": "mwz_metrics.interactive.harness.api",
    "to_dataset": "mwz_metrics.interactive.harness.api",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)

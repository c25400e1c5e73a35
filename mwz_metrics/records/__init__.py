"""Typed records of what crosses the rooms of interactive evaluation: the act grammar, the protocol's
request and system turn, the user turn, a session record with its end and outcome, a session file's
header (the run configuration), the interactive result and the result of a run with user profiles.
Each is validated once where it enters (a file read, a system's answer) and trusted inside; the JSON
Schemas under ``schemas/`` are generated from them (:mod:`.schemas`).

This package imports no room of ``mwz_metrics`` but one leaf module (``inputs``: the validation of a
predicted turn, the session file's format name): the rooms import it.
"""

from mwz_metrics.records.acts import Act, ActError, acts_json, parse_acts
from mwz_metrics.records.ends import END_REASONS, FAILED_ENDS, INFRASTRUCTURE_ENDS, End, SessionEnd
from mwz_metrics.records.header import RunConfig, SessionFileHeader
from mwz_metrics.records.profiles import (
    BrokenByUser,
    PairedRuns,
    ProfileResult,
    ProfilesResult,
    ProfilesSummary,
    Robustness,
)
from mwz_metrics.records.request import Request
from mwz_metrics.records.result import InteractiveResult, SessionFigures
from mwz_metrics.records.session import Outcome, SessionRecord
from mwz_metrics.records.turns import (
    SystemAnswer,
    SystemTurn,
    SystemTurnRecord,
    TurnRecord,
    UserTurn,
    UserTurnRecord,
)

__all__ = [
    "END_REASONS",
    "FAILED_ENDS",
    "INFRASTRUCTURE_ENDS",
    "Act",
    "ActError",
    "BrokenByUser",
    "End",
    "InteractiveResult",
    "Outcome",
    "PairedRuns",
    "ProfileResult",
    "ProfilesResult",
    "ProfilesSummary",
    "Request",
    "Robustness",
    "RunConfig",
    "SessionEnd",
    "SessionFigures",
    "SessionFileHeader",
    "SessionRecord",
    "SystemAnswer",
    "SystemTurn",
    "SystemTurnRecord",
    "TurnRecord",
    "UserTurn",
    "UserTurnRecord",
    "acts_json",
    "parse_acts",
]

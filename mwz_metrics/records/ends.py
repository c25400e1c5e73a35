"""How a session ended: the reasons a session record's ``end`` may give, and the exception that ends one."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

# Why a session ended (the summary counts each).
END_REASONS = {
    "user_done": "the user said goodbye and the system answered",
    "max_turns": "the session reached the turn limit",
    "system_out_of_turns": "a predictions-file system had no more turns for this dialogue",
    "system_timeout": "the system did not answer in time (after the retries)",
    "system_error": "the system failed (an exception, an HTTP error, a refused connection), after the retries",
    "malformed_response": "the system's answer was not a valid turn",
    "simulator_error": "the user simulator failed (for example its language model endpoint)",
}
EndReason = Literal[  # END_REASONS' keys, for the type checker and the schemas (a test holds them equal)
    "user_done",
    "max_turns",
    "system_out_of_turns",
    "system_timeout",
    "system_error",
    "malformed_response",
    "simulator_error",
]

# End reasons that are the infrastructure's, not the dialogue's: counted apart in the figures (and as
# failures unless ``--exclude-infra``), run again by ``--resume --retry-failed``.
INFRASTRUCTURE_ENDS = ("system_timeout", "system_error", "simulator_error")
# Ends where the system (or the simulator) failed rather than talked.
FAILED_ENDS = frozenset({*INFRASTRUCTURE_ENDS, "malformed_response"})


class End(TypedDict):
    """A session record's ``end``: the reason, what happened (at most 300 characters) and, for a failure of
    the system's or the simulator's code, the end of its traceback."""

    reason: EndReason
    detail: NotRequired[str]
    traceback: NotRequired[str]


class SessionEnd(Exception):
    """Ends one session with a reason from :data:`END_REASONS` (the run goes on)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        if reason not in END_REASONS:
            raise ValueError(f"unknown end reason {reason!r}")
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail

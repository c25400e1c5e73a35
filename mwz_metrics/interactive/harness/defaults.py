"""The defaults of a run, written once: the command line, the library entry point and the runner read
them here (this module imports nothing, so that ``mwz --help`` can show them)."""

# System turns per session at most (``--max-turns``).
DEFAULT_MAX_TURNS = 20
# Whether the user's acts reach the system (``--user-acts``): by default the system reads the user's words
# only (text level); a reference system that reads the acts says so in its registry entry.
DEFAULT_USER_ACTS = False

"""Built-in plugin: the user simulators and reference systems of interactive evaluation.

Registered by import path like any third-party plugin's; nothing is imported until a run
names them (``mwz interact --simulator agenda --system oracle``).
"""

from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import SystemEntry, UserProfileEntry, UserSimulatorEntry

_SIMULATORS = "mwz_metrics.interactive.user"
_SYSTEMS = "mwz_metrics.interactive.systems.reference"


@hookimpl
def mwz_register_user_simulators(register):
    """Register ``agenda``, ``llm`` and ``replay``."""
    register(
        UserSimulatorEntry(
            "agenda",
            "2.1.0",  # 2.1.0: a no-offer is heard first (issue 49): its sessions after a no-offer changed
            f"{_SIMULATORS}.agenda:make",
            "goal-driven agenda with MultiWOZ 2.1 validation templates (offline, seeded)",
        )
    )
    register(
        UserSimulatorEntry(
            "llm",
            "1.1.0",
            f"{_SIMULATORS}.llm:make",
            "a language model plays the user through an OpenAI-compatible chat endpoint",
        )
    )
    register(
        UserSimulatorEntry(
            "replay", "1.0.0", f"{_SIMULATORS}.replay:make", "the test dialogue's annotated user turns, in order"
        )
    )


_PROFILES = "mwz_metrics.interactive.user.profiles"


@hookimpl
def mwz_register_user_profiles(register):
    """Register the agenda user's profiles: ``terse``, ``eager``, ``fickle``, ``impatient``, ``noisy``,
    ``multidomain``, and ``population`` (a user drawn per session, at the real users' rates)."""
    for name, description in (
        ("terse", "one constraint or booking detail a turn"),
        ("eager", "all of a domain's constraints and requests in its first turn"),
        ("fickle", "changes a constraint after an offer, unprompted"),
        ("impatient", "gives up after one unanswered request, no-offer or failed booking"),
        ("noisy", "typos and homophone errors in its words (its acts stay clean)"),
        ("multidomain", "brings up the next domain in the same turn"),
        ("population", "a user drawn per session, its behaviours at the real users' rates"),
    ):
        register(UserProfileEntry(name, "1.0.0", f"{_PROFILES}:{name.upper()}", description))


@hookimpl
def mwz_register_systems(register):
    """Register the reference systems ``oracle``, ``oracle-text``, ``oracle-lex``, ``echo``, ``silent`` and ``llm``."""
    # the oracle reads the user's acts whatever --user-acts says; made with --system-option hear=words, it
    # reads the user's words where no acts come (the system it makes says so: its reads_user_acts is false)
    register(
        SystemEntry(
            "oracle",
            "2.0.0",
            f"{_SYSTEMS}:make_oracle",
            "upper bound: database, acts and text (hear=words: reads the user's words)",
            reads_user_acts=True,
        )
    )
    register(
        SystemEntry(
            "oracle-text",
            "2.0.0",
            f"{_SYSTEMS}:make_oracle_text",
            "the oracle without its acts (hear=words: reads the user's words)",
            reads_user_acts=True,
        )
    )
    register(
        SystemEntry(
            "oracle-lex",
            "1.0.0",
            f"{_SYSTEMS}:make_oracle_lex",
            "oracle-text speaking values (hear=words: reads the user's words)",
            reads_user_acts=True,
        )
    )
    register(
        SystemEntry(
            "llm",
            "1.0.0",
            "mwz_metrics.interactive.systems.llm:make",
            "a language model plays the wizard, the database as its tools (--endpoint URL --model NAME)",
        )
    )
    register(SystemEntry("echo", "1.0.0", f"{_SYSTEMS}:make_echo", "lower bound: repeats the user"))
    register(SystemEntry("silent", "1.0.0", f"{_SYSTEMS}:make_silent", "lower bound: says nothing"))

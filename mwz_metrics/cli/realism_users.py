"""``mwz simulator realism --profile NAME`` / ``--simulator NAME``: simulated users beside the real ones.

Each user (the agenda user by default and playing each profile asked for, or any registered
simulator) says the next user turn after the test dialogues' oracle histories (BLEU, act F1) and
holds whole sessions with ``oracle-text`` on the same goals; its figures, and the rates of the
behaviours the profiles change (:mod:`mwz_metrics.interactive.diagnostics.behaviour`), are printed
beside the real users' of the test and validation dialogues.
"""

from __future__ import annotations

import argparse
from typing import Any

from mwz_metrics.interactive.diagnostics.behaviour import LABELS, MOVED_BY


def _users(args: argparse.Namespace) -> list[tuple[str, str, str | None, dict[str, str]]]:
    """(label, simulator, profile, options) of every user to measure."""
    from mwz_metrics.cli.interact import _llm_settings, _pairs
    from mwz_metrics.cli.interact_profiles import profile_names

    options = {**_llm_settings(args), **_pairs(args.simulator_option, "--simulator-option")}
    simulator = args.simulator or "agenda"
    users: list[tuple[str, str, str | None, dict[str, str]]] = [(simulator, simulator, None, options)]
    users += [(name, simulator, name, options) for name in profile_names(args)]
    return users


def measure(args: argparse.Namespace, context: Any) -> dict[str, Any]:
    """Run every user's sessions with oracle-text, measure them beside the real users, print the table."""
    from mwz_metrics.interactive.diagnostics.realism import SimulatedUser, measure_users
    from mwz_metrics.interactive.harness import api

    measured = []
    signatures = {}
    for label, simulator, profile, options in _users(args):
        run = api.prepare(
            "oracle-text",
            simulator=simulator,
            simulator_options=options,
            profile=profile,
            goals=args.dialogues,
            seed=args.seed,
            context=context,
        )
        sessions = api.run_sessions(run, output=None, jobs=args.jobs)
        measured.append(SimulatedUser(label, run.simulator, sessions))
        signatures[label] = run.config["simulator"]
    report = measure_users(context, measured, seed=args.seed, dialogues=args.dialogues)
    report["simulators"] = signatures
    if not args.json:
        print(table(report))
    return report


_DISTRIBUTION = (
    ("system turns per session", "system_turns_per_session", 2),
    ("words per user turn", "words_per_user_turn", 2),
    ("distinct unigrams (%)", "distinct_1", 2),
    ("distinct bigrams (%)", "distinct_2", 2),
)


def _named(simulator: dict[str, Any]) -> str:
    profile = simulator.get("profile")
    return f"{simulator['name']}@{simulator['version']}" + (
        f"+{profile['name']}@{profile['version']}" if profile else ""
    )


def table(report: dict[str, Any]) -> str:
    """Every user's figures in a column, the real users' last."""
    columns = report["columns"]
    names = list(columns)
    width = max(12, *(len(n) + 2 for n in names))
    head = f"{'':34}" + "".join(f"{n:>{width}}" for n in names)
    lines = [f"simulated users beside real ones, {report['dialogues']} MultiWOZ 2.1 test goals", head]

    def row(label: str, values: list[Any], digits: int) -> str:
        cells = "".join(f"{'n/a':>{width}}" if v is None else f"{v:>{width}.{digits}f}" for v in values)
        return f"{label:34}{cells}"

    histories = [c.get("oracle_histories") for c in columns.values()]
    lines.append(f"after oracle histories (Cheng et al.'s best user: BLEU {report['cheng_et_al_bleu']})")
    lines.append(row("  BLEU", [h["bleu"] if h else None for h in histories], 2))
    lines.append(row("  act F1", [h["acts"]["f1"] if h else None for h in histories], 2))
    real = next((h["real_requests_repeated"] for h in histories if h), None)
    repeats = [h["requests_repeated"] if h else None for h in histories[: len(histories) - 2]] + [real, None]
    lines.append(row("  requests repeated (%)", repeats, 2) + "   impatient: down")
    lines.append("whole sessions (with oracle-text)")
    for label, key, digits in _DISTRIBUTION:
        lines.append(row("  " + label, [c["distribution"][key] for c in columns.values()], digits))
    lines.append("behaviours the profiles change (profile: direction)")
    for key, label in LABELS.items():
        profile, direction = MOVED_BY[key]
        lines.append(row(f"  {label}", [c["behaviour"][key] for c in columns.values()], 2))
        lines[-1] += f"   {profile}: {direction}"
    lines.append("simulators: " + "; ".join(f"{n}={_named(s)}" for n, s in report["simulators"].items()))
    return "\n".join(lines)

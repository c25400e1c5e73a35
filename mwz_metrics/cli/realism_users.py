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
    from mwz_metrics.cli.interact_profiles import profile_names
    from mwz_metrics.interactive.harness.options import llm_settings, pairs

    options = {**llm_settings(args.endpoint, args.model), **pairs(args.simulator_option, "--simulator-option")}
    simulator = args.simulator or "agenda"
    users: list[tuple[str, str, str | None, dict[str, str]]] = [(simulator, simulator, None, options)]
    users += [(name, simulator, name, options) for name in profile_names(args)]
    return users


def _hearing(simulator: str, context: Any, options: dict[str, Any]) -> dict[str, str]:
    """oracle-text's options for a user: it reads the words of a user that sends no acts (the llm user)."""
    from mwz_metrics.interactive.harness.loading import load_simulator
    from mwz_metrics.interactive.systems.user_acts import sends_user_acts

    factory, _ = load_simulator(simulator, context, options)
    return {} if sends_user_acts(factory) else {"hear": "words"}


def measure(args: argparse.Namespace, context: Any) -> dict[str, Any]:
    """Run every user's sessions with oracle-text, measure them beside the real users, print the table."""
    from mwz_metrics.interactive.diagnostics.realism import SimulatedUser, measure_users
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.training.splits import goals as split_goals

    measured = []
    signatures = {}
    for label, simulator, profile, options in _users(args):
        run = api.prepare(
            "oracle-text",
            system_options=_hearing(simulator, context, options),
            simulator=simulator,
            simulator_options=options,
            profile=profile,
            goals=args.goals,
            seed=args.seed,
            context=context,
        )
        sessions = api.run_sessions(run, output=None, jobs=args.jobs)
        measured.append(SimulatedUser(label, run.simulator, sessions))
        signatures[label] = run.config["simulator"]
    validation_goals = split_goals(context, "validation")
    report = measure_users(context, measured, seed=args.seed, dialogues=args.goals, validation_goals=validation_goals)
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
    validation = columns.get("real (validation)", {})
    if "ci95" in validation:
        simulated = [c for c in columns.values() if "from_validation" in c]
        lines.append("distance to the validation users' 95% interval (0.00: within; bootstrap over dialogues)")
        for key, label in LABELS.items():
            low, high = validation["ci95"][key]
            cells = [c["from_validation"][key] for c in simulated]
            lines.append(row(f"  {label}", cells, 2) + f"{'':>{width}}{f'[{low:.2f}, {high:.2f}]':>{width}}")
    if report.get("no_offer"):
        lines.extend(_no_offer_rows(report["no_offer"], names, width))
    lines.append("simulators: " + "; ".join(f"{n}={_named(s)}" for n, s in report["simulators"].items()))
    return "\n".join(lines)


def _no_offer_rows(found: dict[str, Any], names: list[str], width: int) -> list[str]:
    """What users do after a no-offer with a request (:mod:`mwz_metrics.interactive.diagnostics.no_offer`)."""
    from mwz_metrics.interactive.diagnostics.no_offer import LABELS as NO_OFFER
    from mwz_metrics.interactive.diagnostics.no_offer import OUTCOMES

    real = found["real"]
    lines = [f"after a no-offer with a request ({real['turns']} validation wizard turns; oracle histories)"]
    for outcome in OUTCOMES:
        cells = []
        for name in names:
            if name == "real (validation)":
                low, high = real[outcome]["ci95"]
                cells.append(f"{real[outcome]['rate']:.1f} [{low:.0f}, {high:.0f}]")
            elif name in found:
                cells.append(f"{found[name][outcome]['rate']:.2f}")
            else:
                cells.append("n/a")
        lines.append(f"{'  ' + NO_OFFER[outcome]:34}" + "".join(f"{c:>{width}}" for c in cells))
    return lines

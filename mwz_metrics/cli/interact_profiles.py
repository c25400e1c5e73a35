"""``mwz interact --profile NAME`` (or ``--profiles all``): the default user and each profile, side by side.

Each profile runs as its own session file beside ``-o`` (``runs/x.jsonl`` -> ``runs/x.terse.jsonl``),
on the same goals, seeds and trials as the default user's run; the table gives Success per profile
with its interval, and its difference from the default user's, paired by goal and trial (p-value,
and whether the difference is below what this many goals can detect): a robustness profile of the system.

Below the profiles, the run's **robustness** (:func:`mwz_metrics.interactive.scoring.trials.robustness`):
the worst user's Success and the mean over the users, the default user counted among them, with
intervals resampling goals once for all users and their paired difference to the default user. The
signature of the whole names the profile set (``profiles=default+eager@1.0.0+...``). ``--result`` writes
every profile's full result, the robustness and which user broke which sessions; ``--explain`` prints the
latter (:func:`mwz_metrics.interactive.scoring.explain.explain_users`) and some of those sessions.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

logger = logging.getLogger("mwz.interact")

RunAndScore = Callable[[argparse.Namespace, str, "str | None"], tuple[dict[str, Any], dict[str, Any], list]]
DEFAULT = "default"  # the default user's name among the profiles


def profile_names(args: argparse.Namespace) -> list[str]:
    """The profiles asked for, in order, each once (``--profiles all``: every registered one)."""
    from mwz_plugins import get_registry

    names = list(args.profile)
    if args.profiles == "all":
        names += sorted(get_registry().profiles)
    return list(dict.fromkeys(n for n in names if n != DEFAULT))


def profile_output(output: str, name: str) -> str:
    """The session file of a profile's run: the default's name with the profile before its suffix."""
    from mwz_metrics.comparison.inputs import profile_file

    return str(profile_file(output, name))


def run_profiles(args: argparse.Namespace, output: str, run_and_score: RunAndScore) -> int:
    """Run (or resume, or score) the default user and every profile; print Success per profile and the
    robustness; write ``--result``; with ``--explain``, which user broke which sessions."""
    from mwz_metrics.cli.registry import write_json
    from mwz_metrics.comparison.compare import paired_runs
    from mwz_metrics.interactive.harness import sessions as session_files

    rows: list[dict[str, Any]] = []
    for name in [None, *profile_names(args)]:
        out = output if name is None else profile_output(output, name)
        logger.info("user profile %s -> %s", name or DEFAULT, out)
        if args.score_only:
            result, config, sessions = run_and_score(args, out, name)
        else:
            with session_files.exclusive(out):  # one writer, from the first session to the outcomes
                result, config, sessions = run_and_score(args, out, name)
                session_files.add_outcomes(out, result["per_session"])
        row = {"profile": name or DEFAULT, "session_file": out, "result": result, "config": config}
        row["sessions"] = sessions
        if rows:
            row["against_default"] = paired_runs(
                result, rows[0]["result"], resamples=args.resamples, seed=0, plan_difference=None
            )
        rows.append(row)
    whole = profiles_result(rows, resamples=args.resamples)
    if args.json:
        shown = {**whole, "profiles": [_summary(row) for row in rows], "signature": whole["signature"]["line"]}
        print(json.dumps({k: v for k, v in shown.items() if k != "broken"}, indent=2, ensure_ascii=False))
    else:
        print(table(rows, whole["robustness"], whole["signature"]))
    write_json(whole, args.result)
    if args.explain:
        from mwz_metrics.interactive.scoring.explain import explain_users

        print()
        print(explain_users(_runs(rows), args.explain, DEFAULT))
    return 0


def _runs(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[list, list]]:
    """user -> (sessions, per_session) of each row."""
    return {row["profile"]: (row["sessions"], row["result"]["per_session"]) for row in rows}


def profiles_result(rows: Sequence[Mapping[str, Any]], *, resamples: int) -> dict[str, Any]:
    """What ``--result`` holds: every profile's full result (``profile``, its session file, its figures and
    sessions, its paired difference to the default user), the ``robustness``, which user broke which
    sessions (``broken``) and the signature naming the profile set."""
    from mwz_metrics.comparison.inputs import profiles_signature
    from mwz_metrics.interactive.scoring.explain import broken_by_users
    from mwz_metrics.interactive.scoring.trials import robustness

    per_user = {row["profile"]: row["result"]["per_session"] for row in rows}
    return {
        "profiles": [
            {
                "profile": row["profile"],
                **row["result"],
                "session_file": row["session_file"],
                **({"against_default": row["against_default"]} if "against_default" in row else {}),
            }
            for row in rows
        ],
        "robustness": robustness(per_user, resamples=resamples, seed=0, default=DEFAULT),
        "broken": broken_by_users(_runs(rows), DEFAULT),
        "signature": profiles_signature(
            rows[0]["result"]["signature"], {row["profile"]: row["config"] for row in rows}
        ),
    }


def _summary(row: Mapping[str, Any]) -> dict[str, Any]:
    result = row["result"]
    keys = ("success", "inform", "complete", "turns", "sessions", "trials", "end_reasons", "ci95")
    return {
        "profile": row["profile"],
        "session_file": row["session_file"],
        **{k: result[k] for k in keys if k in result},
        **({"against_default": row["against_default"]} if "against_default" in row else {}),
        "signature": result["signature"]["line"],
    }


def _interval(ci: Any) -> str:
    return f"[{ci[0]:5.1f}, {ci[1]:5.1f}]" if ci else f"{'n/a':>14}"


def worst_text(robust: Mapping[str, Any]) -> str:
    """Who the worst user is: ``terse (the worst in 62% of resamples; impatient 30%)``, or a tie."""
    worst = robust["worst"]["users"]
    if len(worst) == len(robust["users"]):
        return f"every user ties at {robust['worst']['value']:.1f}"
    shares = sorted((robust.get("worst_share") or {}).items(), key=lambda item: -item[1])
    said = ", ".join(worst)
    if shares:
        others = [f"{user} {100 * share:.0f}%" for user, share in shares if user not in worst and share >= 0.05]
        said += f" (the worst in {100 * robust['worst_share'][worst[0]]:.0f}% of resamples"
        said += f"; {', '.join(others)}" if others else ""
        said += ", ties counted for each)" if sum(share for _, share in shares) > 1 + 1e-9 else ")"
    return said


def robustness_lines(robust: Mapping[str, Any] | None, width: int = 14) -> list[str]:
    """The worst user's and the mean Success, with intervals and the paired difference to the default
    user, then who the worst user is and what the figures are over."""
    if not robust:
        return ["robustness: n/a (no goal every user has)"]
    lines = []
    for label, key in (("worst user", "worst"), ("mean of users", "mean")):
        figure = robust[key]
        against = figure["against_default"]
        line = f"{label:{width}}{figure['value']:8.1f}  {_interval(figure.get('ci95'))}  "
        line += f"{against['difference']:+.1f}"
        if against.get("ci95"):
            line += f" [{against['ci95'][0]:+.1f}, {against['ci95'][1]:+.1f}]"
        if "p_value" in against:
            line += f" (p = {against['p_value']:.3f})"
        lines.append(line)
    lines.append(f"  the worst user: {worst_text(robust)}")
    lines.append(
        f"  over {len(robust['users'])} users, the {robust['default']} user among them, each weighing the same in "
        f"the mean; {robust['goals']} goals, {robust['sessions']} sessions each, paired by {robust['paired_by']}"
    )
    return lines


def table(
    rows: list[dict[str, Any]], robust: Mapping[str, Any] | None = None, signature: Mapping[str, Any] | None = None
) -> str:
    """Success (and pass^K with trials) per profile, with intervals and the paired difference; then the
    robustness (:func:`robustness_lines`) and the signatures."""
    first = rows[0]["result"]
    config = rows[0]["config"]
    system = config.get("system") or {}
    trials = (first.get("trials") or {}).get("trials", 1)
    lines = [
        f"user profiles: {(config.get('simulator') or {}).get('name')} -> "
        f"{system.get('name') or system.get('file') or system.get('url') or system.get('factory')}, "
        f"{first['sessions']} sessions per profile ({trials} trial(s) per goal, seed {config.get('seed')})",
        f"{'profile':14}{'success':>8}  {'95% CI':14}{'inform':>8}"
        + (f"{'pass^' + str(trials):>9}" if trials > 1 else "")
        + f"{'turns':>7}  vs default (paired by goal{' and trial' if trials > 1 else ''})",
    ]
    for row in rows:
        result = row["result"]
        ci = result.get("ci95", {})
        line = f"{row['profile']:14}{result['success']:8.1f}  {_interval(ci.get('success'))}{result['inform']:8.1f}"
        if trials > 1:
            line += f"{result['trials']['pass_hat_k'][str(trials)]:9.1f}"
        line += f"{result['turns']:7.2f}  "
        paired = (row.get("against_default") or {}).get("success")
        if paired:
            line += f"{paired['difference']:+.1f}"
            if "p_value" in paired:
                line += f" (p = {paired['p_value']:.3f})"
            if paired.get("below_detectable"):
                line += f", below the detectable {paired['detectable']:.1f}"
        lines.append(line)
    if len(rows) > 1:
        lines.append(f"{'robustness':14}{'success':>8}  {'95% CI':14}  vs default [95% CI]")
        lines.extend(robustness_lines(robust))
    lines.append("signatures:")
    lines.extend(f"  {row['profile']}: {row['result']['signature']['line']}" for row in rows)
    if signature is not None:
        lines.append(f"  all users: {signature['line']}")
    return "\n".join(lines)

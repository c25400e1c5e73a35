"""``mwz interact --profile NAME`` (or ``--profiles all``): the default user and each profile, side by side.

Each profile runs as its own session file beside ``-o`` (``runs/x.jsonl`` -> ``runs/x.terse.jsonl``),
on the same goals, seeds and trials as the default user's run; the table gives Success per profile
with its interval, and its difference from the default user's, paired by goal and trial (p-value,
and whether the difference is below what this many goals can detect): a robustness profile of the system.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger("mwz.interact")

RunAndScore = Callable[[argparse.Namespace, str, "str | None"], tuple[dict[str, Any], dict[str, Any], list]]


def profile_names(args: argparse.Namespace) -> list[str]:
    """The profiles asked for, in order, each once (``--profiles all``: every registered one)."""
    from mwz_plugins import get_registry

    names = list(args.profile)
    if args.profiles == "all":
        names += sorted(get_registry().profiles)
    return list(dict.fromkeys(n for n in names if n != "default"))


def profile_output(output: str, name: str) -> str:
    """The session file of a profile's run: the default's name with the profile before its suffix."""
    path = Path(output)
    return str(path.with_name(f"{path.stem}.{name}{path.suffix or '.jsonl'}"))


def run_profiles(args: argparse.Namespace, output: str, run_and_score: RunAndScore) -> int:
    """Run (or resume, or score) the default user and every profile; print Success per profile."""
    from mwz_metrics.comparison.compare import paired_runs
    from mwz_metrics.interactive.harness import sessions as session_files

    rows: list[dict[str, Any]] = []
    for name in [None, *profile_names(args)]:
        out = output if name is None else profile_output(output, name)
        logger.info("user profile %s -> %s", name or "default", out)
        if args.score_only:
            result, config, _sessions = run_and_score(args, out, name)
        else:
            with session_files.exclusive(out):  # one writer, from the first session to the outcomes
                result, config, _sessions = run_and_score(args, out, name)
                session_files.add_outcomes(out, result["per_session"])
        row = {"profile": name or "default", "session_file": out, "result": result, "config": config}
        if rows:
            row["against_default"] = paired_runs(
                result, rows[0]["result"], resamples=args.resamples, seed=0, plan_difference=None
            )
        rows.append(row)
    if args.json:
        print(json.dumps([_summary(row) for row in rows], indent=2, ensure_ascii=False))
    else:
        print(table(rows))
    return 0


def _summary(row: dict[str, Any]) -> dict[str, Any]:
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


def table(rows: list[dict[str, Any]]) -> str:
    """Success (and pass^K with trials) per profile, with intervals and the paired difference."""
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
    lines.append("signatures:")
    lines.extend(f"  {row['profile']}: {row['result']['signature']['line']}" for row in rows)
    return "\n".join(lines)

"""A run with user profiles as text: Success per user with its interval and its paired difference to the
default user, then the run's robustness and the signatures (what ``mwz interact --profile NAME`` prints)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mwz_metrics.comparison.profiles import UserRun
from mwz_metrics.records.header import system_name
from mwz_metrics.records.profiles import Robustness


def _interval(ci: Any) -> str:
    return f"[{ci[0]:5.1f}, {ci[1]:5.1f}]" if ci else f"{'n/a':>14}"


def worst_text(robust: Robustness) -> str:
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


def robustness_lines(robust: Robustness | None, width: int = 14) -> list[str]:
    """The worst user's and the mean Success, with intervals and the paired difference to the default
    user, then who the worst user is and what the figures are over."""
    if not robust:
        return ["robustness: n/a (no goal every user has)"]
    lines = []
    for label, figure in (("worst user", robust["worst"]), ("mean of users", robust["mean"])):
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


def table(runs: Sequence[UserRun], robust: Robustness | None = None, signature: Mapping[str, Any] | None = None) -> str:
    """Success (and pass^K with trials) per user, with intervals and the paired difference; then the
    robustness (:func:`robustness_lines`) and the signatures."""
    first = runs[0].result
    config = runs[0].config
    trials = (first.get("trials") or {}).get("trials", 1)
    lines = [
        f"user profiles: {(config.get('simulator') or {}).get('name')} -> "
        f"{system_name(config)}, "
        f"{first['sessions']} sessions per profile ({trials} trial(s) per goal, seed {config.get('seed')})",
        f"{'profile':14}{'success':>8}  {'95% CI':14}{'inform':>8}"
        + (f"{'pass^' + str(trials):>9}" if trials > 1 else "")
        + f"{'turns':>7}  vs default (paired by goal{' and trial' if trials > 1 else ''})",
    ]
    for run in runs:
        result = run.result
        ci = result.get("ci95", {})
        line = f"{run.profile:14}{result['success']:8.1f}  {_interval(ci.get('success'))}{result['inform']:8.1f}"
        if trials > 1:
            line += f"{result['trials']['pass_hat_k'][str(trials)]:9.1f}"
        line += f"{result['turns']:7.2f}  "
        paired = run.against_default.get("success") if run.against_default else None
        if paired:
            line += f"{paired['difference']:+.1f}"
            if "p_value" in paired:
                line += f" (p = {paired['p_value']:.3f})"
            if paired.get("below_detectable"):
                line += f", below the detectable {paired['detectable']:.1f}"
        lines.append(line)
    if len(runs) > 1:
        lines.append(f"{'robustness':14}{'success':>8}  {'95% CI':14}  vs default [95% CI]")
        lines.extend(robustness_lines(robust))
    lines.append("signatures:")
    lines.extend(f"  {run.profile}: {run.result['signature']['line']}" for run in runs)
    if signature is not None:
        lines.append(f"  all users: {signature['line']}")
    return "\n".join(lines)

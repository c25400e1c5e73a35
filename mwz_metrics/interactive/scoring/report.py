"""The report of an interactive run as ``mwz interact`` and ``mwz evaluate`` print it: the table of figures with
their intervals, pass^k over trials, an LLM's cost, and ``--plan``'s goals x trials for a detectable difference.
"""

from __future__ import annotations

from typing import Any

from mwz_metrics import power
from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.protocol import FAILED_ENDS
from mwz_metrics.interactive.scoring.trials import figure_rows, outcomes_by_goal
from mwz_metrics.records.header import system_name


def cost(tokens: dict[str, dict[str, int]], price: str) -> dict[str, float]:
    """What the tokens cost at ``price`` (``PROMPT[,COMPLETION]`` per million tokens), both sides together."""
    try:
        parts = [float(p) for p in price.split(",")]
    except ValueError:
        parts = []
    if len(parts) not in (1, 2) or any(p < 0 for p in parts):
        raise InputError(f"--price {price!r}: give PROMPT[,COMPLETION], prices per million tokens")
    per_prompt, per_completion = parts[0], parts[-1]
    prompt = sum(t.get("prompt", 0) for t in tokens.values())
    completion = sum(t.get("completion", 0) for t in tokens.values())
    total = (prompt * per_prompt + completion * per_completion) / 1e6
    return {"prompt_per_million": per_prompt, "completion_per_million": per_completion, "total": total}


def cell(value: Any, interval: Any, digits: int = 1, resampled: bool = True) -> str:
    """A figure and its interval as a table cell (``n/a`` without a value; a resampled figure without an
    interval says there were too few sessions)."""
    if value is None:
        return f"{'n/a':>8}"
    shown = f"{value:8.{digits}f}"
    if interval:
        shown += f"  [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"
    elif resampled:
        shown += "  n/a (too few sessions)"
    return shown


def table(result: dict[str, Any], config: dict[str, Any]) -> str:
    """The readable report."""
    simulator = (config.get("simulator") or {}).get("name")
    name = system_name(config)
    lines = [
        f"interactive evaluation: {simulator} -> {name}, {result['sessions']} sessions "
        f"(seed {config.get('seed')}, at most {config.get('max_turns')} turns)",
        f"{'':20}{'value':>8}  95% CI",
    ]
    ci = result.get("ci95", {})
    resampled = bool(((result.get("signature") or {}).get("fields") or {}).get("bootstrap", {}).get("resamples", 1))
    rows = [
        ("inform", "inform"),
        ("success", "success"),
        ("book rate", "book_rate"),
        ("complete", "complete"),
        ("inform precision", "inform_precision"),
        ("inform recall", "inform_recall"),
        ("inform F1", "inform_f1"),
        ("turns", "turns"),
        ("turns (successful)", "turns_successful"),
    ]
    for label, key in rows:
        if key == "book_rate" and key in result and result[key] is None:  # no goal books: none, never 0.0
            lines.append(f"{label:20}{'n/a':>8}  (no goal books)")
        elif key in result:
            lines.append(f"{label:20}{cell(result[key], ci.get(key), 1, resampled and key in ci)}")
    for name, shown in (result.get("metrics") or {}).items():  # the registered metrics asked for
        label = name + ("" if shown["higher_is_better"] else " (lower)")
        lines.append(f"{label:20}{cell(result[name], ci.get(name), shown['digits'], resampled)}")
    for style, value in (result.get("bleu") or {}).items():
        lines.append(f"{'bleu ' + style:20}{value:8.2f}")
    if result.get("inform_by_domain"):
        domains = ", ".join(
            f"{d} {result['inform_by_domain'][d]}/{result['success_by_domain'].get(d, 0)}"
            for d in result["inform_by_domain"]
            if d != "total"
        )
        lines.append(f"inform/success by domain: {domains}")
    for name, reason in (result.get("not_scored") or {}).items():
        lines.append(f"{name:20}{'n/a':>8}  ({reason})")
    lines.extend(trial_lines(result))
    for side, tokens in (result.get("tokens") or {}).items():
        lines.append(f"tokens ({side}): {tokens['prompt']} prompt, {tokens['completion']} completion")
    if result.get("cost"):
        cost = result["cost"]
        lines.append(
            f"cost: {cost['total']:.4f} at {cost['prompt_per_million']:g}/{cost['completion_per_million']:g} per million tokens"
        )
    lines.append("end reasons: " + ", ".join(f"{k} {v}" for k, v in result["end_reasons"].items()))
    if result["end_reasons"] and set(result["end_reasons"]) <= FAILED_ENDS:
        lines.append("every session failed: the figures above measure no dialogue (see the end reasons)")
    infrastructure = result.get("infrastructure")
    if infrastructure:
        ends = ", ".join(f"{k} {v}" for k, v in infrastructure["ends"].items()) or "none"
        how = "left out (--exclude-infra)" if infrastructure["counted"] == "excluded" else "counted as failures"
        lines.append(f"infrastructure ends: {infrastructure['sessions']} ({ends}), {how}")
    if result.get("give_ups"):
        lines.append("simulator gave up: " + ", ".join(f"{k} x {v}" for k, v in result["give_ups"].items()))
    if result.get("system_failures"):
        lines.append("system failures: " + ", ".join(f"{k} {v}" for k, v in result["system_failures"].items()))
    if result.get("system_warnings"):  # an LLM system's replies: empty, cut, tool calls as text...
        lines.append("system warnings: " + ", ".join(f"{k} {v}" for k, v in result["system_warnings"].items()))
    for warning in result.get("warnings", []):
        lines.append(f"warning: {warning['kind']} x{warning.get('count', 1)}: {warning.get('effect', '')}")
    lines.append(f"signature: {result['signature']['line']}")
    return "\n".join(lines)


def trial_lines(result: dict[str, Any]) -> list[str]:
    """pass^k and the goals solved in every trial or none (a run of several trials per goal)."""
    trials = result.get("trials")
    if not trials:
        return []
    lines = [f"over trials: {trials['trials']} per goal, {trials['goals']} goals; {trials['definition']}"]
    lines += [f"{label:20}{cell(value, interval, 1, True)}" for label, value, interval in figure_rows(trials)]
    return lines


def plan(result: dict[str, Any], difference: float) -> dict[str, Any]:
    """The goals x trials a comparison of this system with another needs to detect ``difference`` points
    of Success, this run's variance standing for both (two independent runs: twice its variance, which
    pairing on the same goals and seeds can only lower)."""
    between, within = power.variance_components(outcomes_by_goal(result["per_session"]))
    return {
        "difference": difference,
        "between_goals": between,
        "within_goal": within,
        "needs": power.plan(difference / 100.0, 2 * between, 2 * within),
    }


def plan_text(plan: dict[str, Any]) -> str:
    """:func:`plan`'s answer as ``mwz interact --plan`` prints it."""
    lines = [
        f"to detect {plan['difference']:g} points of Success against another system (80% power, alpha 0.05; "
        f"this run's variance, between goals {plan['between_goals']:.4f}, within a goal {plan['within_goal']:.4f}):"
    ]
    for row in plan["needs"]:
        needed = (
            f"{row['goals']} goals x {row['trials']} trials = {row['sessions']} sessions" if row["goals"] else "n/a"
        )
        lines.append(f"  {row['trials']} trial(s) per goal: {needed}")
    if plan["within_goal"] == 0:
        lines.append("  (one trial per goal, or trials that never differ: run the pilot with --trials 2 or more")
        lines[-1] += " to tell the two variances apart; the numbers above treat all variance as between goals)"
    return "\n".join(lines)

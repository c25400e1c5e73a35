"""A run with user profiles below the CLI (mwz_metrics.comparison.profiles and profiles_table): the
profiles asked for, the users' runs paired with the default user's, and the robustness lines a table
prints, including what no CLI test reaches (a tie, no goal every user has)."""

from __future__ import annotations

from mwz_metrics.comparison import profiles, profiles_table
from mwz_metrics.interactive.scoring import trials


def _run(profile: str, outcomes: list[float], default: profiles.UserRun | None = None) -> profiles.UserRun:
    per_session = [{"id": f"g{i}", "success": v, "inform": 1.0} for i, v in enumerate(outcomes)]
    result = {"success": 100 * sum(outcomes) / len(outcomes), "per_session": per_session}
    return profiles.user_run(profile, f"{profile}.jsonl", (result, {}, []), default, resamples=0)


def test_the_profiles_asked_for_each_once_and_the_default_user_left_out():
    assert profiles.profile_names(["terse", "default", "eager", "terse"], every=False) == ["terse", "eager"]
    every = profiles.profile_names(["terse"], every=True)
    assert every[0] == "terse" and "eager" in every and len(every) == len(set(every)) and "default" not in every


def test_a_profile_run_is_paired_with_the_default_user_s():
    solved, broken = [1, 1, 1, 0], [1, 0, 1, 0]
    default = _run("default", solved)
    terse = _run("terse", broken, default)
    lost = 100 * (sum(broken) - sum(solved)) / len(solved)  # the same goals: the mean paired difference
    assert default.against_default is None
    assert terse.against_default is not None and terse.against_default["success"]["difference"] == lost
    assert terse.against_default["paired_by"] == "goal"


def test_robustness_lines_say_a_tie_and_a_run_without_a_shared_goal():
    per_user = {"default": [{"id": "g0", "success": 1.0}], "terse": [{"id": "g0", "success": 1.0}]}
    tie = trials.robustness(per_user, resamples=0, seed=0)
    assert profiles_table.worst_text(tie) == "every user ties at 100.0"
    lines = profiles_table.robustness_lines(tie)
    assert lines[0].split() == ["worst", "user", "100.0", "n/a", "+0.0"]
    assert lines[-1].endswith("1 goals, 1 sessions each, paired by goal")
    assert profiles_table.robustness_lines(None) == ["robustness: n/a (no goal every user has)"]
    shares = dict(tie, worst={"value": 0.0, "users": ["terse"]}, worst_share={"terse": 0.7, "default": 0.4})
    assert profiles_table.worst_text(shares) == (
        "terse (the worst in 70% of resamples; default 40%, ties counted for each)"
    )

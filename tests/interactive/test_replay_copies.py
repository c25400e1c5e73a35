"""A replay run against a copy that cannot serve BLEU's references fails before its first session (issue 51,
item 5), not after scoring them all."""

from __future__ import annotations

from conftest import one_line_error


def test_a_replay_run_on_a_truncated_copy_is_refused_before_any_session(use_mirror, cli, tmp_path, monkeypatch):
    from mwz_metrics.interactive.harness import api

    monkeypatch.setenv("MWZ_OFFLINE", "1")
    ran_sessions = []
    run_all = api.run_all
    monkeypatch.setattr(api, "run_all", lambda *a, **k: ran_sessions.append(1) or run_all(*a, **k))
    out = tmp_path / "replay.jsonl"
    line = one_line_error(cli("interact", "--system", "oracle", "--simulator", "replay", "--goals", "3", "-o", out))
    assert "--simulator replay" in line and "style mwz22 has no reference for 3 of 3 dialogue(s)" in line
    assert "hold 2 of the release's 1000 test dialogues (a truncated copy)" in line and str(use_mirror) in line
    assert not out.exists() and ran_sessions == []


def test_a_replay_run_on_a_full_copy_runs(synth22, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))
    ran = cli("interact", "--system", "oracle", "--simulator", "replay", "--goals", "2", "-o", tmp_path / "r.jsonl")
    assert ran.returncode == 0, ran.stderr
    assert "bleu mwz22" in ran.stdout

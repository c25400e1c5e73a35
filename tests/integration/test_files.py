"""Files a run reads and writes, handled as a careful tool does (issue 47): symlinks and hard links at
the output and beside it, outputs that name inputs, a last line without its newline, sessions of other
runs appended, hand-edited records, a full disk. Each case through the ``mwz`` command line (in this
process: :func:`cli`), on a few goals of the synthetic mirror."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import one_line_error

from mwz_metrics.interactive.harness import sessions as session_files
from mwz_plugins.errors import InputError

FAST = ("--resamples", "10")
MWZ = str(Path(sys.executable).with_name("mwz"))


@pytest.fixture()
def env(synth22_env):
    """The synth22 mirror for the test (its derived material cached)."""


@pytest.fixture()
def run_file(env, tmp_path, cli) -> Path:
    """A finished run of 3 goals."""
    out = tmp_path / "run.jsonl"
    assert cli("interact", "--system", "oracle", "--goals", 3, "-o", out, *FAST).returncode == 0
    return out


def test_a_symlink_at_the_lock_is_refused_and_its_target_untouched(env, tmp_path, cli):
    precious = tmp_path / "precious.txt"
    precious.write_text("precious\n")
    out = tmp_path / "run.jsonl"
    session_files.lock_path(out).symlink_to(precious)
    assert "lock file is a symlink" in one_line_error(cli("interact", "--system", "echo", "--goals", 2, "-o", out))
    assert precious.read_text() == "precious\n" and not out.exists()
    session_files.lock_path(out).unlink()
    session_files.lock_path(out).mkdir()  # a folder there: one line too, not a bug
    assert "lock file is a folder" in one_line_error(cli("interact", "--system", "echo", "--goals", 2, "-o", out))


def test_an_output_symlink_is_written_through_and_one_file_has_one_lock(env, tmp_path, cli):
    real = tmp_path / "real" / "target.jsonl"
    real.parent.mkdir()
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert cli("interact", "--system", "oracle", "--goals", 2, "-o", link, *FAST).returncode == 0
    assert link.is_symlink() and real.is_file() and len(session_files.read(real)[1]) == 2
    assert not list(tmp_path.rglob("*.tmp")) and not list(tmp_path.rglob("*.lock"))
    with session_files.exclusive(real):  # a run writing the real file (this process): its other name is taken too
        command = [MWZ, "-q", "interact", "--system", "oracle", "--goals", 2, "-o", link, "--overwrite"]
        other = subprocess.run(list(map(str, command)), capture_output=True, text=True, timeout=120)
    assert "another run is writing" in one_line_error(other)


def test_a_file_with_two_names_is_refused_as_an_output(run_file, tmp_path, cli):
    other = tmp_path / "other.jsonl"
    os.link(run_file, other)
    line = one_line_error(cli("interact", "--system", "oracle", "--goals", 3, "-o", other, "--resume"))
    assert "hard links" in line and "other.jsonl" in line


def test_score_only_o_is_the_old_spelling_of_i(run_file, capsys, caplog):
    """``interact --score-only -o FILE`` scores FILE as ``-i FILE`` does until the next release, with one
    warning line (``-o`` is an output in every command; issue 51)."""
    import logging

    from mwz_metrics.cli import main

    printed, warned = {}, {}
    for flag in ("-o", "-i"):
        caplog.clear()
        capsys.readouterr()
        with caplog.at_level(logging.WARNING, logger="mwz"):
            assert main(["interact", "--score-only", flag, str(run_file), *FAST, "--json"]) == 0
        printed[flag] = capsys.readouterr().out
        warned[flag] = [r.getMessage() for r in caplog.records if "is now" in r.getMessage()]
    assert printed["-o"] == printed["-i"] and json.loads(printed["-i"])["sessions"] == 3
    old = "--score-only -o FILE is now --score-only -i FILE (the old name works until the next release)"
    assert warned == {"-o": [old], "-i": []}


def test_an_output_naming_an_input_is_refused_before_anything_runs(run_file, tmp_path, cli):
    before = run_file.read_bytes()
    link = tmp_path / "alias.jsonl"
    link.symlink_to(run_file)
    for command in (
        ("interact", "--score-only", "-i", run_file, "--predictions", run_file),
        ("interact", "--score-only", "-i", run_file, "--result", link),
        ("interact", "--system", "oracle", "--goals", 3, "-o", run_file, "--resume", "--result", run_file),
        ("view", run_file, "-o", link),
        ("compare", "-i", run_file, "-o", run_file),
        ("compare", "-i", run_file, "--per-dialogue-csv", link),
        ("evaluate", "-i", link, "-o", run_file),
    ):
        line = one_line_error(cli(*command))
        assert "is the input" in line or "name one file" in line, (command, line)
    assert run_file.read_bytes() == before
    predictions = tmp_path / "p.json"
    line = one_line_error(
        cli("interact", "--score-only", "-i", run_file, "--predictions", predictions, "--result", predictions)
    )
    assert "name one file" in line and not predictions.exists()


def test_resume_reads_a_last_line_without_its_newline_and_never_writes_onto_it(env, tmp_path, cli):
    whole = tmp_path / "whole.jsonl"
    assert cli("interact", "--system", "oracle", "--goals", 4, "-o", whole, *FAST, "--json").returncode == 0
    lines = whole.read_bytes().split(b"\n")
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"\n".join(lines[:3]))  # the header and two sessions, the last without its newline
    resumed = cli("interact", "--system", "oracle", "--goals", 4, "-o", cut, *FAST, "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["sessions"] == 4
    for check in (("interact", "--score-only", "-i", cut, *FAST), ("view", cut, "-o", tmp_path / "cut.html")):
        assert cli(*check).returncode == 0
    assert {s["id"] for s in session_files.read(cut)[1]} == {s["id"] for s in session_files.read(whole)[1]}


def test_sessions_of_other_goals_are_left_out_with_a_counted_warning(env, tmp_path, cli, caplog):
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    assert cli("interact", "--system", "oracle", "--goals", 3, "-o", small, *FAST).returncode == 0
    assert cli("interact", "--system", "silent", "--goals", 6, "-o", large, *FAST).returncode == 0
    with open(small, "ab") as f:  # two sessions of goals the 3-goal run never had (they failed: Success drops)
        f.write(b"\n".join(large.read_bytes().split(b"\n")[4:6]) + b"\n")
    found = session_files.read_file(small)
    assert found.foreign == 2 and len(found.sessions) == 3
    for command in (
        ("interact", "--score-only", "-i", small, *FAST, "--json"),
        ("interact", "--system", "oracle", "--goals", 3, "-o", small, *FAST, "--resume", "--json"),
        ("evaluate", "-i", small, "-s", "--json"),
    ):
        ran = cli(*command)
        assert ran.returncode == 0, ran.stderr
        result = json.loads(ran.stdout)
        assert result["sessions"] == 3 and result["success"] == 100.0, command
    header = json.loads(small.read_bytes().split(b"\n")[0])
    header.pop("goal_ids")  # a file of an older version: refused where it holds more goals than its run had
    old = tmp_path / "old.jsonl"
    old.write_bytes(json.dumps(header).encode() + b"\n" + b"\n".join(small.read_bytes().split(b"\n")[1:]))
    assert "sessions of another run" in one_line_error(cli("interact", "--score-only", "-i", old))


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda s: s.update(turns={"0": s["turns"][0]}), "field 'turns': not a list"),
        (lambda s: s["turns"][0].update(acts=[[1]]), "turns[0].acts"),
        (lambda s: s.pop("end"), "field 'end'"),
        (lambda s: s["turns"][1].update(state={"hotel": {"area": 3}}), "state hotel.area"),
        (lambda s: s.update(id=7), "field 'id'"),
    ],
)
def test_a_hand_edited_session_record_is_one_line_naming_file_line_and_field(run_file, tmp_path, cli, edit, field):
    lines = run_file.read_bytes().split(b"\n")
    record = json.loads(lines[2])
    edit(record)
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(b"\n".join([lines[0], lines[1], json.dumps(record).encode(), *lines[3:]]))
    for command in (("interact", "--score-only", "-i", edited), ("view", edited, "-o", tmp_path / "v.html")):
        line = one_line_error(cli(*command))
        assert f"{edited}: line 3: " in line and field in line, line


@pytest.fixture()
def small_disk(tmp_path):
    """A 256 KiB tmpfs (root only; a skip naming why elsewhere)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (root only): {mounted.stderr.decode().strip()}")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(path: Path, leave: int = 0) -> None:
    """A file taking the disk's free space but ``leave`` bytes."""
    free = os.statvfs(path.parent)
    path.write_bytes(b"x" * max(free.f_bavail * free.f_frsize - leave, 0))


def test_a_full_disk_is_one_line_keeping_every_finished_session(env, small_disk, cli):
    out = small_disk / "run.jsonl"
    filler = small_disk / "filler"
    _fill(filler, leave=36 * 1024)
    line = one_line_error(cli("interact", "--system", "oracle", "--goals", 20, "-o", out, *FAST))
    assert "No space left on device" in line and f"--resume -o {out}" in line and str(out) in line
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "run.jsonl"]  # no lock, no temporary file
    kept = {s["id"] for s in session_files.read_file(out).sessions}
    assert 0 < len(kept) < 20
    filler.unlink()  # space again: --resume keeps the finished sessions and runs only the others
    resumed = cli("interact", "--system", "oracle", "--goals", 20, "-o", out, *FAST, "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["sessions"] == 20
    assert kept < {s["id"] for s in session_files.read(out)[1]}


def test_a_rewrite_that_finds_the_disk_full_leaves_the_file_and_no_temporary(small_disk, run_file):
    out = small_disk / "run.jsonl"
    out.write_bytes(run_file.read_bytes())
    _fill(small_disk / "filler")
    before = out.read_bytes()
    _, sessions = session_files.read(out)
    with pytest.raises(InputError, match="No space left on device") as error:
        session_files.add_outcomes(out, [{"id": s["id"], "success": True} for s in sessions])
    assert str(out) in str(error.value)
    assert out.read_bytes() == before and sorted(p.name for p in small_disk.iterdir()) == ["filler", "run.jsonl"]


def test_an_output_that_is_no_regular_file_is_written_in_place_never_replaced(env, tmp_path, cli):
    """``-o /dev/null`` (here a named pipe, which is safe to test): written through, never renamed over."""
    import stat
    import threading

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()), daemon=True)
    reader.start()
    predictions = tmp_path / "p.json"
    assert cli("interact", "--system", "oracle", "--goals", 2, "-o", tmp_path / "r.jsonl", "--predictions", predictions)
    assert cli("evaluate", "-i", predictions, "-s", "-o", pipe).returncode == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(pipe).st_mode) and json.loads(received[0])["success"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json", "pipe", "r.jsonl"]

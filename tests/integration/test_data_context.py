"""One data context per process (issue 50, item 4): static and interactive evaluation share MultiWOZ's files,
the venue database and derived data, each loaded once."""

from __future__ import annotations

import collections

import pytest

from mwz_metrics import data_context


@pytest.fixture()
def counted(synth22, monkeypatch):
    """Fresh shared contexts on the synth22 mirror, counting every file lookup and database read."""
    from mwz_datasets import sources
    from mwz_datasets.database import VenueDatabase

    monkeypatch.setenv("MWZ_MIRROR", str(synth22))
    counts: collections.Counter[str] = collections.Counter()
    resolve, from_pinned = sources.resolve, VenueDatabase.from_pinned.__func__

    def counting_resolve(needed, **kwargs):
        needed = list(needed)
        counts.update(s.path for s in needed)
        return resolve(needed, **kwargs)

    def counting_from_pinned(cls, **kwargs):
        counts["database"] += 1
        return from_pinned(cls, **kwargs)

    monkeypatch.setattr(sources, "resolve", counting_resolve)
    monkeypatch.setattr(VenueDatabase, "from_pinned", classmethod(counting_from_pinned))
    data_context.forget()
    yield counts
    data_context.forget()


def test_an_interact_run_loads_the_test_set_and_the_database_once(counted, cli, tmp_path):
    # the run's context reads 2.1 test and validation (one zip) and the database; its scoring's test set reads
    # 2.1 test goals and the database again: before the shared context, the zip was found and checksummed
    # three times and the database read twice
    ran = cli("interact", "--system", "oracle", "--goals", "3", "-o", tmp_path / "run.jsonl")
    assert ran.returncode == 0, ran.stderr
    assert counted["data/MultiWOZ_2.1.zip"] == 1
    assert counted["database"] == 1
    assert all(counted[f"db/{d}_db.json"] == 1 for d in ("restaurant", "hotel", "attraction", "train"))
    loads = data_context.shared().loads
    assert loads["data/MultiWOZ_2.1.zip"] == 1 and loads[data_context.DATABASE] == 1


def test_static_and_interactive_evaluation_share_one_context(counted):
    from mwz_metrics.interactive.harness.context import InteractiveContext
    from mwz_metrics.multiwoz.testset import TestSet

    interactive, static = InteractiveContext(), TestSet()
    assert interactive.data is static.data is data_context.shared()
    assert interactive.database is static.database
    assert TestSet(styles=["mwz22"]).multiwoz21 is static.multiwoz21  # derived data read once
    assert InteractiveContext().test is interactive.test
    assert counted["database"] == 1 and counted["data/MultiWOZ_2.1.zip"] == 1
    # each still names only the files it read
    tables = [f"db/{d}_db.json" for d in ("attraction", "hotel", "restaurant", "train")]
    assert sorted(interactive.signature()["sources"]) == ["data/MultiWOZ_2.1.zip", *tables]
    assert [f["file"].rsplit("/", 1)[-1] for f in static.source_signature(database=False)] == ["MultiWOZ_2.1.zip"]
    assert TestSet().source_signature() == []  # a test set that read nothing names nothing


def test_another_mirror_or_chain_gets_another_context(synth22, mirror, monkeypatch):
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))
    first = data_context.shared()
    assert data_context.shared() is first
    assert data_context.shared(chain="mwzeval-2023") is not first
    monkeypatch.setenv("MWZ_MIRROR", str(mirror))
    assert data_context.shared() is not first


def test_a_changed_file_is_looked_for_again(tmp_path):
    from mwz_datasets.sources import Source

    folder = tmp_path / "copy"
    (folder / "db").mkdir(parents=True)
    table = folder / "db" / "x.json"
    table.write_text("[]")
    source = Source(repo="o/r", commit="0" * 40, path="db/x.json")
    context = data_context.DataContext(data_dir=folder)
    first = context.resolve([source])["db/x.json"]
    assert context.resolve([source])["db/x.json"] is first and context.loads["db/x.json"] == 1
    table.write_text("[1]")
    again = context.resolve([source])["db/x.json"]
    assert again.sha256 != first.sha256 and context.loads["db/x.json"] == 2


def test_one_fingerprint_of_deriving_code(tmp_path):
    from mwz_datasets.derived import code_fingerprint as datasets_fingerprint

    (tmp_path / "b.py").write_text("b = 1\n")
    (tmp_path / "a.py").write_text("a = 1\n")
    (tmp_path / "notes.txt").write_text("not code")
    folder = data_context.code_fingerprint(tmp_path)
    assert folder == datasets_fingerprint(tmp_path)  # the test set's cache keys are unchanged
    assert folder == data_context.code_fingerprint(tmp_path / "a.py", tmp_path / "b.py")
    assert folder != data_context.code_fingerprint(tmp_path / "b.py", tmp_path / "a.py")

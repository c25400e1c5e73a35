"""Old import paths the README or a release showed keep working for one release, each with a DeprecationWarning
(issue 50, item 7); ``to_dataset`` is one function, taking a session file's path or session records."""

from __future__ import annotations

import importlib

import pytest


@pytest.fixture(scope="module")
def session_file(synth22, tmp_path_factory):
    from mwz_metrics.interactive.harness import api

    path = tmp_path_factory.mktemp("run") / "oracle.jsonl"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MWZ_MIRROR", str(synth22))
        run = api.prepare("oracle", goals=3)
        api.run_sessions(run, output=str(path))
    return path


def test_to_dataset_takes_a_path_or_records_under_either_name(session_file):
    pytest.importorskip("datasets")
    from mwz_metrics.interactive import to_dataset
    from mwz_metrics.interactive.harness import sessions as session_files

    _, records = session_files.read(session_file)
    expected = to_dataset(session_file)
    assert expected.num_rows == 3 and expected["dialogue_id"] == [r["id"] for r in records]
    assert to_dataset(records).to_dict() == expected.to_dict()
    with pytest.warns(DeprecationWarning, match=r"use mwz_metrics\.interactive\.to_dataset"):
        from mwz_metrics.interactive.export import to_dataset as old
    for source in (session_file, str(session_file), records):  # the old name took records only
        assert old(source).to_dict() == expected.to_dict()


@pytest.mark.parametrize(
    ("old", "name", "new"),
    [
        ("mwz_metrics.interactive.export", "predictions", "mwz_metrics.interactive.scoring.export"),
        ("mwz_metrics.interactive.export", "predictions_export", "mwz_metrics.interactive.scoring.export"),
        ("mwz_metrics.interactive.reader", "SystemActReader", "mwz_metrics.interactive.user.reader"),
        ("mwz_metrics.interactive.reader", "measure", "mwz_metrics.interactive.user.reader"),
    ],
)
def test_a_moved_name_still_works_and_warns(old, name, new):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated .*: import {name} from {new}"):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), name)
    assert name in module.__all__  # import * too
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018

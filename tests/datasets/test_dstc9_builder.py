"""The dstc9_track1 builder on the real labels and knowledge, with logs written here.

The shared mirror has no logs.json; the tests write logs in the documented format
(one list of speaker/text turns per instance) next to the real labels.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import datasets
import pytest
from conftest import FIXTURES

import mwz_datasets  # noqa: F401  (routes "dstc9_track1")

REPO = "alexa/alexa-with-dstc9-track1-dataset"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, mirror) -> Path:
    root = tmp_path_factory.mktemp("dstc9")
    upstream = mirror / REPO
    shutil.copytree(FIXTURES / "dstc9" / "data" / "train", root / "data" / "train")
    for folder, files in {
        "data": ["knowledge.json"],
        "data/val": ["labels.json"],
        "data_eval": ["knowledge.json", "db.json"],
        "data_eval/test": ["labels.json"],
    }.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name in files:
            os.symlink(upstream / folder / name, root / folder / name)
    for folder in ("data/val", "data_eval/test"):
        labels = json.loads((upstream / folder / "labels.json").read_text())
        logs = [
            [
                {"speaker": "U", "text": f"question {i}"},
                {"speaker": "S", "text": "answer"},
                {"speaker": "U", "text": f"follow-up {i}"},
            ]
            for i in range(len(labels))
        ]
        (root / folder / "logs.json").write_text(json.dumps(logs))
    return root


def _load(data_dir, name, split, tmp_path):
    return datasets.load_dataset(
        "dstc9_track1", name, data_dir=str(data_dir), split=split, cache_dir=str(tmp_path / "hf")
    )


def test_instances_resolve_knowledge_and_source(data_dir, mirror, tmp_path):
    test = _load(data_dir, "instances", "test", tmp_path)
    labels = json.loads((mirror / REPO / "data_eval/test/labels.json").read_text())
    knowledge = json.loads((mirror / REPO / "data_eval/knowledge.json").read_text())
    assert len(test) == len(labels)
    assert {row["source"] for row in test} == {label["source"] for label in labels}
    for row, label in zip(test.select(range(300)), labels[:300]):
        assert row["target"] is label["target"]
        assert row["response"] == label.get("response", "")
        assert len(row["knowledge"]) == len(label.get("knowledge", []))
        for got, ref in zip(row["knowledge"], label.get("knowledge", [])):
            doc = knowledge[ref["domain"]][str(ref["entity_id"])]["docs"][str(ref["doc_id"])]
            assert (got["title"], got["body"]) == (doc["title"], doc["body"])
            assert got["entity_id"] == str(ref["entity_id"])
        assert row["context"][-1]["text"] == f"follow-up {row['index']}"


def test_train_fixture_and_validation(data_dir, tmp_path):
    train = _load(data_dir, "instances", "train", tmp_path)
    assert train[0]["knowledge"][0]["entity_name"] == "A AND B GUEST HOUSE"
    assert train[0]["context"][1] == {"speaker": "S", "text": "Ashley Hotel is in the north."}
    assert train[1]["target"] is False and train[1]["knowledge"] == []
    validation = _load(data_dir, "instances", "validation", tmp_path)
    assert len(validation) == 9663


def test_knowledge_and_db_configs(data_dir, mirror, tmp_path):
    snippets = _load(data_dir, "knowledge", "test", tmp_path)
    knowledge = json.loads((mirror / REPO / "data_eval/knowledge.json").read_text())
    assert len(snippets) == sum(len(e["docs"]) for d in knowledge.values() for e in d.values())
    assert {row["domain"] for row in snippets} == set(knowledge)
    train_snippets = _load(data_dir, "knowledge", "train", tmp_path)
    assert len(train_snippets) < len(snippets)
    db = _load(data_dir, "db", "train", tmp_path)
    raw = json.loads((mirror / REPO / "data_eval/db.json").read_text())
    assert len(db) == sum(len(v) for v in raw.values())
    assert json.loads(db[0]["fields"])["name"] == db[0]["name"]


def test_unknown_snippet_is_an_error(tmp_path, data_dir):
    broken = tmp_path / "broken"
    shutil.copytree(data_dir, broken, symlinks=True)
    labels_path = broken / "data" / "train" / "labels.json"
    labels = json.loads(labels_path.read_text())
    labels[0]["knowledge"][0]["doc_id"] = 99999
    labels_path.write_text(json.dumps(labels))
    with pytest.raises(Exception) as caught:
        _load(broken, "instances", "train", tmp_path)
    # datasets wraps the builder's error; ours names the instance and the snippet
    messages = []
    error = caught.value
    while error is not None:
        messages.append(str(error))
        error = error.__cause__ or error.__context__
    assert any("instance 0" in m and "hotel/0/99999" in m for m in messages), messages

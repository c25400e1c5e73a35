"""MultiWOZ builders: raw readers, the datasets builder, and annotation survival.

Fixture tests build a tiny fake copy of ``budzianowski/multiwoz`` from the
hand-written dialogues in ``tests/fixtures/multiwoz``; shared tests use the
mirror and the genuine sample dialogues in ``../shared``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
import zipfile
from pathlib import Path

import datasets
import pytest
from conftest import FIXTURES, shared_path

import mwz_datasets  # noqa: F401  (routes "multiwoz" to the builder)
from mwz_datasets import multiwoz_raw
from mwz_datasets.multiwoz import MultiWOZ, features
from mwz_datasets.sources import ChecksumError, MissingSourceError

FIX = FIXTURES / "multiwoz"
REPO = "budzianowski/multiwoz"


# --------------------------------------------------------------------------- fake repositories


def write_zip(path: Path, folder: str, data: dict, lists: dict[str, str], extra: dict | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{folder}/data.json", json.dumps(data))
        for name, text in lists.items():
            archive.writestr(f"{folder}/{name}", text)
        for name, content in (extra or {}).items():
            archive.writestr(f"{folder}/{name}", content)
    return path


def fixture_21() -> dict:
    return json.loads((FIX / "mwz21_data.json").read_text())


def fake_repo_21(root: Path, data: dict | None = None) -> Path:
    """A repository copy holding a 2.1-format zip of ``data`` (default: the fixture)."""
    write_zip(
        root / "data/MultiWOZ_2.1.zip",
        "MultiWOZ_2.1",
        fixture_21() if data is None else data,
        {
            "valListFile.txt": (FIX / "mwz21_valListFile.txt").read_text(),
            "testListFile.txt": (FIX / "mwz21_testListFile.txt").read_text(),
        },
    )
    return root


def fake_repo_22(root: Path, dialogues: list | None = None, acts: dict | None = None) -> Path:
    """A 2.2 repository copy: the dialogues in train/dialogues_001.json, every other file empty."""
    base = root / "data/MultiWOZ_2.2"
    for split in multiwoz_raw.SPLITS:
        for path in multiwoz_raw.v22_paths(split):
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("[]")
    if dialogues is None:
        dialogues = json.loads((FIX / "mwz22_dialogues.json").read_text())
    if acts is None:
        acts = json.loads((FIX / "mwz22_dialog_acts.json").read_text())
    (base / "train/dialogues_001.json").write_text(json.dumps(dialogues))
    (base / "dialog_acts.json").write_text(json.dumps(acts))
    return root


def files_of(root: Path, version: str) -> dict[str, Path]:
    return {p: root / p for p in multiwoz_raw.source_paths(version, multiwoz_raw.SPLITS)}


# --------------------------------------------------------------------------- rebuilding raw dialogues


def _text(value):
    return value if isinstance(value, str) else json.dumps(value)


def normalized_goal(goal: dict) -> dict:
    """The raw goal with non-string slot values as JSON text (as the schema stores them)."""
    out = {}
    for key, part in goal.items():
        if key in ("message", "topic") or not isinstance(part, dict):
            out[key] = [part] if key == "message" and isinstance(part, str) else part
            continue
        out[key] = {k: ({s: _text(v) for s, v in p.items()} if isinstance(p, dict) else p) for k, p in part.items()}
    return out


def rebuild_v2x(example: dict) -> dict:
    """A 2.0/2.1 ``data.json`` entry rebuilt from a unified example."""
    goal_in = example["goal"]
    goal = {}
    for d in goal_in["domains"]:
        part = {}
        for name in multiwoz_raw.GOAL_PARTS:
            value = d[name]
            if value is None:
                continue
            part[name] = list(value) if name == "reqt" else {s["slot"]: s["value"] for s in value}
        goal[d["domain"]] = part
    if goal_in["topic"] is not None:
        goal["topic"] = {t["domain"]: t["value"] for t in goal_in["topic"]}
    if goal_in["message"] is not None:
        goal["message"] = list(goal_in["message"])
    log = []
    for turn in example["turns"]:
        metadata = {}
        for b in turn["booked"]:
            metadata.setdefault(b["domain"], {"book": {}, "semi": {}})["book"]["booked"] = json.loads(b["entries"])
        for b in turn["belief_state"]:
            metadata.setdefault(b["domain"], {"book": {}, "semi": {}})[b["kind"]][b["slot"]] = b["value"]
        acts = {}
        for a in turn["dialogue_acts"]:
            acts.setdefault(a["act"], []).append([a["slot"], a["value"]])
        log.append(
            {
                "text": turn["utterance"],
                "metadata": metadata,
                "dialog_act": acts,
                "span_info": [[s["act"], s["slot"], s["value"], s["start"], s["end"]] for s in turn["spans"]],
            }
        )
    return {"goal": goal, "log": log}


def expected_v2x(raw: dict) -> dict:
    log = []
    for turn in raw["log"]:
        turn = dict(turn)
        if not isinstance(turn.get("dialog_act"), dict):  # "No Annotation"
            turn["dialog_act"] = {}
        log.append(turn)
    return {"goal": normalized_goal(raw["goal"]), "log": log}


def rebuild_v22(example: dict) -> dict:
    """A 2.2 ``dialogues_*.json`` entry rebuilt from a unified example."""
    turns = []
    for turn in example["turns"]:
        frames = []
        for f in turn["frames"]:
            slots = []
            for s in f["slots"]:
                if s["copy_from"] is not None:
                    slots.append({"copy_from": s["copy_from"], "slot": s["slot"], "value": s["copy_from_value"]})
                    continue
                slot = {"slot": s["slot"], "value": s["value"]}
                if s["start"] != -1:
                    slot["start"] = s["start"]
                if s["exclusive_end"] != -1:
                    slot["exclusive_end"] = s["exclusive_end"]
                slots.append(slot)
            frame = {"actions": [], "service": f["service"], "slots": slots}
            if f["active_intent"] is not None:
                frame["state"] = {
                    "active_intent": f["active_intent"],
                    "requested_slots": f["requested_slots"],
                    "slot_values": {sv["slot"]: sv["values"] for sv in f["slot_values"]},
                }
            frames.append(frame)
        turns.append(
            {
                "frames": frames,
                "speaker": turn["speaker"],
                "turn_id": str(turn["turn_id"]),
                "utterance": turn["utterance"],
            }
        )
    return {"dialogue_id": example["dialogue_id"], "services": example["domains"], "turns": turns}


def rebuild_v22_acts(example: dict) -> dict:
    acts = {}
    for turn in example["turns"]:
        if not turn["dialogue_acts"] and not turn["spans"]:
            continue
        entry = {"dialog_act": {}, "span_info": []}
        for a in turn["dialogue_acts"]:
            entry["dialog_act"].setdefault(a["act"], []).append([a["slot"], a["value"]])
        entry["span_info"] = [[s["act"], s["slot"], s["value"], s["start"], s["end"]] for s in turn["spans"]]
        acts[str(turn["turn_id"])] = entry
    return acts


def check_turn_parity(example: dict) -> None:
    speakers = [t["speaker"] for t in example["turns"]]
    assert speakers == ["USER" if i % 2 == 0 else "SYSTEM" for i in range(len(speakers))], example["dialogue_id"]
    assert [t["turn_id"] for t in example["turns"]] == list(range(len(speakers)))


# --------------------------------------------------------------------------- raw reader, fixtures


def test_sources_select_only_needed_files():
    assert [s.path for s in multiwoz_raw.sources("2.1", ["test"])] == ["data/MultiWOZ_2.1.zip"]
    assert [s.path for s in multiwoz_raw.sources("2.0", ["train"])] == ["data/MultiWOZ_2.0.zip"]
    dev = [s.path for s in multiwoz_raw.sources("2.2", ["validation"])]
    assert dev == [
        "data/MultiWOZ_2.2/dev/dialogues_001.json",
        "data/MultiWOZ_2.2/dev/dialogues_002.json",
        "data/MultiWOZ_2.2/dialog_acts.json",
    ]
    everything = [s.path for s in multiwoz_raw.sources("2.2", multiwoz_raw.SPLITS)]
    assert len(everything) == 17 + 2 + 2 + 1
    assert "data/MultiWOZ_2.2/train/dialogues_017.json" in everything
    assert all(s.repo == REPO for s in multiwoz_raw.sources("2.2", ["train"]))
    with pytest.raises(ValueError, match="dev"):
        multiwoz_raw.sources("2.2", ["dev"])
    with pytest.raises(ValueError, match="2.3"):
        multiwoz_raw.sources("2.3", ["test"])


def test_raw_21_splits_and_round_trip(tmp_path):
    root = fake_repo_21(tmp_path)
    raw = fixture_21()
    seen = {}
    for split in multiwoz_raw.SPLITS:
        for example in multiwoz_raw.iter_dialogues("2.1", split, files_of(root, "2.1")):
            seen[example["dialogue_id"]] = split
            assert example["split"] == split and example["version"] == "2.1"
            assert example["key"] == example["dialogue_id"][: -len(".json")].lower()
            check_turn_parity(example)
            assert rebuild_v2x(example) == expected_v2x(raw[example["dialogue_id"]])
    assert seen == {"TRN0001.json": "train", "VAL0001.json": "validation", "TST0001.json": "test"}


def test_raw_21_goal_details(tmp_path):
    root = fake_repo_21(tmp_path)
    train = list(multiwoz_raw.iter_dialogues("2.1", "train", files_of(root, "2.1")))[0]
    assert train["domains"] == ["hotel"]  # empty goal domains are not dialogue domains
    hotel = next(d for d in train["goal"]["domains"] if d["domain"] == "hotel")
    assert {"slot": "invalid", "value": "false"} in hotel["book"]
    assert hotel["reqt"] is None and hotel["fail_info"] == []
    booked = {b["domain"]: json.loads(b["entries"]) for b in train["turns"][3]["booked"]}
    assert booked["hotel"] == [{"name": "ash lodge", "reference": "ASH00001"}]
    val = list(multiwoz_raw.iter_dialogues("2.1", "validation", files_of(root, "2.1")))[0]
    assert val["goal"]["message"] == ["You were robbed. Ask for the police address"]  # a string becomes a list of one
    assert val["goal"]["topic"] is None


def test_raw_20_zip_layout_and_separate_acts(tmp_path):
    raw = fixture_21()
    # 2.0 turns carry only text and metadata; acts come from dialogue_acts.json
    data = {
        k: {"goal": v["goal"], "log": [{"text": t["text"], "metadata": t["metadata"]} for t in v["log"]]}
        for k, v in raw.items()
    }
    acts = {"TRN0001": {"1": {"Hotel-Recommend": [["Name", "the ash lodge"]]}, "2": "No Annotation"}}
    path = write_zip(
        tmp_path / "data/MultiWOZ_2.0.zip",
        "MULTIWOZ2 2",
        data,
        {"valListFile.json": "VAL0001.json\n", "testListFile.json": "TST0001.json\n"},
        {"dialogue_acts.json": json.dumps(acts)},
    )
    files = {"data/MultiWOZ_2.0.zip": path}
    (train,) = multiwoz_raw.iter_dialogues("2.0", "train", files)
    assert [t["dialogue_acts"] for t in train["turns"]] == [
        [],
        [{"act": "Hotel-Recommend", "slot": "Name", "value": "the ash lodge"}],
        [],
        [],
    ]
    assert [t["spans"] for t in train["turns"]] == [[]] * 4
    assert [e["dialogue_id"] for e in multiwoz_raw.iter_dialogues("2.0", "test", files)] == ["TST0001.json"]


def test_raw_22_round_trip():
    dialogues = json.loads((FIX / "mwz22_dialogues.json").read_text())
    acts = json.loads((FIX / "mwz22_dialog_acts.json").read_text())
    examples = [multiwoz_raw.convert_v22("train", d, acts.get(d["dialogue_id"])) for d in dialogues]
    assert [rebuild_v22(e) for e in examples] == dialogues
    assert {e["dialogue_id"]: rebuild_v22_acts(e) for e in examples} == acts
    copy = examples[0]["turns"][2]["frames"][1]["slots"][0]
    assert copy == {
        "slot": "taxi-destination",
        "value": None,
        "start": -1,
        "exclusive_end": -1,
        "copy_from": "hotel-name",
        "copy_from_value": ["ash lodge"],
    }
    system_frame = examples[0]["turns"][1]["frames"][0]
    assert system_frame["active_intent"] is None and system_frame["slot_values"] is None
    # character offsets, end exclusive
    for turn in examples[0]["turns"]:
        for span in turn["spans"]:
            assert turn["utterance"][span["start"] : span["end"]] == span["value"]


def test_broken_zip_names_the_file(tmp_path):
    root = fake_repo_21(tmp_path)
    path = root / "data/MultiWOZ_2.1.zip"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(multiwoz_raw.RawDataError, match="MultiWOZ_2.1.zip"):
        list(multiwoz_raw.iter_dialogues("2.1", "test", files_of(root, "2.1")))


def test_broken_json_names_the_file(tmp_path):
    root = fake_repo_22(tmp_path)
    bad = root / "data/MultiWOZ_2.2/dev/dialogues_002.json"
    bad.write_text('[{"dialogue_id": ')
    with pytest.raises(multiwoz_raw.RawDataError, match="dev/dialogues_002.json"):
        list(multiwoz_raw.iter_dialogues("2.2", "validation", files_of(root, "2.2")))
    root = fake_repo_21(tmp_path / "z", data=None)
    path = root / "data/MultiWOZ_2.1.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("MultiWOZ_2.1/data.json", "{not json")
        archive.writestr("MultiWOZ_2.1/valListFile.txt", "")
        archive.writestr("MultiWOZ_2.1/testListFile.txt", "")
    with pytest.raises(multiwoz_raw.RawDataError, match=r"MultiWOZ_2.1.zip:MultiWOZ_2.1/data.json"):
        list(multiwoz_raw.iter_dialogues("2.1", "test", files_of(root, "2.1")))


# --------------------------------------------------------------------------- builder, fixtures


def test_builder_21_data_dir_round_trip_through_arrow(tmp_path):
    root = fake_repo_21(tmp_path / "repo")
    builder = MultiWOZ(config_name="2.1", data_dir=str(root), cache_dir=str(tmp_path / "cache"))
    builder.download_and_prepare()
    dataset = builder.as_dataset()
    assert {split: dataset[split].num_rows for split in dataset} == {"train": 1, "validation": 1, "test": 1}
    raw = fixture_21()
    for split in dataset:
        for example in dataset[split]:
            assert rebuild_v2x(example) == expected_v2x(raw[example["dialogue_id"]])
    zip_path = root / "data/MultiWOZ_2.1.zip"
    ((url, entry),) = builder.source_checksums().items()
    assert url.endswith("/data/MultiWOZ_2.1.zip")
    assert entry["checksum"] == hashlib.sha256(zip_path.read_bytes()).hexdigest()
    assert entry["checksum"] in dataset["test"].info.description


def test_load_dataset_22_data_dir_and_default_config(tmp_path):
    root = fake_repo_22(tmp_path / "repo")
    dataset = datasets.load_dataset("multiwoz", data_dir=str(root), cache_dir=str(tmp_path / "cache"))
    assert {split: dataset[split].num_rows for split in dataset} == {"train": 1, "validation": 0, "test": 0}
    example = dataset["train"][0]
    assert example["version"] == "2.2"  # the default config
    dialogues = json.loads((FIX / "mwz22_dialogues.json").read_text())
    assert rebuild_v22(example) == dialogues[0]
    assert dataset["train"].features == features()


def test_mirror_env_and_empty_splits(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    fake_repo_21(mirror / REPO, data={k: v for k, v in fixture_21().items() if k != "TRN0001.json"})
    monkeypatch.setenv("MWZ_MIRROR", str(mirror))
    dataset = datasets.load_dataset("multiwoz", "2.1", cache_dir=str(tmp_path / "cache"))
    assert {split: dataset[split].num_rows for split in dataset} == {"train": 0, "validation": 1, "test": 1}
    assert dataset["train"].features == features()
    # loading again comes from the cache, checksums included
    again = MultiWOZ(config_name="2.1", cache_dir=str(tmp_path / "cache"))
    again.download_and_prepare()
    assert list(again.source_checksums()) == [multiwoz_raw.sources("2.1")[0].url]


def test_all_checks_reports_checksum_mismatch(tmp_path):
    root = fake_repo_21(tmp_path / "repo")
    with pytest.raises(ChecksumError) as error:
        datasets.load_dataset(
            "multiwoz", "2.1", data_dir=str(root), cache_dir=str(tmp_path / "cache"), verification_mode="all_checks"
        )
    message = str(error.value)
    pinned = multiwoz_raw.sources("2.1")[0]
    assert "budzianowski/multiwoz/data/MultiWOZ_2.1.zip" in message
    assert str(pinned.size) in message and str((root / pinned.path).stat().st_size) in message


def test_missing_file_lists_what_and_where(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    fake_repo_22(mirror / REPO)
    (mirror / REPO / "data/MultiWOZ_2.2/dev/dialogues_002.json").unlink()
    monkeypatch.setenv("MWZ_MIRROR", str(mirror))
    with pytest.raises(MissingSourceError) as error:
        datasets.load_dataset("multiwoz", "2.2", cache_dir=str(tmp_path / "cache"))
    message = str(error.value)
    assert "1 source file(s)" in message
    assert "budzianowski/multiwoz/data/MultiWOZ_2.2/dev/dialogues_002.json" in message
    assert str(mirror / REPO / "data/MultiWOZ_2.2/dev/dialogues_002.json") in message


def test_offline_without_sources_fails_fast(tmp_path, monkeypatch):
    monkeypatch.delenv("MWZ_MIRROR", raising=False)
    start = time.monotonic()
    with pytest.raises(MissingSourceError) as error:
        datasets.load_dataset("multiwoz", "2.1", cache_dir=str(tmp_path / "cache"))
    assert time.monotonic() - start < 5
    message = str(error.value)
    assert "data/MultiWOZ_2.1.zip" in message and "offline" in message
    assert "MWZ_MIRROR" in message and "data_dir=" in message and "network" in message


def test_unknown_config_lists_configs(tmp_path):
    with pytest.raises(ValueError) as error:
        datasets.load_dataset("multiwoz", "2.3", cache_dir=str(tmp_path / "cache"))
    assert all(name in str(error.value) for name in ("'2.0'", "'2.1'", "'2.2'"))


def test_module_has_one_builder_class():
    import inspect

    import mwz_datasets.multiwoz as module

    builders = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, datasets.DatasetBuilder) and obj.__module__ == module.__name__
    ]
    assert builders == [MultiWOZ]
    assert [c.name for c in MultiWOZ.BUILDER_CONFIGS] == ["2.0", "2.1", "2.2"]
    assert MultiWOZ.DEFAULT_CONFIG_NAME == "2.2"


# --------------------------------------------------------------------------- shared data


def test_original_21_samples_survive_arrow(tmp_path):
    samples = json.loads(shared_path("data", "multiwoz21", "samples", "original_examples.json").read_text())
    assert len(samples) == 5
    ids = list(samples)
    # one per split, to go through every split generator
    lists = {"valListFile.txt": ids[1] + "\n", "testListFile.txt": ids[2] + "\n" + ids[3] + "\n"}
    write_zip(tmp_path / "repo/data/MultiWOZ_2.1.zip", "MultiWOZ_2.1", samples, lists)
    dataset = datasets.load_dataset(
        "multiwoz", "2.1", data_dir=str(tmp_path / "repo"), cache_dir=str(tmp_path / "cache")
    )
    rebuilt = {}
    for split in dataset:
        for example in dataset[split]:
            check_turn_parity(example)
            rebuilt[example["dialogue_id"]] = rebuild_v2x(example)
    assert sorted(rebuilt) == sorted(ids)
    for dialogue_id, raw in samples.items():
        assert rebuilt[dialogue_id] == expected_v2x(raw), dialogue_id


def test_original_22_samples_survive_arrow(tmp_path):
    samples = json.loads(shared_path("data", "multiwoz22", "samples", "original_examples.json").read_text())
    assert len(samples) == 5
    # "filename" records which upstream file a sample came from; it is not a dialogue field
    raw = [{k: v for k, v in s.items() if k != "filename"} for s in samples]
    root = fake_repo_22(tmp_path / "repo", dialogues=raw, acts={})
    dataset = datasets.load_dataset("multiwoz", "2.2", data_dir=str(root), cache_dir=str(tmp_path / "cache"))
    assert [rebuild_v22(e) for e in dataset["train"]] == raw


@pytest.mark.parametrize(
    ("config", "counts"),
    [
        ("2.1", {"train": 0, "validation": 1000, "test": 1000}),
        ("2.0", {"train": 0, "validation": 999, "test": 1000}),
        ("2.2", {"train": 17, "validation": 2, "test": 2}),
    ],
)
def test_mirror_split_sizes(use_mirror, tmp_path, config, counts):
    dataset = datasets.load_dataset("multiwoz", config, cache_dir=str(tmp_path / "cache"))
    assert {split: dataset[split].num_rows for split in dataset} == counts
    for split in dataset:
        assert set(dataset[split]["split"]) <= {split}
        assert set(dataset[split]["version"]) <= {config}
    if config != "2.2":
        for example in dataset["test"].select(range(50)):
            check_turn_parity(example)


def test_mirror_21_booked_matches_mwzeval(use_mirror, tmp_path):
    """mwzeval's booked_domains.json equals the non-empty ``booked`` lists of 2.1 system turns."""
    booked_domains = json.loads(shared_path("data", "mwzeval", "booked_domains.json").read_text())
    files = {"data/MultiWOZ_2.1.zip": use_mirror / REPO / "data/MultiWOZ_2.1.zip"}
    tracked = {"restaurant", "hotel", "train", "attraction"}
    matches = total = 0
    for example in multiwoz_raw.iter_dialogues("2.1", "test", files):
        ours = [
            sorted(b["domain"] for b in t["booked"] if b["domain"] in tracked and json.loads(b["entries"]))
            for t in example["turns"]
            if t["speaker"] == "SYSTEM"
        ]
        theirs = [sorted(domains) for domains in booked_domains[example["key"]]]
        total += 1
        matches += ours == theirs
    assert (matches, total) == (1000, 1000)


def test_mirror_all_checks_names_file_expected_actual(use_mirror, tmp_path):
    with pytest.raises(ChecksumError) as error:
        datasets.load_dataset("multiwoz", "2.1", cache_dir=str(tmp_path / "cache"), verification_mode="all_checks")
    message = str(error.value)
    assert "data/MultiWOZ_2.1.zip" in message and "20241542" in message
    assert str((use_mirror / REPO / "data/MultiWOZ_2.1.zip").stat().st_size) in message


def test_mirror_default_verification_reports_mismatch(use_mirror, tmp_path):
    builder = MultiWOZ(config_name="2.1", cache_dir=str(tmp_path / "cache"))
    builder.download_and_prepare()
    description = builder.info.description
    record = json.loads(description.split("Sources: ", 1)[1])
    assert record[0]["origin"] == "mirror" and record[0]["pinned"] is False and record[0]["verified"] is False
    actual = hashlib.sha256((use_mirror / REPO / "data/MultiWOZ_2.1.zip").read_bytes()).hexdigest()
    assert record[0]["sha256"] == actual


def test_data_dir_beats_mirror(use_mirror, tmp_path):
    root = fake_repo_21(tmp_path / "repo")
    dataset = datasets.load_dataset("multiwoz", "2.1", data_dir=str(root), cache_dir=str(tmp_path / "cache"))
    assert dataset["test"]["dialogue_id"] == ["TST0001.json"]
    shutil.rmtree(root)

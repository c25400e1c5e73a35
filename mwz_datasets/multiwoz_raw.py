"""Pure-python reading of the raw MultiWOZ 2.0, 2.1 and 2.2 upstream files.

No Arrow here: the metrics library reuses this module to read references
straight from the upstream files. Examples come out as plain dicts in the
unified schema documented in :mod:`mwz_datasets.multiwoz` (one schema across
versions), in source order.

Upstream layouts (``budzianowski/multiwoz`` at the pinned commit):

- 2.0: ``data/MultiWOZ_2.0.zip`` with ``MULTIWOZ2 2/data.json``,
  ``valListFile.json``, ``testListFile.json`` (and, in the real zip,
  ``dialogue_acts.json``, read when present);
- 2.1: ``data/MultiWOZ_2.1.zip`` with ``MultiWOZ_2.1/data.json``,
  ``valListFile.txt``, ``testListFile.txt``;
- 2.2: ``data/MultiWOZ_2.2/{train,dev,test}/dialogues_NNN.json`` and
  ``data/MultiWOZ_2.2/dialog_acts.json``.

Zip members are found by file name, since the inner folder differs between
versions. For 2.0/2.1 the train split is every dialogue of ``data.json`` that is
in neither list file.
"""

from __future__ import annotations

import json
import logging
import os
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mwz_datasets import catalog
from mwz_datasets.sources import Source
from mwz_plugins.errors import InputError

logger = logging.getLogger(__name__)

VERSIONS = ("2.0", "2.1", "2.2")
SPLITS = ("train", "validation", "test")
# Dialogues of the test split in every MultiWOZ version (testListFile.json): fewer means a truncated copy.
TEST_DIALOGUES = 1000
ZIP_PATHS = {"2.0": "data/MultiWOZ_2.0.zip", "2.1": "data/MultiWOZ_2.1.zip"}
V22_ROOT = "data/MultiWOZ_2.2"
V22_FOLDERS = {"train": "train", "validation": "dev", "test": "test"}
V22_FILE_COUNTS = {"train": 17, "validation": 2, "test": 2}
V22_ACTS = f"{V22_ROOT}/dialog_acts.json"
LIST_FILES = {
    "2.0": {"validation": "valListFile.json", "test": "testListFile.json"},
    "2.1": {"validation": "valListFile.txt", "test": "testListFile.txt"},
}
GOAL_PARTS = ("info", "reqt", "book", "fail_info", "fail_book")


class RawDataError(InputError):
    """A raw file is unreadable or not in the expected format."""


def _check(version: str, split: str | None = None) -> None:
    if version not in VERSIONS:
        raise InputError(f"unknown MultiWOZ version {version!r}; expected one of {', '.join(VERSIONS)}")
    if split is not None and split not in SPLITS:
        raise InputError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")


def v22_paths(split: str) -> list[str]:
    """The ``dialogues_NNN.json`` paths of a MultiWOZ 2.2 split."""
    folder = V22_FOLDERS[split]
    return [f"{V22_ROOT}/{folder}/dialogues_{i:03d}.json" for i in range(1, V22_FILE_COUNTS[split] + 1)]


def source_paths(version: str, splits: Iterable[str]) -> list[str]:
    """Repository paths of the files that ``splits`` of ``version`` need."""
    splits = list(splits)
    _check(version)
    for split in splits:
        _check(version, split)
    if version in ZIP_PATHS:
        return [ZIP_PATHS[version]]
    paths = [p for split in SPLITS if split in splits for p in v22_paths(split)]
    return paths + [V22_ACTS]


def sources(version: str, splits: Iterable[str] = SPLITS) -> list[Source]:
    """The pinned upstream files that ``splits`` of ``version`` need."""
    return [catalog.multiwoz(path) for path in source_paths(version, splits)]


def evaluation_key(dialogue_id: str) -> str:
    """``"PMUL1266.json"`` / ``"PMUL1266"`` / ``"pmul1266"`` -> ``"pmul1266"`` (the key evaluation scripts use)."""
    name = dialogue_id.strip()
    if name.lower().endswith(".json"):
        name = name[: -len(".json")]
    return name.lower()


def _as_text(value: Any) -> str | None:
    # Values are stored as strings; non-strings (goal flags such as
    # ``book.invalid``) as their JSON text, so ``True`` -> ``"true"``.
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


# What to do about a truncated or corrupt upstream copy.
_FIX = "the copy is truncated or corrupt: replace it with the upstream file, or delete it to download it again"


def _load_json(data: bytes, where: str) -> Any:
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RawDataError(f"{where}: broken JSON ({error}); {_FIX}") from None


def _read_json_file(path: Path) -> Any:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise RawDataError(f"{path}: cannot read ({error})") from None
    return _load_json(data, str(path))


# --------------------------------------------------------------------------- 2.0 / 2.1


class ZipArchive:
    """The parsed content of a 2.0/2.1 zip: dialogues, split lists, optional acts."""

    def __init__(self, version: str, path: Path):
        self.version = version
        self.path = Path(path)
        try:
            with zipfile.ZipFile(self.path) as archive:
                members = {os.path.basename(name): name for name in archive.namelist() if not name.endswith("/")}
                self.dialogues = self._member_json(archive, members, "data.json")
                self.lists = {
                    split: self._split_list(archive, members, name) for split, name in LIST_FILES[version].items()
                }
                self.acts = (
                    self._member_json(archive, members, "dialogue_acts.json")
                    if "dialogue_acts.json" in members
                    else None
                )
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
            raise RawDataError(f"{self.path}: not a readable zip archive ({error}); {_FIX}") from None
        if not isinstance(self.dialogues, dict):
            raise RawDataError(f"{self.path}: data.json is not an object of dialogues")

    def _member(self, archive: zipfile.ZipFile, members: dict[str, str], name: str) -> bytes:
        if name not in members:
            raise RawDataError(f"{self.path}: no member named {name!r} (members: {sorted(members)})")
        try:
            return archive.read(members[name])
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
            raise RawDataError(f"{self.path}: cannot read member {members[name]!r} ({error})") from None

    def _member_json(self, archive, members, name) -> Any:
        return _load_json(self._member(archive, members, name), f"{self.path}:{members.get(name, name)}")

    def _split_list(self, archive, members, name) -> set[str]:
        raw = self._member(archive, members, name)
        where = f"{self.path}:{members[name]}"
        # Both versions' list files hold one id per line, despite 2.0's ".json";
        # a JSON list is accepted too.
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise RawDataError(f"{where}: not UTF-8 text ({error})") from None
        if text.lstrip().startswith("["):
            ids = _load_json(raw, where)
            if not isinstance(ids, list):
                raise RawDataError(f"{where}: expected a list of dialogue ids")
        else:
            ids = text.split()
        return {evaluation_key(str(i)) for i in ids}

    def split_of(self, dialogue_id: str) -> str:
        """The split whose list holds ``dialogue_id``."""
        key = evaluation_key(dialogue_id)
        for split, keys in self.lists.items():
            if key in keys:
                return split
        return "train"

    def _separate_acts(self, dialogue_id: str) -> Any:
        # 2.0 dialogue_acts.json is keyed by the id without ".json".
        if not self.acts:
            return None
        stem = dialogue_id[: -len(".json")] if dialogue_id.endswith(".json") else dialogue_id
        return self.acts.get(stem, self.acts.get(dialogue_id))

    def iter_raw(self, split: str) -> Iterator[tuple[str, dict]]:
        """``(dialogue id, raw entry)`` of ``split``, unconverted."""
        _check(self.version, split)
        for dialogue_id, raw in self.dialogues.items():
            if self.split_of(dialogue_id) == split:
                yield dialogue_id, raw

    def iter_dialogues(self, split: str) -> Iterator[dict]:
        """Dialogues of ``split`` in the unified schema."""
        for dialogue_id, raw in self.iter_raw(split):
            acts = self._separate_acts(dialogue_id)
            yield convert_v2x(self.version, split, dialogue_id, raw, separate_acts=acts)


def _goal_slots(value: Any, where: str) -> list[dict] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RawDataError(f"{where}: expected an object of slots, got {type(value).__name__}")
    return [{"slot": slot, "value": _as_text(v)} for slot, v in value.items()]


def convert_goal(raw_goal: Mapping[str, Any], where: str) -> dict:
    """The ``goal`` of a 2.0/2.1 dialogue; absent parts are ``None``, empty ones ``[]``."""
    message = raw_goal.get("message")
    if isinstance(message, str):
        message = [message]
    topic = raw_goal.get("topic")
    domains = []
    for domain, part in raw_goal.items():
        if domain in ("message", "topic"):
            continue
        if not isinstance(part, dict):
            raise RawDataError(f"{where}: goal[{domain!r}] is a {type(part).__name__}, expected an object")
        unknown = set(part) - set(GOAL_PARTS)
        if unknown:
            raise RawDataError(f"{where}: goal[{domain!r}] has unknown keys {sorted(unknown)}")
        reqt = part.get("reqt")
        domains.append(
            {
                "domain": domain,
                "info": _goal_slots(part.get("info"), f"{where}: goal[{domain!r}].info"),
                "reqt": None if reqt is None else [_as_text(r) for r in reqt],
                "book": _goal_slots(part.get("book"), f"{where}: goal[{domain!r}].book"),
                "fail_info": _goal_slots(part.get("fail_info"), f"{where}: goal[{domain!r}].fail_info"),
                "fail_book": _goal_slots(part.get("fail_book"), f"{where}: goal[{domain!r}].fail_book"),
            }
        )
    return {
        "message": None if message is None else [_as_text(m) for m in message],
        "topic": None if topic is None else [{"domain": k, "value": bool(v)} for k, v in topic.items()],
        "domains": domains,
    }


def _acts(dialog_act: Any, where: str) -> list[dict]:
    # Some turns carry the string "No Annotation" instead of an object.
    if not isinstance(dialog_act, dict):
        return []
    acts = []
    for act, pairs in dialog_act.items():
        for pair in pairs:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise RawDataError(f"{where}: dialogue act {act!r} has a malformed slot/value pair {pair!r}")
            acts.append({"act": act, "slot": _as_text(pair[0]), "value": _as_text(pair[1])})
    return acts


def _spans(span_info: Any, where: str) -> list[dict]:
    spans = []
    for span in span_info or []:
        if not isinstance(span, (list, tuple)) or len(span) != 5:
            raise RawDataError(f"{where}: malformed span {span!r} (expected [act, slot, value, start, end])")
        act, slot, value, start, end = span
        spans.append({"act": act, "slot": _as_text(slot), "value": _as_text(value), "start": start, "end": end})
    return spans


def _belief(metadata: Mapping[str, Any] | None, where: str) -> tuple[list[dict], list[dict]]:
    belief, booked = [], []
    for domain, state in (metadata or {}).items():
        if not isinstance(state, dict):
            raise RawDataError(f"{where}: metadata[{domain!r}] is not an object")
        for kind in ("semi", "book"):
            for slot, value in (state.get(kind) or {}).items():
                if kind == "book" and slot == "booked":
                    continue
                if not isinstance(value, str):
                    value = _as_text(value)
                belief.append({"domain": domain, "kind": kind, "slot": slot, "value": value})
        book = state.get("book") or {}
        if "booked" in book:
            # Most turns book nothing: skip the encoder for the common empty list.
            entries = "[]" if book["booked"] == [] else json.dumps(book["booked"], ensure_ascii=False)
            booked.append({"domain": domain, "entries": entries})
    return belief, booked


def convert_v2x(
    version: str, split: str, dialogue_id: str, raw: Mapping[str, Any], *, separate_acts: Any = None
) -> dict:
    """One 2.0/2.1 ``data.json`` entry in the unified schema.

    ``separate_acts``: the 2.0 ``dialogue_acts.json`` entry of this dialogue
    (system turn ``n`` -> acts, counted from 1), used for turns without
    ``dialog_act``.
    """
    where = f"MultiWOZ {version} dialogue {dialogue_id}"
    if not isinstance(raw, dict) or not isinstance(raw.get("log"), list):
        raise RawDataError(f"{where}: expected an object with a 'log' list")
    goal = convert_goal(raw.get("goal") or {}, where)
    turns = []
    for index, turn in enumerate(raw["log"]):
        turn_where = f"{where}, turn {index}"
        if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
            raise RawDataError(f"{turn_where}: expected an object with a 'text' string")
        dialog_act = turn.get("dialog_act")
        if dialog_act is None and separate_acts and index % 2 == 1:
            dialog_act = separate_acts.get(str(index // 2 + 1))
        belief, booked = _belief(turn.get("metadata"), turn_where)
        turns.append(
            {
                "turn_id": index,
                "speaker": "USER" if index % 2 == 0 else "SYSTEM",
                "utterance": turn["text"],
                "dialogue_acts": _acts(dialog_act, turn_where),
                "spans": _spans(turn.get("span_info"), turn_where),
                "frames": [],
                "belief_state": belief,
                "booked": booked,
            }
        )
    return {
        "dialogue_id": dialogue_id,
        "key": evaluation_key(dialogue_id),
        "version": version,
        "split": split,
        "domains": [d["domain"] for d in goal["domains"] if any(d[p] for p in GOAL_PARTS)],
        "goal": goal,
        "turns": turns,
    }


# --------------------------------------------------------------------------- 2.2


def _frame(frame: Mapping[str, Any], where: str) -> dict:
    if frame.get("actions"):
        # Upstream leaves frame actions empty (acts live in dialog_acts.json).
        logger.warning(
            "%s: frame %r has non-empty 'actions', which the unified schema drops", where, frame.get("service")
        )
    state = frame.get("state")
    slots = []
    for slot in frame.get("slots") or []:
        value = slot.get("value")
        slots.append(
            {
                "slot": slot["slot"],
                "value": value if not isinstance(value, list) else None,
                "start": slot.get("start", -1),
                "exclusive_end": slot.get("exclusive_end", -1),
                "copy_from": slot.get("copy_from"),
                "copy_from_value": [_as_text(v) for v in value] if isinstance(value, list) else [],
            }
        )
    return {
        "service": frame["service"],
        "active_intent": state.get("active_intent") if state is not None else None,
        "requested_slots": list(state.get("requested_slots") or []) if state is not None else None,
        "slot_values": (
            [{"slot": k, "values": [_as_text(v) for v in vs]} for k, vs in (state.get("slot_values") or {}).items()]
            if state is not None
            else None
        ),
        "slots": slots,
    }


def convert_v22(split: str, raw: Mapping[str, Any], acts: Mapping[str, Any] | None) -> dict:
    """One 2.2 ``dialogues_*.json`` entry (plus its ``dialog_acts.json`` entry) in the unified schema."""
    dialogue_id = raw.get("dialogue_id")
    where = f"MultiWOZ 2.2 dialogue {dialogue_id}"
    if not isinstance(dialogue_id, str) or not isinstance(raw.get("turns"), list):
        raise RawDataError(f"{where}: expected an object with 'dialogue_id' and a 'turns' list")
    acts = acts or {}
    turns = []
    for turn in raw["turns"]:
        turn_id = turn.get("turn_id")
        turn_where = f"{where}, turn {turn_id}"
        try:
            number = int(turn_id)
        except (TypeError, ValueError):
            raise RawDataError(f"{turn_where}: turn_id is not an integer") from None
        if turn.get("speaker") not in ("USER", "SYSTEM"):
            raise RawDataError(f"{turn_where}: unknown speaker {turn.get('speaker')!r}")
        turn_acts = acts.get(str(turn_id)) or {}
        turns.append(
            {
                "turn_id": number,
                "speaker": turn["speaker"],
                "utterance": turn["utterance"],
                "dialogue_acts": _acts(turn_acts.get("dialog_act"), turn_where),
                "spans": _spans(turn_acts.get("span_info"), turn_where),
                "frames": [_frame(f, turn_where) for f in turn.get("frames") or []],
                "belief_state": [],
                "booked": [],
            }
        )
    return {
        "dialogue_id": dialogue_id,
        "key": evaluation_key(dialogue_id),
        "version": "2.2",
        "split": split,
        "domains": list(raw.get("services") or []),
        "goal": {"message": [], "topic": None, "domains": []},
        "turns": turns,
    }


# --------------------------------------------------------------------------- entry points


class RawReader:
    """Reads one version from resolved files, parsing each file once.

    ``files`` maps repository paths (as in :func:`source_paths`) to local paths.
    """

    def __init__(self, version: str, files: Mapping[str, os.PathLike | str]):
        _check(version)
        self.version = version
        self.files = {key: Path(value) for key, value in files.items()}
        self._archive: ZipArchive | None = None
        self._acts: Mapping[str, Any] | None = None

    def _file(self, path: str) -> Path:
        try:
            return self.files[path]
        except KeyError:
            raise InputError(f"no local file given for {path} (have: {sorted(self.files)})") from None

    def archive(self) -> ZipArchive:
        """The 2.0/2.1 zip archive, opened once."""
        if self._archive is None:
            self._archive = ZipArchive(self.version, self._file(ZIP_PATHS[self.version]))
        return self._archive

    def acts_v22(self) -> Mapping[str, Any]:
        """MultiWOZ 2.2's ``dialog_acts.json``, read once."""
        if self._acts is None:
            path = self._file(V22_ACTS)
            acts = _read_json_file(path)
            if not isinstance(acts, dict):
                raise RawDataError(f"{path}: expected an object keyed by dialogue id")
            self._acts = acts
        return self._acts

    def iter_dialogues(self, split: str) -> Iterator[dict]:
        """Dialogues of ``split`` in the unified schema, from the zip or the 2.2 files."""
        _check(self.version, split)
        if self.version in ZIP_PATHS:
            yield from self.archive().iter_dialogues(split)
            return
        acts = self.acts_v22()
        for path in v22_paths(split):
            local = self._file(path)
            dialogues = _read_json_file(local)
            if not isinstance(dialogues, list):
                raise RawDataError(f"{local}: expected a list of dialogues")
            for raw in dialogues:
                yield convert_v22(split, raw, acts.get(str(raw.get("dialogue_id"))) if isinstance(raw, dict) else None)


def iter_dialogues(version: str, split: str, files: Mapping[str, os.PathLike | str]) -> Iterator[dict]:
    """The dialogues of ``split`` (train/validation/test) of ``version``, in source order."""
    return RawReader(version, files).iter_dialogues(split)


def iter_raw_dialogues(version: str, split: str, files: Mapping[str, os.PathLike | str]) -> Iterator[tuple[str, dict]]:
    """``(evaluation key, raw data.json entry)`` of a 2.0/2.1 split, unconverted, in source order."""
    if version not in ZIP_PATHS:
        raise InputError(f"raw data.json entries exist for versions {sorted(ZIP_PATHS)}, not {version!r}")
    for dialogue_id, raw in RawReader(version, files).archive().iter_raw(split):
        yield evaluation_key(dialogue_id), raw

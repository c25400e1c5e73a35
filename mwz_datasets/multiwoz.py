"""MultiWOZ 2.0, 2.1 and 2.2 as one ``datasets`` builder with one schema.

Configs ``"2.0"``, ``"2.1"``, ``"2.2"`` (default), splits train/validation/test.
Sources are the pinned upstream files of ``budzianowski/multiwoz`` resolved by
:func:`mwz_datasets.sources.resolve` (``data_dir=`` -> ``$MWZ_MIRROR`` -> download
cache -> pinned download). Local copies are checksummed and the checksums
recorded in ``info.download_checksums`` and ``info.description`` (see
:meth:`MultiWOZ.source_checksums`); they are checked against the pinned
checksums only under ``verification_mode="all_checks"``. A split with no
dialogues in the files (e.g. train in a zip holding only val/test) is empty.

Unified schema (one row per dialogue; absent raw fields are ``None``/null,
present-but-empty ones ``[]``):

- ``dialogue_id``: as in the source (``"PMUL1266.json"``); ``key``: evaluation
  key (``"pmul1266"``); ``version``: ``"2.0"``/``"2.1"``/``"2.2"``; ``split``.
- ``domains``: 2.2 ``services``; 2.0/2.1 the goal's domains with a non-empty goal.
- ``goal`` (2.0/2.1; ``message=[]``, ``topic=None``, ``domains=[]`` for 2.2):
  ``message`` (list of strings; a string becomes a list of one), ``topic``
  (``[{domain, value: bool}]``, the raw ``topic`` flags, None when absent),
  ``domains``: one entry per raw goal domain in source order (empty ones too)
  with ``info``, ``reqt``, ``book``, ``fail_info``, ``fail_book``, each None when
  the raw key is absent. Slot names keep the raw spelling; values are strings,
  non-string raw values are stored as JSON text (``book.invalid: false`` ->
  ``"false"``).
- ``turns``: ``turn_id`` (int32: 2.2 ``turn_id``, 2.0/2.1 index in ``log``),
  ``speaker`` (``"USER"``/``"SYSTEM"``; 2.0/2.1 alternate, user first),
  ``utterance``,

  - ``dialogue_acts``: ``[{act, slot, value}]`` with ``act`` like
    ``"Restaurant-Inform"`` (2.1 ``dialog_act``; 2.2 ``dialog_acts.json``; 2.0
    ``dialogue_acts.json`` when the zip holds it, system turns only; a
    ``"No Annotation"`` string gives ``[]``);
  - ``spans``: ``[{act, slot, value, start, end}]`` from ``span_info``. 2.2:
    CHARACTER offsets, ``end`` exclusive. 2.0/2.1: WORD offsets as in the
    source (token indices of the space-split text, ``end`` inclusive);
  - ``frames`` (2.2 only): ``[{service, active_intent, requested_slots,
    slot_values: [{slot, values}], slots: [{slot, value, start, exclusive_end,
    copy_from, copy_from_value}]}]``. ``active_intent``/``requested_slots``/
    ``slot_values`` are None for frames without ``state`` (system turns).
    ``slots``: span annotations (``start``/``exclusive_end`` -1 when absent) and
    "copy from" annotations (``copy_from`` set, the raw value list in
    ``copy_from_value``, ``value`` None); ``copy_from`` None and
    ``copy_from_value`` [] otherwise. Frame ``actions`` (always empty upstream)
    are not kept;
  - ``belief_state`` (2.0/2.1 turns' ``metadata``, filled on system turns):
    ``[{domain, kind: "semi"|"book", slot, value}]`` in source order, without
    ``book.booked``;
  - ``booked``: ``[{domain, entries}]`` with ``entries`` the JSON text of
    ``metadata[domain].book.booked`` (``"[]"`` when nothing is booked).
"""

from __future__ import annotations

import dataclasses
import json
import logging

import datasets
import pyarrow as pa
from datasets.table import InMemoryTable

from mwz_datasets import multiwoz_raw, sources
from mwz_plugins.errors import InputError

logger = logging.getLogger(__name__)

try:  # datasets >= 4.x tracks original shards through Key; plain keys work too
    from datasets.builder import Key as _Key
except ImportError:  # pragma: no cover - depends on the datasets version
    _Key = None

_CITATION = """\
@inproceedings{budzianowski2018multiwoz,
  title={MultiWOZ - A Large-Scale Multi-Domain Wizard-of-Oz Dataset for Task-Oriented Dialogue Modelling},
  author={Budzianowski, Pawe{\\l} and Wen, Tsung-Hsien and Tseng, Bo-Hsiang and Casanueva, I{\\~n}igo and
          Ultes, Stefan and Ramadan, Osman and Ga{\\v{s}}i{\\'c}, Milica},
  booktitle={EMNLP}, year={2018}
}
"""
_HOMEPAGE = "https://github.com/budzianowski/multiwoz"
_SPLITS = {
    "train": datasets.Split.TRAIN,
    "validation": datasets.Split.VALIDATION,
    "test": datasets.Split.TEST,
}


def _string():
    return datasets.Value("string")


def features() -> datasets.Features:
    """The unified schema described in the module docstring."""
    slot_values = datasets.List({"slot": _string(), "value": _string()})
    goal_domain = {
        "domain": _string(),
        "info": slot_values,
        "reqt": datasets.List(_string()),
        "book": slot_values,
        "fail_info": slot_values,
        "fail_book": slot_values,
    }
    frame = {
        "service": _string(),
        "active_intent": _string(),
        "requested_slots": datasets.List(_string()),
        "slot_values": datasets.List({"slot": _string(), "values": datasets.List(_string())}),
        "slots": datasets.List(
            {
                "slot": _string(),
                "value": _string(),
                "start": datasets.Value("int32"),
                "exclusive_end": datasets.Value("int32"),
                "copy_from": _string(),
                "copy_from_value": datasets.List(_string()),
            }
        ),
    }
    turn = {
        "turn_id": datasets.Value("int32"),
        "speaker": _string(),
        "utterance": _string(),
        "dialogue_acts": datasets.List({"act": _string(), "slot": _string(), "value": _string()}),
        "spans": datasets.List(
            {
                "act": _string(),
                "slot": _string(),
                "value": _string(),
                "start": datasets.Value("int32"),
                "end": datasets.Value("int32"),
            }
        ),
        "frames": datasets.List(frame),
        "belief_state": datasets.List({"domain": _string(), "kind": _string(), "slot": _string(), "value": _string()}),
        "booked": datasets.List({"domain": _string(), "entries": _string()}),
    }
    return datasets.Features(
        {
            "dialogue_id": _string(),
            "key": _string(),
            "version": _string(),
            "split": _string(),
            "domains": datasets.List(_string()),
            "goal": {
                "message": datasets.List(_string()),
                "topic": datasets.List({"domain": _string(), "value": datasets.Value("bool")}),
                "domains": datasets.List(goal_domain),
            },
            "turns": datasets.List(turn),
        }
    )


@dataclasses.dataclass
class MultiWOZConfig(datasets.BuilderConfig):
    """BuilderConfig for MultiWOZ.

    Args:
        multiwoz_version (`str`, defaults to `"2.2"`):
            Which release to read: `"2.0"`, `"2.1"` or `"2.2"`. The built-in
            configs are named after it.
        data_dir (`str`, *optional*):
            A local copy of the `budzianowski/multiwoz` repository (files at
            their repository paths, e.g. `data/MultiWOZ_2.1.zip`); tried before
            `$MWZ_MIRROR`, the download cache and the pinned download.
    """

    multiwoz_version: str = "2.2"

    def __post_init__(self):
        super().__post_init__()
        if self.multiwoz_version not in multiwoz_raw.VERSIONS:
            raise InputError(
                f"unknown MultiWOZ version {self.multiwoz_version!r}; "
                f"expected one of {', '.join(multiwoz_raw.VERSIONS)}"
            )


class MultiWOZ(datasets.GeneratorBasedBuilder):
    """MultiWOZ 2.0/2.1/2.2 dialogues in one schema (see the module docstring)."""

    BUILDER_CONFIG_CLASS = MultiWOZConfig
    BUILDER_CONFIGS = [
        MultiWOZConfig(
            name=v,
            multiwoz_version=v,
            version=datasets.Version("1.0.0"),
            description=f"MultiWOZ {v} (budzianowski/multiwoz)",
        )
        for v in multiwoz_raw.VERSIONS
    ]
    DEFAULT_CONFIG_NAME = "2.2"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=f"MultiWOZ {self.config.multiwoz_version}, unified schema (mwz_datasets.multiwoz).",
            features=features(),
            homepage=_HOMEPAGE,
            citation=_CITATION,
            license="MIT",
        )

    def _download_and_prepare(self, dl_manager, verification_mode, **prepare_split_kwargs):
        # The verification mode decides whether local copies are checked against
        # the pinned checksums; it is only passed to this method.
        self._verification_mode = verification_mode
        super()._download_and_prepare(dl_manager, verification_mode, **prepare_split_kwargs)
        # Recorded after the base class's own (empty) checksum comparison.
        self.info.download_checksums = {
            f.source.url: {"num_bytes": f.path.stat().st_size, "checksum": f.sha256} for f in self._resolved.values()
        }

    def _split_generators(self, dl_manager):
        version = self.config.multiwoz_version
        all_checks = getattr(self, "_verification_mode", None) == datasets.VerificationMode.ALL_CHECKS
        self._resolved = sources.resolve(
            multiwoz_raw.sources(version, _SPLITS),
            data_dir=self.config.data_dir,
            verify_local=all_checks,
        )
        for resolved in self._resolved.values():
            logger.info(
                "MultiWOZ %s source %s: %s (%s), sha256 %s, pinned match %s",
                version,
                resolved.source.name,
                resolved.path,
                resolved.origin,
                resolved.sha256,
                resolved.pinned_match(),
            )
        self.info.description = f"MultiWOZ {version}, unified schema (mwz_datasets.multiwoz).\nSources: " + json.dumps(
            [f.signature() for f in self._resolved.values()], sort_keys=True
        )
        self._reader = multiwoz_raw.RawReader(version, {key: f.path for key, f in self._resolved.items()})
        if version in multiwoz_raw.ZIP_PATHS:
            # Parse the archive here so that a broken zip fails with its own message,
            # not wrapped in a DatasetGenerationError.
            self._reader.archive()
        return [datasets.SplitGenerator(name=split, gen_kwargs={"split": name}) for name, split in _SPLITS.items()]

    def _generate_examples(self, split):
        for index, example in enumerate(self._reader.iter_dialogues(split)):
            yield (_Key(0, index) if _Key is not None else index), example

    def _as_dataset(self, split=datasets.Split.TRAIN, in_memory: bool = False) -> datasets.Dataset:
        # datasets cannot read back a split with no examples ("corresponds to no
        # data"); such splits are legitimate here (zips with only val/test).
        info = self.info.splits.get(str(split)) if isinstance(split, datasets.NamedSplit) else None
        if info is not None and info.num_examples == 0:
            table = pa.Table.from_batches([], schema=self.info.features.arrow_schema)
            return datasets.Dataset(
                InMemoryTable(table),
                info=self.info.copy(),
                split=split,
                fingerprint=self._get_dataset_fingerprint(split),
            )
        return super()._as_dataset(split=split, in_memory=in_memory)

    def source_checksums(self) -> dict[str, dict]:
        """sha256 and size of each source file used, keyed by download URL.

        Available after :meth:`download_and_prepare`, also when the dataset came
        from the cache (it is saved with the dataset info).
        """
        return {url: dict(entry) for url, entry in (self.info.download_checksums or {}).items()}

"""DSTC9 Track 1 (knowledge-grounded task-oriented dialogue) as a ``datasets`` builder.

Configs:
- ``instances`` (default): one example per instance: the dialogue context
  (speaker/text turns), ``target``, the knowledge references with the snippet
  title and body resolved, the response, and for test the ``source``
  (multiwoz, sf_written, sf_spoken). Splits train, validation, test.
- ``knowledge``: every snippet of ``data/knowledge.json`` (split ``train``,
  used by train/val) and ``data_eval/knowledge.json`` (split ``test``).
- ``db``: the San Francisco database ``data_eval/db.json``, one row per entity.

Files come from alexa/alexa-with-dstc9-track1-dataset at the pinned commit through
``mwz_datasets.sources.resolve`` (``data_dir`` -> ``$MWZ_MIRROR`` -> cache -> download).
"""

from __future__ import annotations

import dataclasses
import json

import datasets

from mwz_datasets import catalog
from mwz_datasets.dstc9_files import DB_FILE as _DB
from mwz_datasets.dstc9_files import INSTANCE_FILES as _SPLITS
from mwz_datasets.dstc9_files import KNOWLEDGE_FILES as _KNOWLEDGE
from mwz_datasets.jsonfile import read_json
from mwz_datasets.sources import resolve
from mwz_plugins.errors import InputError

_SNIPPET = {
    "domain": datasets.Value("string"),
    "entity_id": datasets.Value("string"),  # an integer as text, or "*" for domain-wide
    "entity_name": datasets.Value("string"),
    "doc_id": datasets.Value("int32"),
    "title": datasets.Value("string"),
    "body": datasets.Value("string"),
}


@dataclasses.dataclass
class DSTC9Track1Config(datasets.BuilderConfig):
    """A DSTC9 Track 1 view.

    Attributes:
        kind: "instances", "knowledge" or "db" (what one example is).
        verify: check local copies against the pinned checksums too (also set by
            ``verification_mode="all_checks"``).
    """

    kind: str = "instances"
    verify: bool = False


class DSTC9Track1(datasets.GeneratorBasedBuilder):
    """DSTC9 Track 1: instances, knowledge snippets and the San Francisco database."""

    BUILDER_CONFIG_CLASS = DSTC9Track1Config
    BUILDER_CONFIGS = [
        DSTC9Track1Config(name="instances", kind="instances", description="one example per instance"),
        DSTC9Track1Config(name="knowledge", kind="knowledge", description="the knowledge snippets"),
        DSTC9Track1Config(name="db", kind="db", description="the San Francisco database (data_eval/db.json)"),
    ]
    DEFAULT_CONFIG_NAME = "instances"

    def _info(self) -> datasets.DatasetInfo:
        kind = self.config.kind
        if kind == "instances":
            features = datasets.Features(
                {
                    "index": datasets.Value("int32"),
                    "context": datasets.List({"speaker": datasets.Value("string"), "text": datasets.Value("string")}),
                    "target": datasets.Value("bool"),
                    "knowledge": datasets.List(_SNIPPET),
                    "response": datasets.Value("string"),
                    "source": datasets.Value("string"),
                }
            )
        elif kind == "knowledge":
            features = datasets.Features(_SNIPPET)
        elif kind == "db":
            features = datasets.Features(
                {
                    "domain": datasets.Value("string"),
                    "entity_id": datasets.Value("string"),
                    "name": datasets.Value("string"),
                    "fields": datasets.Value("string"),  # the entity's record as JSON text
                }
            )
        else:
            raise InputError(f"unknown DSTC9 Track 1 config kind {kind!r}")
        return datasets.DatasetInfo(
            description=__doc__.splitlines()[0],
            features=features,
            homepage="https://github.com/alexa/alexa-with-dstc9-track1-dataset",
        )

    def _resolve(self, paths):
        verify = self.config.verify or str(getattr(self, "_verification_mode", "")).endswith("ALL_CHECKS")
        resolved = resolve([catalog.dstc9(p) for p in paths], data_dir=self.config.data_dir, verify_local=verify)
        # Kept for provenance (the Hub export lists every file used, with its checksum).
        self._resolved = {**getattr(self, "_resolved", {}), **resolved}
        return resolved

    def _split_generators(self, dl_manager):
        kind = self.config.kind
        if kind == "instances":
            return [
                datasets.SplitGenerator(
                    name=split,
                    gen_kwargs={"files": {p: str(f.path) for p, f in self._resolve(paths).items()}, "paths": paths},
                )
                for split, paths in _SPLITS.items()
            ]
        if kind == "knowledge":
            return [
                datasets.SplitGenerator(
                    name=split, gen_kwargs={"files": {path: str(self._resolve([path])[path].path)}, "paths": (path,)}
                )
                for split, path in _KNOWLEDGE.items()
            ]
        return [
            datasets.SplitGenerator(
                name="train", gen_kwargs={"files": {_DB: str(self._resolve([_DB])[_DB].path)}, "paths": (_DB,)}
            )
        ]

    def _generate_examples(self, files, paths):
        kind = self.config.kind
        if kind == "instances":
            yield from _instances(*(_load(files[p]) for p in paths), logs_name=paths[0])
        elif kind == "knowledge":
            yield from enumerate(_snippets(_load(files[paths[0]])))
        else:
            yield from _db_rows(_load(files[paths[0]]))


def _load(path: str):
    return read_json(path, "DSTC9 data")


def _snippet(knowledge: dict, domain: str, entity_id, doc_id) -> dict:
    try:
        entity = knowledge[domain][str(entity_id)]
        doc = entity["docs"][str(doc_id)]
    except KeyError:
        raise InputError(f"unknown knowledge snippet {domain}/{entity_id}/{doc_id}") from None
    return {
        "domain": domain,
        "entity_id": str(entity_id),
        "entity_name": entity.get("name") or "",
        "doc_id": int(doc_id),
        "title": doc["title"],
        "body": doc["body"],
    }


def _snippets(knowledge: dict):
    for domain, entities in knowledge.items():
        for entity_id, entity in entities.items():
            for doc_id in entity["docs"]:
                yield _snippet(knowledge, domain, entity_id, doc_id)


def _instances(logs: list, labels: list, knowledge: dict, *, logs_name: str):
    if len(logs) != len(labels):
        raise InputError(f"{logs_name} has {len(logs)} instances but its labels.json has {len(labels)}")
    for index, (log, label) in enumerate(zip(logs, labels)):
        try:
            refs = [_snippet(knowledge, k["domain"], k["entity_id"], k["doc_id"]) for k in label.get("knowledge", [])]
        except ValueError as error:
            raise InputError(f"instance {index}: {error}") from None
        yield (
            index,
            {
                "index": index,
                "context": [{"speaker": turn["speaker"], "text": turn["text"]} for turn in log],
                "target": bool(label["target"]),
                "knowledge": refs,
                "response": label.get("response", ""),
                "source": label.get("source", ""),
            },
        )


def _db_rows(db: dict):
    key = 0
    for domain, entities in db.items():
        # db.json: domain -> list of records carrying their "id" (a dict is accepted too)
        items = (
            entities.items() if isinstance(entities, dict) else ((r.get("id", i), r) for i, r in enumerate(entities))
        )
        for entity_id, record in items:
            name = record.get("name", "") if isinstance(record, dict) else ""
            yield (
                key,
                {
                    "domain": domain,
                    "entity_id": str(entity_id),
                    "name": name or "",
                    "fields": json.dumps(record, ensure_ascii=False, sort_keys=True),
                },
            )
            key += 1

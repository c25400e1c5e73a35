"""Extra training dialogue for the coherence classifier: corpora other than MultiWOZ.

Today one: Schema-Guided Dialogue (``--corpus sgd=PATH``, read by :mod:`mwz_datasets.sgd`, or
``--corpus sgd`` for the pinned upstream files). Its dialogues become sessions in the two forms
MultiWOZ validation trains in: system turns delexicalized from SGD's slot spans into the
placeholders the scorer reads, and as written. A training stage mixes them in at a stated ratio
(extra positives per MultiWOZ positive), never replacing MultiWOZ and never touching its test split.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from pathlib import Path

from mwz_metrics.placeholders import normalize_placeholders
from mwz_metrics.records.corpus import dialogue_turns
from mwz_metrics.settings import parse_pair

CORPORA = ("sgd",)


@dataclass(frozen=True)
class ExtraCorpus:
    """Sessions of a non-MultiWOZ corpus, ready for :func:`~.train.examples`.

    ``forms``: ``"delex"``/``"lex"`` -> session id -> turn texts (user first); ``domains``: id ->
    the services it covers (for the other-domain negative); ``sha256``: of the files read, in order.
    """

    name: str
    forms: dict[str, dict[str, list[str]]]
    domains: dict[str, frozenset[str]]
    sha256: str

    def positives(self, name: str) -> int:
        """Adjacent pairs of one session."""
        return max(0, len(self.forms["delex"][name]) - 1)

    def schedule(self, seed: int, epochs: int, per_epoch: int) -> list[list[str]]:
        """Sessions to draw from in each epoch: a seeded order of all sessions, walked on from
        epoch to epoch (wrapping round), each epoch taking sessions until ``per_epoch`` pairs."""
        order = sorted(self.forms["delex"])
        random.Random(f"{self.name}:{seed}").shuffle(order)
        plan: list[list[str]] = []
        cursor = 0
        for _ in range(epochs):
            chosen: list[str] = []
            pairs = 0
            while order and pairs < per_epoch and len(chosen) < len(order):
                name = order[cursor % len(order)]
                cursor += 1
                chosen.append(name)
                pairs += self.positives(name)
            plan.append(chosen)
        return plan


def _service_domain(service: str) -> str:
    """``Restaurants_2`` -> ``restaurants``."""
    return service.rsplit("_", 1)[0].lower() if service.rsplit("_", 1)[-1].isdigit() else service.lower()


def load_sgd(path: str | None, data_dir: str | None = None) -> ExtraCorpus:
    """SGD sessions from ``path`` (its JSONL form or ``dialogues_*.json`` files), or from the
    pinned upstream files where ``path`` is None. A session must open with the user and alternate;
    one that does not is cut at its first break (SGD's own dialogues all alternate)."""
    from mwz_datasets import sgd

    if path:
        root = Path(path)
        files = sorted(root.rglob("dialogues_*.json")) if root.is_dir() else [root]
        readers = [sgd.iter_dialogues(root)]
    else:
        resolved = sgd.upstream_files()
        files = [resolved[key].path for key in sorted(resolved)]
        readers = [sgd.iter_dialogues(f) for f in files]
    digest = hashlib.sha256()
    for file in files:
        digest.update(Path(file).read_bytes())
    delex: dict[str, list[str]] = {}
    lex: dict[str, list[str]] = {}
    domains: dict[str, frozenset[str]] = {}
    for reader in readers:
        for dialogue in reader:
            name = f"sgd:{dialogue['dialogue_id']}"
            forms: tuple[list[str], list[str]] = ([], [])
            for index, (speaker, text, spans) in enumerate(dialogue_turns(dialogue)):
                if speaker != ("user" if index % 2 == 0 else "system"):
                    break
                system = speaker == "system"
                forms[0].append(normalize_placeholders(sgd.delexicalize(text, spans)) if system else text)
                forms[1].append(text)
            if len(forms[0]) >= 2:
                delex[name], lex[name] = forms
                domains[name] = frozenset(_service_domain(s) for s in dialogue["services"])
    if not delex:
        raise ValueError(f"no SGD dialogue read from {path or 'the pinned upstream files'}")
    return ExtraCorpus("sgd", {"delex": delex, "lex": lex}, domains, digest.hexdigest())


def load(spec: str, data_dir: str | None = None) -> ExtraCorpus:
    """An extra corpus from ``NAME`` or ``NAME=PATH`` (``--corpus``)."""
    name, path = parse_pair(spec, "--corpus", "NAME or NAME=PATH", empty_value=True) if "=" in spec else (spec, "")
    if name not in CORPORA:
        raise ValueError(f"--corpus {spec!r}: unknown corpus {name!r}; choose from {', '.join(CORPORA)}")
    return load_sgd(path or None, data_dir)

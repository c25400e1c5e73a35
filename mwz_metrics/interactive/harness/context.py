"""What simulators and reference systems of one run share, loaded once and lazily.

MultiWOZ 2.1 and the venue database come through the process's :mod:`mwz_metrics.data_context`
(the pinned zip; ``data_dir``, ``MWZ_MIRROR``, the cache or a verified download), which the test set
of the static metrics shares: an ``mwz interact`` run finds the zip and reads the database once. What
is derived from it is cached on disk like the test set's (:mod:`mwz_datasets.derived`), keyed by the
zip's checksum and the code that derives it:

- from **validation**: user and system templates (:mod:`.language.extract`) and the system-act
  reader's model (:mod:`.reader`);
- from **test**: each dialogue's goal, its annotated user turns (text and acts), its system turn
  count and booked domains (for the ``replay`` simulator and for scoring).
"""

from __future__ import annotations

import functools
import logging
import threading
from pathlib import Path
from typing import Any

from mwz_metrics import data_context
from mwz_metrics.interactive.acts import from_dataset
from mwz_metrics.interactive.goals import UserGoal, user_goal
from mwz_metrics.interactive.vocabulary import MWZEVAL_BOOKING_ORDER
from mwz_metrics.records.corpus import dialogue_turns

logger = logging.getLogger(__name__)

# Modules whose code shapes the cached material.
_DERIVING = (
    "acts.py",
    "vocabulary.py",
    "goals.py",
    "language/extract.py",
    "language/lexicon.py",
    "language/moments.py",
    "user/reader.py",
    "user/linear.py",
    "harness/context.py",
)


@functools.cache
def code_fingerprint() -> str:
    """sha256 of the modules that derive cached material (a change rebuilds it; :func:`.data_context.code_fingerprint`)."""
    folder = Path(__file__).parents[1]  # mwz_metrics/interactive
    tokens = folder.parent / "tokens.py"  # how the reader splits words
    records = folder.parent / "records"  # the act grammar and the corpus' turns (moved out of acts.py)
    return data_context.code_fingerprint(
        *(folder / name for name in _DERIVING), tokens, records / "acts.py", records / "corpus.py"
    )


def _booked(turn: dict[str, Any]) -> list[str]:
    filled = {item["domain"] for item in turn.get("booked") or () if item["entries"] not in ("[]", "")}
    return [d for d in MWZEVAL_BOOKING_ORDER if d in filled]


class InteractiveContext:
    """MultiWOZ 2.1 material, the venue database and the language resources of one run."""

    def __init__(self, *, data_dir: str | None = None, chain: str = "mwzeval") -> None:
        self.data_dir = data_dir
        self.chain_name = chain
        self.sources: dict[str, dict[str, Any]] = {}
        self._lock = threading.RLock()

    def __deepcopy__(self, memo: dict[int, Any]) -> InteractiveContext:
        # loaded once and shared, never copied (gymnasium.make deep-copies an environment's arguments)
        return self

    @functools.cached_property
    def data(self) -> data_context.DataContext:
        """The process's MultiWOZ files, venue database and derived data (shared with the test set)."""
        return data_context.shared(self.data_dir, self.chain_name)

    def dialogue_files(self, split: str) -> tuple[dict[str, Path], str]:
        """The local MultiWOZ 2.1 files of ``split`` (for :func:`mwz_datasets.multiwoz_raw.iter_dialogues`) and their checksum."""
        files = self.data.multiwoz("2.1", split)
        for path, resolved in files.items():
            self.sources[path] = resolved.signature()
        paths = {name: found.path for name, found in files.items()}
        checksum = ",".join(f.sha256 for f in files.values())
        return paths, checksum

    def _cached(self, kind: str, split: str, build) -> Any:
        from mwz_datasets import multiwoz_raw

        paths, checksum = self.dialogue_files(split)

        def run() -> Any:
            logger.info("deriving %s from MultiWOZ 2.1 %s (cached afterwards)", kind, split)
            return build(list(multiwoz_raw.iter_dialogues("2.1", split, paths)))

        return self.data.derived(kind, [checksum, code_fingerprint()], run)

    @functools.cached_property
    def validation(self) -> dict[str, Any]:
        """Templates and the reader's model, from 2.1 validation."""
        from mwz_metrics.interactive.language import extract
        from mwz_metrics.interactive.user import reader

        def build(dialogues: list[dict[str, Any]]) -> dict[str, Any]:
            return {
                "user_templates": extract.build_user_bank(dialogues),
                "system_templates": extract.build_system_bank(dialogues),
                "reader": reader.train(dialogues).as_json(),
                "dialogues": len(dialogues),
            }

        with self._lock:
            return self._cached("interactive-validation", "validation", build)

    @functools.cached_property
    def test(self) -> dict[str, dict[str, Any]]:
        """Per test dialogue: its goal (unified schema), user turns, system turn count, booked domains."""

        def build(dialogues: list[dict[str, Any]]) -> dict[str, Any]:
            out = {}
            for dialogue in dialogues:
                turns = dialogue_turns(dialogue)
                out[dialogue["key"]] = {
                    "key": dialogue["key"],
                    "goal": dialogue["goal"],
                    "user_turns": [
                        {"text": t["utterance"], "acts": [a.as_list() for a in from_dataset(t["dialogue_acts"])]}
                        for t in turns[0::2]
                    ],
                    "system_turns": len(turns[1::2]),
                    "booked": [_booked(t) for t in turns[1::2]],
                }
            return out

        with self._lock:
            return self._cached("interactive-test", "test", build)

    @functools.cached_property
    def database(self):
        """The venue database (mwzeval's query semantics, the run's normalizer chain; the process's one)."""
        with self._lock:
            db = self.data.database
            for domain, signature in db.signature["sources"].items():
                self.sources[f"db/{domain}_db.json"] = signature
            return db

    @functools.cached_property
    def goals(self) -> dict[str, UserGoal]:
        """Every test dialogue's goal, in test-set order."""
        query = self.database.query
        return {key: user_goal(item, query) for key, item in self.test.items()}

    @functools.cached_property
    def user_templates(self):
        """User templates by moment (:class:`~.language.UserTemplates`)."""
        from mwz_metrics.interactive.language.banks import UserTemplates

        return UserTemplates(self.validation["user_templates"])

    @functools.cached_property
    def system_templates(self):
        """System templates for the reference systems (:class:`~.language.SystemTemplates`)."""
        from mwz_metrics.interactive.language.banks import SystemTemplates

        return SystemTemplates(self.validation["system_templates"])

    @functools.cached_property
    def reader(self):
        """The system-act reader (:class:`~.reader.SystemActReader`)."""
        from mwz_metrics.interactive.user.linear import LinearModel
        from mwz_metrics.interactive.user.reader import Lexicon, SystemActReader

        return SystemActReader(LinearModel.from_json(self.validation["reader"]), Lexicon.from_database(self.database))

    @functools.cached_property
    def user_reader(self):
        """The user-act reader (:class:`~.systems.user_acts.UserActReader`), learnt from the 2.1 validation
        user turns and cached like the rest (keyed besides by its own code and the database's files)."""
        from mwz_datasets import multiwoz_raw
        from mwz_metrics.interactive.systems import user_acts

        with self._lock:
            database = self.database
            paths, checksum = self.dialogue_files("validation")
            tables = ",".join(str(s.get("sha256")) for _, s in sorted(database.signature["sources"].items()))

            def run() -> dict[str, Any]:
                logger.info("deriving the user-act reader from MultiWOZ 2.1 validation (cached afterwards)")
                dialogues = list(multiwoz_raw.iter_dialogues("2.1", "validation", paths))
                return user_acts.train(dialogues, database).as_json()

            parts = [checksum, code_fingerprint(), user_acts.fingerprint(), tables]
            return user_acts.UserActReader.from_json(self.data.derived("interactive-user-reader", parts, run), database)

    def signature(self) -> dict[str, Any]:
        """The files read so far (checksums) and the version of the derived material."""
        return {"sources": dict(sorted(self.sources.items())), "derived_code": code_fingerprint()[:12]}

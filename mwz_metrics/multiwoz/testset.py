"""The MultiWOZ test set as the metrics need it, loaded lazily and cached on disk.

Only what a metric needs is loaded: BLEU and gold states read MultiWOZ 2.2 test
(plus its dialog acts); Inform/Success on predicted states read the 2.1 test
goals and bookings and the venue database. Derived data is cached as JSON under
the download cache, keyed by the source checksums and the versions of the
package, styles and normalizer chain that produced it. Files, the database and derived data come
through the process's :mod:`mwz_metrics.data_context`, which interactive evaluation shares: each is
loaded once however many test sets a command makes.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mwz_datasets import sources
from mwz_metrics import data_context
from mwz_metrics.multiwoz.normalize import ResponseNormalizer, UnknownPlaceholders
from mwz_metrics.multiwoz.references import build_from_22
from mwz_plugins import get_registry
from mwz_plugins.errors import InputError
from mwz_plugins.progress import progress

logger = logging.getLogger(__name__)


class TestSet:
    """Lazily loaded references, gold states, goals, bookings and database."""

    __test__ = False  # not a pytest class

    def __init__(
        self,
        *,
        chain: str = "mwzeval",
        styles: list[str] | None = None,
        data_dir=None,
        normalizer: ResponseNormalizer | None = None,
        verification_mode: str | None = None,
    ) -> None:
        registry = get_registry()
        self.chain_name = chain
        self.chain = registry.chain(chain)
        all_styles = {n: s for n, s in registry.styles.items() if s.has_references}
        if styles is not None:
            unknown = [s for s in styles if s not in registry.styles]
            if unknown:
                raise InputError(f"unknown delex style(s) {unknown}; registered: {sorted(registry.styles)}")
            all_styles = {n: s for n, s in all_styles.items() if n in styles}
        self.styles = all_styles
        # Styles built from MultiWOZ 2.2 span annotations; the others read a reference file.
        self.span_styles = {n: s for n, s in all_styles.items() if s.builds_references}
        self.file_styles = {n: s for n, s in all_styles.items() if s.reads_reference_file}
        unsupported = [n for n, s in self.span_styles.items() if s.reference_source != "2.2"]
        if unsupported:
            raise InputError(f"style(s) {unsupported} build references from a dataset other than MultiWOZ 2.2")
        self.verification_mode = verification_mode
        self._file_references: dict[str, dict[str, list[str]]] = {}
        self.data_dir = data_dir
        self.normalizer = normalizer or ResponseNormalizer()
        self.resolved: dict[str, sources.ResolvedFile] = {}
        # what each resolved file was read for ("2.1", "2.2", "style:<name>"), so that a
        # result names only the files its own numbers came from
        self.resolved_for: dict[str, str] = {}
        self.database_sources: list[dict[str, Any]] = []

    @functools.cached_property
    def data(self) -> data_context.DataContext:
        """The process's MultiWOZ files, venue database and derived data for this data folder and chain."""
        return data_context.shared(self.data_dir, self.chain_name)

    def _resolve(self, version: str, split: str) -> dict[str, Path]:
        files = self.data.multiwoz(version, split)
        self.resolved.update(files)
        self.resolved_for.update(dict.fromkeys(files, version))
        return {path: f.path for path, f in files.items()}

    def _versions(self) -> list[str]:
        registry = get_registry()
        styles = [f"{n}@{s.version}" for n, s in sorted(self.span_styles.items())]
        chain = registry.chains[self.chain_name]
        steps = [f"{s}@{registry.normalizers[s].version}" for s in chain.steps]
        return [*styles, f"{self.chain_name}@{chain.version}", *steps]

    def _checksums(self, files: dict[str, Path]) -> list[str]:
        # the files' checksums, and the code that derives from them (this package's)
        return [f"{p}={self.resolved[p].sha256}" for p in sorted(files)] + [
            data_context.code_fingerprint(Path(__file__).parent)
        ]

    @functools.cached_property
    def multiwoz22(self) -> dict[str, Any]:
        """``{"references": {style: {key: [str]}}, "gold_states": {key: [state]}}``."""
        files = self._resolve("2.2", "test")

        def build():
            from mwz_datasets import multiwoz_raw

            dialogues = multiwoz_raw.iter_dialogues("2.2", "test", files)
            report = UnknownPlaceholders()
            refs, gold, raw = build_from_22(dialogues, self.span_styles, self.normalizer, self.chain, report)
            return {
                "references": refs,
                "gold_states": gold,
                "delexicalized": raw,
                "unknown_placeholders": report.as_dict(),
            }

        return self.data.derived("mwz22-test", self._checksums(files) + self._versions(), build)

    def file_references(self, name: str, keys: Iterable[str]) -> dict[str, list[str]]:
        """References of a reference-file style for the test dialogues ``keys``, read
        through ``mwz_datasets``.

        Raises ``mwz_datasets.sources.MissingSourceError`` when the file is not at hand.
        """
        if name not in self._file_references:
            from mwz_datasets import reference_files

            records, resolved = reference_files.load_pinned(
                self.file_styles[name].reference_source,  # type: ignore[arg-type]
                keys=keys,
                data_dir=self.data_dir,
                verification_mode=self.verification_mode,
            )
            self.resolved[resolved.source.path] = resolved
            self.resolved_for[resolved.source.path] = f"style:{name}"
            self._file_references[name] = records
        return self._file_references[name]

    @functools.cached_property
    def multiwoz21(self) -> dict[str, Any]:
        """``{"goals": {key: goal}, "booked_domains": {key: [[domain]]}}`` from 2.1 test."""
        from mwz_datasets import goals as goal_lib
        from mwz_datasets import multiwoz_raw

        files = self._resolve("2.1", "test")

        def build():
            goals, booked = {}, {}
            for key, raw in progress(
                multiwoz_raw.iter_raw_dialogues("2.1", "test", files), "reading MultiWOZ 2.1 goals"
            ):
                goals[key] = goal_lib.goal_from_raw(raw["goal"], self.chain)
                booked[key] = goal_lib.booked_domains_from_raw(raw["log"])
            return {"goals": goals, "booked_domains": booked}

        return self.data.derived("mwz21-test-goals", self._checksums(files) + self._versions(), build)

    @functools.cached_property
    def gold_active_domains(self) -> dict[str, list[list[str]]]:
        """Per dialogue and system turn, the 2.1 test set's domains as DAMD derives them from its acts."""
        from mwz_datasets import goals as goal_lib
        from mwz_datasets import multiwoz_raw

        files = self._resolve("2.1", "test")

        def build():
            return {
                key: goal_lib.gold_active_domains_from_raw(raw["goal"], raw["log"])
                for key, raw in multiwoz_raw.iter_raw_dialogues("2.1", "test", files)
            }

        return self.data.derived("mwz21-test-gold-active-domains", self._checksums(files), build)

    @functools.cached_property
    def database(self):
        """The venue database, values through the test set's normalizer chain (the process's one)."""
        db = self.data.database
        self.database_sources = list(db.signature["sources"].values())
        return db

    def reference_placeholder_warning(self) -> dict | None:
        """Placeholders the styles' references use that no style maps (kept in the cache too)."""
        warning = UnknownPlaceholders.from_dict(self.multiwoz22["unknown_placeholders"]).as_warning()
        return {**warning, "in": "references"} if warning else None

    def truncated(self, version: str) -> str | None:
        """None for a loaded ``version`` ("2.1", "2.2") whose test split holds the release's dialogues; else
        what to say about the local copy that does not (a truncated mirror, such as the Hub's dummy data,
        gives confident scores of a few dialogues): where its files are, and the fix."""
        from mwz_datasets.multiwoz_raw import TEST_DIALOGUES

        held = len(self.multiwoz22["gold_states"] if version == "2.2" else self.multiwoz21["booked_domains"])
        if held >= TEST_DIALOGUES:
            return None
        files = [f for path, f in sorted(self.resolved.items()) if self.resolved_for.get(path) == version]
        where = ", ".join(sorted({f"{f.path.parent} ({f.origin})" for f in files})) or "a local copy"
        return (
            f"the MultiWOZ {version} test files at {where} hold {held} of the release's {TEST_DIALOGUES} test "
            "dialogues (a truncated copy); point MWZ_MIRROR or --data-dir at a full copy, or unset MWZ_MIRROR "
            "to download the pinned files"
        )

    def check_references(self, dialogues: Iterable[str], what: str) -> None:
        """Refuse, before anything runs, ``dialogues`` (test dialogue ids) that a style built from MultiWOZ 2.2
        has no reference for: BLEU would stop only after the work (``what``: whose BLEU, for the message)."""
        from mwz_datasets.multiwoz_raw import evaluation_key

        if not self.span_styles:
            return
        keys = [evaluation_key(d) for d in dialogues]
        references = self.multiwoz22["references"]
        for style in sorted(self.span_styles):
            missing = [k for k in keys if k not in references.get(style, {})]
            if missing:
                fix = self.truncated("2.2")
                raise InputError(
                    f"{what}: style {style} has no reference for {len(missing)} of {len(keys)} dialogue(s), "
                    f"e.g. {missing[:10]}" + (f": {fix}" if fix else "")
                )

    def oracle_predictions(self) -> dict[str, list[dict[str, str]]]:
        """The 2.2 test references as predictions (``mwz22`` delexicalization, no states)."""
        return {key: [{"response": r} for r in turns] for key, turns in self.multiwoz22["delexicalized"].items()}

    def turn_counts(self, loaded: list[str]) -> dict[str, int] | None:
        """System turns per test dialogue, from whichever version is loaded (None if none)."""
        if "2.1" in loaded:
            return {k: len(v) for k, v in self.multiwoz21["booked_domains"].items()}
        if "2.2" in loaded:
            return {k: len(v) for k, v in self.multiwoz22["gold_states"].items()}
        return None

    def source_signature(self, uses: Iterable[str] | None = None, database: bool = True) -> list[dict[str, Any]]:
        """Provenance of the files read for ``uses`` ("2.1", "2.2", "style:<name>"; all when None)
        and of the venue database."""
        wanted = None if uses is None else set(uses)
        files = [
            f.signature()
            for path, f in sorted(self.resolved.items())
            if wanted is None or self.resolved_for.get(path) in wanted
        ]
        return files + (self.database_sources if database else [])

"""Scoring predictions the standard way (mwzeval), as a library and as metrics.

:class:`Evaluator` scores predictions in one pass; below it, mwzeval's four metrics in the metric
protocol (:mod:`mwz_metrics.metric`): ``success``, ``bleu``, ``richness`` and ``dst``, registered by the
built-in plugin like any contributor's metric (``make_success`` ...).

They form one group: asked together, they join into one metric, :class:`Mwzeval`, whose one
:class:`Evaluator` pass reads and normalizes the responses once and scores each (mwzeval computes
them so); they share that pass's coverage, warnings and signature. Each gives its figures as results
of their own (Inform and Success; BLEU per style; richness's seven; joint accuracy and slot F1), with
what each dialogue contributes where a comparison asks for it (``settings["dialogue_scores"]``).
Options (``--metric mwz_success:matching=intersection``) override the command's settings:
``success`` takes the fields of :class:`~mwz_metrics.settings.SuccessConfig`, ``bleu`` those of
:class:`~mwz_metrics.settings.BleuConfig` (``styles=damd+mwz22``).

>>> from mwz_metrics.multiwoz.evaluator import Evaluator
>>> result = Evaluator(bleu=False, success=False, richness=True).evaluate(
...     {"sng0073": [{"response": "i have [value_count] trains for you."}]})
>>> result["richness"]["num_unigrams"]
6
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mwz_datasets.fuzzy import partial_ratio
from mwz_metrics.inputs import InputError, Predictions, check_against_test_set, load_predictions
from mwz_metrics.metric_types import MetricInputs, MetricResult, Presentation
from mwz_metrics.multiwoz import bleu as bleu_lib
from mwz_metrics.multiwoz import dst as dst_lib
from mwz_metrics.multiwoz import richness as richness_lib
from mwz_metrics.multiwoz import success as success_lib
from mwz_metrics.multiwoz.normalize import UnknownPlaceholders, normalize_state
from mwz_metrics.multiwoz.testset import TestSet
from mwz_metrics.settings import BleuConfig, SuccessConfig, typed
from mwz_metrics.signature import Signature, describe_chain, describe_styles, plugin_details, source_checksums
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Options:
    """What an evaluation computes and how; every field is named in the result's signature."""

    bleu: bool = True
    success: bool = True
    richness: bool = True
    dst: bool = False
    chain: str = "mwzeval"
    styles: tuple[str, ...] | None = None
    per_dialogue: bool = False
    reference_files: tuple[tuple[str, str], ...] = ()
    variant: SuccessConfig = SuccessConfig(gold_states=False).resolved()  # Inform/Success's options, made
    delexicalize: str = "auto"

    def as_dict(self) -> dict[str, Any]:
        """The options as the signature names them: Inform/Success's ``gold_states`` after ``dst``, its
        variant's choices under ``variant``."""
        plain = dataclasses.asdict(dataclasses.replace(self, variant=SuccessConfig()))
        plain["variant"] = self.variant.variant()
        ordered: dict[str, Any] = {}
        for key, value in plain.items():
            ordered[key] = value
            if key == "dst":
                ordered["gold_states"] = bool(self.variant.gold_states)
        return ordered


@dataclasses.dataclass(frozen=True)
class SessionTruth:
    """What interactive sessions are scored against, in place of the test set's dialogues.

    ``goals``: each session's goal in mwzeval's format; ``booked``: per system turn, the domains
    whose booking the user has asked for (mwzeval's booked domains). With ``aligned`` the
    sessions are the test dialogues' own turns (``replay``): they are checked against the test
    set, BLEU is allowed and predictions without states get the gold ones, as in static
    evaluation; otherwise a session may have any number of turns, and a turn without a state
    counts as an empty state (never a gold one: such a session has none).
    """

    goals: Mapping[str, Mapping[str, Any]]
    booked: Mapping[str, list[list[str]]]
    aligned: bool = False


def _sha256_of_json(data: Any) -> str:
    """The sha256 of a mapping as canonical JSON (references given in memory)."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class Evaluator:
    """Evaluates predictions in mwzeval's format; reusable across systems (caches stay warm)."""

    _normalized_states: dict[str, list] | None = None  # per evaluation, see _predicted_states

    def __init__(
        self,
        *,
        bleu: bool = True,
        success: bool = True,
        richness: bool = True,
        dst: bool = False,
        chain: str = "mwzeval",
        styles: list[str] | None = None,
        per_dialogue: bool = False,
        data_dir=None,
        testset: TestSet | None = None,
        reference_files: Mapping[str, Any] | None = None,
        bleu_per_dialogue: bool = True,
        delexicalize: str = "auto",
        **success_options: Any,
    ) -> None:
        """Options as in :class:`Options`. ``reference_files``: extra BLEU styles, name -> path of a
        file in mwzeval's format or the decoded mapping itself (dialogue id -> list of references);
        ``success_options``: Inform/Success's, the fields of :class:`~mwz_metrics.settings.SuccessConfig`
        (``gold_states``, the variant: default mwzeval's). ``bleu_per_dialogue=False`` leaves BLEU per dialogue out of ``per_dialogue``'s details
        (per-domain BLEU stays); it changes no number. ``delexicalize``: ``auto``, ``always`` or ``never``
        (:mod:`mwz_metrics.delexicalize`: lexicalized responses read like delexicalized ones)."""
        from mwz_metrics.delexicalize import MODES

        if delexicalize not in MODES:
            raise InputError(f"delexicalize must be one of {', '.join(MODES)}, not {delexicalize!r}")
        self.bleu_per_dialogue = bleu_per_dialogue
        config = typed(SuccessConfig, success_options, "Evaluator")
        variant = dataclasses.replace(config, gold_states=bool(config.gold_states)).resolved()
        self.options = Options(
            bleu,
            success,
            richness,
            dst,
            chain,
            tuple(styles) if styles is not None else None,
            per_dialogue,
            tuple(
                sorted(
                    (n, str(p) if not isinstance(p, Mapping) else "<mapping>")
                    for n, p in (reference_files or {}).items()
                )
            ),
            variant,
            delexicalize,
        )
        self.reference_files = dict(reference_files or {})
        self.reference_checksums: dict[str, str] = {}
        # One normalizer (and its cache) for hypotheses and references alike.
        self.testset = testset or TestSet(chain=chain, styles=styles, data_dir=data_dir)
        self.normalizer = self.testset.normalizer
        self.timings: dict[str, float] = {}
        self.last_bleu_inputs: tuple[dict[str, list[str]], dict[str, Mapping[str, Any]]] | None = None
        self.bleu_styles: list[str] = []
        self.last_delexicalized: dict[str, list[str]] | None = None  # the responses, where values were replaced
        self._delexicalizer: Any = None

    def _timed(self, name: str, started: float) -> float:
        now = time.perf_counter()
        self.timings[name] = now - started
        return now

    def evaluate(self, predictions: Mapping[str, Any] | str, sessions: SessionTruth | None = None) -> dict[str, Any]:
        """Score predictions (a mapping or a JSON path) with the chosen metrics; returns mwzeval's keys plus
        ``coverage``, ``warnings`` and ``signature``. ``sessions``: score interactive sessions against
        their own goals and bookings (:class:`SessionTruth`)."""
        opts = self.options
        if not (opts.bleu or opts.success or opts.richness or opts.dst):
            raise InputError("nothing to evaluate: enable at least one of bleu, success, richness, dst")
        t = time.perf_counter()
        self.timings = {}
        self._normalized_states = None
        preds = self._read(predictions, sessions)
        preds, delexicalized = self._delexicalized(preds)
        has_states = all(turn.state is not None for turns in preds.values() for turn in turns)
        has_domains = all(turn.active_domains is not None for turns in preds.values() for turn in turns)
        use_gold = (
            opts.success and (opts.variant.gold_states or not has_states) and (sessions is None or sessions.aligned)
        )
        loaded = self._versions_needed(use_gold)
        warnings: list[dict] = []
        coverage = None
        counts = self.testset.turn_counts(loaded)
        t = self._timed("load", t)
        if counts is not None and (sessions is None or sessions.aligned):
            coverage, warnings = check_against_test_set(preds, counts)
        unknown = UnknownPlaceholders()
        hypotheses = self.normalizer.normalize_all({k: [x.response for x in v] for k, v in preds.items()}, unknown)
        t = self._timed("normalize", t)
        result: dict[str, Any] = {"bleu": None, "success": None, "richness": None, "dst": None}
        bleu_signature = None
        if opts.bleu:
            keys = counts.keys() if counts is not None else hypotheses.keys()
            bleu_signature = self._score_bleu(result, preds, hypotheses, keys, warnings, has_domains, has_states)
            t = self._timed("bleu", t)
        if opts.success:
            result["success"] = self._success(preds, hypotheses, use_gold, has_domains, sessions)
            t = self._timed("success", t)
        if opts.richness:
            result["richness"] = richness_lib.richness(r for turns in hypotheses.values() for r in turns)
            t = self._timed("richness", t)
        if opts.dst:
            predicted = {k: [normalize_state(x.state or {}, self.testset.chain) for x in v] for k, v in preds.items()}
            result["dst"] = dst_lib.dst_scores(predicted, self.testset.multiwoz22["gold_states"], partial_ratio)
            t = self._timed("dst", t)
        reference_unknown = self.testset.reference_placeholder_warning() if "2.2" in loaded else None
        warnings.extend(w for w in (unknown.as_warning(), reference_unknown) if w)
        warnings.extend(delexicalized.warnings())
        result["coverage"] = coverage.as_dict() if coverage else None
        result["warnings"] = warnings
        result["signature"] = self._signature(loaded, use_gold, bleu_signature, delexicalized)
        return result

    def _delexicalized(self, preds: Predictions) -> tuple[Predictions, Any]:
        """The predictions with their values replaced by placeholders where :func:`~mwz_metrics.delexicalize.decide`
        says so (a new mapping; the input is untouched), and the decision."""
        from mwz_metrics import delexicalize as delex

        def finder() -> Any:
            if self._delexicalizer is None:
                self._delexicalizer = delex.Delexicalizer.from_database(self.testset.database)
            return self._delexicalizer

        responses = [turn.response for turns in preds.values() for turn in turns]  # a list: nothing calls back up
        decision = delex.decide(responses, self.options.delexicalize, finder)
        self.last_delexicalized = None
        if not decision.apply:
            return preds, decision
        out: Predictions = {}
        for key, turns in preds.items():
            out[key] = []
            for turn in turns:
                text = finder().delexicalize(turn.response, turn.state)
                decision.changed += text != turn.response
                out[key].append(dataclasses.replace(turn, response=text) if text != turn.response else turn)
        self.last_delexicalized = {key: [turn.response for turn in turns] for key, turns in out.items()}
        return out, decision

    def _read(self, predictions: Mapping[str, Any] | str, sessions: SessionTruth | None) -> Predictions:
        """The validated predictions, refusing what the options cannot score."""
        opts = self.options
        preds = load_predictions(predictions)
        if not preds:
            raise InputError("predictions are empty")
        if sessions is not None:
            if opts.bleu and not sessions.aligned:
                raise InputError("BLEU needs sessions aligned with the test dialogues (the replay simulator)")
            if opts.variant.active_domains == "gold" and not sessions.aligned:
                raise InputError("gold active domains exist only for sessions aligned with the test dialogues")
            without_goal = [k for k in preds if k not in sessions.goals]
            if without_goal:
                raise InputError(f"{len(without_goal)} session(s) without a goal, e.g. {without_goal[:5]}")
        if opts.dst and not all(turn.state is not None for turns in preds.values() for turn in turns):
            raise InputError("dst needs a 'state' in every predicted turn")
        return preds

    def _versions_needed(self, use_gold: bool) -> list[str]:
        """The MultiWOZ versions this evaluation reads: 2.1 for goals and bookings, 2.2 for spans and gold states."""
        opts = self.options
        loaded = []
        # BLEU needs MultiWOZ 2.2 only for styles built from its spans (a user's file may replace one).
        spans_needed = opts.bleu and any(n not in self.reference_files for n in self.testset.span_styles)
        if opts.success or (opts.bleu and not (spans_needed or opts.dst or use_gold)):
            loaded.append("2.1")  # with BLEU alone: the list of test dialogues
        if spans_needed or opts.dst or use_gold:
            loaded.append("2.2")
        return loaded

    def _score_bleu(
        self,
        result: dict[str, Any],
        preds: Predictions,
        hypotheses: dict[str, list[str]],
        keys: Iterable[str],
        warnings: list[dict],
        has_domains: bool,
        has_states: bool,
    ) -> Any:
        """BLEU per style into ``result`` (and its details with ``per_dialogue``); returns its signature."""
        refs = self._bleu_references(warnings, keys)
        for style, per_dialogue in refs.items():
            missing = [k for k in hypotheses if k not in per_dialogue]
            if missing:
                truncated = self.testset.truncated("2.2") if style in self.testset.span_styles else None
                fix = f": {truncated}; or leave BLEU of {style} out (--style, -s -r)" if truncated else ""
                raise InputError(
                    f"style {style}: no reference for {len(missing)} dialogue(s), e.g. {missing[:10]}{fix}"
                )
            short = [k for k in hypotheses if len(per_dialogue[k]) < len(hypotheses[k])]
            if short:
                raise InputError(
                    f"style {style}: dialogue {short[0]} has {len(hypotheses[short[0]])} responses "
                    f"but {len(per_dialogue[short[0]])} references"
                )
        self.bleu_styles = [n for n in refs if n not in self.reference_checksums]
        scores, bleu_signature = bleu_lib.bleu(hypotheses, refs)
        result["bleu"] = scores
        # kept for paired resampling (mwz_metrics.comparison): the exact inputs of this BLEU
        self.last_bleu_inputs = (hypotheses, refs)
        if self.options.per_dialogue:
            result["bleu_details"] = self._bleu_details(preds, hypotheses, refs, has_domains, has_states)
        return bleu_signature

    def _bleu_references(self, warnings: list[dict], keys: Iterable[str]) -> dict[str, Mapping[str, Any]]:
        """References per style: span styles built from 2.2, reference-file styles, user files.

        A reference-file style whose file is missing is reported in ``warnings`` and
        skipped, unless it was asked for by name.
        """
        from mwz_datasets import reference_files
        from mwz_datasets.sources import MissingSourceError

        ts = self.testset
        keys = list(keys)
        refs: dict[str, Mapping[str, Any]] = {}
        unavailable: dict[str, str] = {}
        if any(n not in self.reference_files for n in ts.span_styles):
            refs.update(ts.multiwoz22["references"])
        for name in ts.file_styles:
            if name in self.reference_files:
                continue
            try:
                refs[name] = ts.file_references(name, keys)
            except MissingSourceError as error:
                if self.options.styles is not None and name in self.options.styles:
                    raise
                # The file and why (offline, download failed), not where it looked: no local paths.
                lines = str(error).splitlines()
                why = lines[3].strip() if len(lines) > 4 else lines[0]
                unavailable[name] = f"{ts.file_styles[name].reference_source}: {why}"
        if unavailable:
            warnings.append(
                {
                    "kind": "style_missing",
                    "count": len(unavailable),
                    "styles": unavailable,
                    "effect": f"no BLEU for {', '.join(sorted(unavailable))} (reference file not found)",
                }
            )
        # A user's file given a registered style's name replaces that style's references.
        refs = {n: r for n, r in refs.items() if n not in self.reference_files}
        self.reference_checksums = {}
        for name, given in self.reference_files.items():
            try:
                if isinstance(given, Mapping):
                    records = reference_files.parse(given, f"references[{name!r}]", keys)
                    digest = _sha256_of_json(given)
                else:
                    records, digest = reference_files.read_user_file(given, keys)
            except reference_files.ReferenceFileError as error:
                raise InputError(str(error)) from None
            refs[name] = records
            self.reference_checksums[name] = digest
        return {name: refs[name] for name in sorted(refs)}

    def _predicted_states(self, preds: Predictions) -> dict[str, list]:
        """The predicted states normalized once per evaluation (BLEU's domains and Success share them)."""
        if self._normalized_states is None:
            chain = self.testset.chain
            self._normalized_states = {k: [normalize_state(t.state or {}, chain) for t in v] for k, v in preds.items()}
        return self._normalized_states

    def _bleu_details(
        self, preds: Predictions, hypotheses, refs, has_domains: bool, has_states: bool
    ) -> dict[str, Any]:
        """Per-domain and per-dialogue BLEU for error analysis (``per_dialogue``).

        Domains: the turns' ``active_domains`` when given, else mwzeval's estimate
        from the predicted states, else from the MultiWOZ 2.2 gold states; a turn
        with several active domains counts in each.
        """
        if has_domains:
            active = {k: [list(t.active_domains or []) for t in v] for k, v in preds.items()}
            source = "given active_domains"
        else:
            if has_states:
                states = self._predicted_states(preds)
                source = "estimated from predicted states"
            else:
                gold = self.testset.multiwoz22["gold_states"]
                states = {k: gold[k][: len(v)] for k, v in preds.items() if k in gold}
                source = "estimated from MultiWOZ 2.2 gold states"
                without = len(preds) - len(states)
                if without:  # a partial 2.2 copy: those turns are grouped, not dropped
                    source += f" ({without} dialogue(s) without one: domain 'unknown')"
            active = {k: success_lib.estimate_active_domains(v) for k, v in states.items()}
            for k, v in preds.items():
                active.setdefault(k, [["unknown"]] * len(v))
        by_domain: dict[str, list[tuple[str, int]]] = {}
        for key, turns in active.items():
            for index, domains in enumerate(turns):
                for domain in domains or ["none"]:
                    by_domain.setdefault(domain, []).append((key, index))
        by_dialogue = {key: [(key, i) for i in range(len(turns))] for key, turns in hypotheses.items()}
        return {
            "per_domain": bleu_lib.grouped_bleu(hypotheses, refs, dict(sorted(by_domain.items()))),
            "domains": source,
            **(
                {"per_dialogue": bleu_lib.grouped_bleu(hypotheses, refs, by_dialogue)} if self.bleu_per_dialogue else {}
            ),
        }

    def _success(
        self, preds: Predictions, hypotheses, use_gold: bool, has_domains: bool, sessions: SessionTruth | None = None
    ) -> dict[str, Any]:
        ts = self.testset
        if sessions is not None:
            goals, booked = sessions.goals, sessions.booked
        else:
            goals, booked = ts.multiwoz21["goals"], ts.multiwoz21["booked_domains"]
        gold_states = ts.multiwoz22["gold_states"] if use_gold else None
        db = ts.database
        variant = self.options.variant
        gold_active = ts.gold_active_domains if variant.active_domains == "gold" else None
        outcomes = {}
        per_dialogue = {}
        for key, turns in preds.items():
            if gold_states is not None:
                if key not in gold_states:
                    raise InputError(f"dialogue {key}: no MultiWOZ 2.2 gold state to evaluate Inform/Success with")
                states = gold_states[key][: len(turns)]
            else:
                states = self._predicted_states(preds)[key]
            if gold_active is not None:
                active = gold_active[key][: len(turns)]
            elif has_domains:
                active = [list(turn.active_domains or ()) for turn in turns]
            else:
                active = success_lib.estimate_active_domains(states)
            outcome = success_lib.dialogue_success(
                goals[key], booked[key], hypotheses[key], states, active, db.query, variant
            )
            outcomes[key] = outcome
            if self.options.per_dialogue:
                per_dialogue[key] = {"inform": outcome.inform, "success": outcome.success, "active_domains": active}
        inform, success, totals = success_lib.aggregate(outcomes)
        out: dict[str, Any] = {
            # mwzeval reports rates rounded to one decimal
            "inform": {d: round(v, 1) for d, v in inform.items()},
            "success": {d: round(v, 1) for d, v in success.items()},
            "exact": {"inform": inform, "success": success, "dialogues": totals},
            "states": "gold (MultiWOZ 2.2)" if use_gold else "predicted",
            "active_domains": (
                "gold (MultiWOZ 2.1 dialogue acts, as DAMD derives them)"
                if gold_active is not None
                else "given"
                if has_domains
                else "estimated from state changes"
            ),
            "variant": variant.variant(),
        }
        if self.options.per_dialogue:
            out["per_dialogue"] = per_dialogue
        return out

    def _signature(
        self, loaded: list[str], use_gold: bool, bleu_signature: str | None, delexicalized: Any
    ) -> dict[str, Any]:
        opts = self.options.as_dict()
        opts["states"] = "gold" if use_gold else "predicted"
        variant = self.options.variant
        styles = list(self.bleu_styles) if self.options.bleu else []
        uses = [*loaded, *(f"style:{name}" for name in styles)]
        replaced = bool(delexicalized.apply and delexicalized.changed)
        sources = self.testset.source_signature(uses, database=self.options.success or replaced)
        details: dict[str, Any] = {
            "package": f"mwz-eval {__version__}",
            "options": opts,
            "sources": sources,
            **plugin_details(styles, [self.options.chain]),
            "datasets": {"2.1": "test" if "2.1" in loaded else None, "2.2": "test" if "2.2" in loaded else None},
        }
        if self.options.success:
            # Which MultiWOZ files each Inform/Success input came from.
            details["success_inputs"] = {
                "goals": "2.1 test (data.json goal)",
                "booked_domains": "2.1 test (data.json metadata)",
                "states": "2.2 test (gold)" if use_gold else "predicted",
                "active_domains": "2.1 test (data.json dialog_act + metadata, DAMD's turn_domain)"
                if variant.active_domains == "gold"
                else "predicted",
                "database": "mwzeval's venue database",
            }
        if self.options.bleu:
            details["sacrebleu"] = bleu_signature
        details["delexicalize"] = delexicalized.details()
        metrics = [m for m in ("bleu", "success", "richness", "dst") if opts[m]]
        line_options: dict[str, object] = {"metrics": "+".join(metrics)}
        if self.options.success:
            line_options["states"] = opts["states"]
            line_options.update(variant.variant())
        if replaced:  # the numbers read placeholders the delexicalizer wrote
            line_options["delexicalized"] = details["delexicalize"]["delexicalizer"]
        data = source_checksums(sources)
        user_styles = []
        if self.options.bleu:
            for name, digest in sorted(self.reference_checksums.items()):
                data[f"references:{name}"] = digest
                user_styles.append(f"{name}@file:sha256={digest[:12]}")
        signature = Signature.build(
            "multiwoz",
            data=data,
            normalizer=describe_chain(self.options.chain),
            styles=describe_styles(styles) + user_styles,
            options=line_options,
            details=details,
        )
        return signature.as_dict()


# mwzeval's four metrics in the metric protocol

PARTS = ("bleu", "success", "richness", "dst")  # mwzeval's sections, in its order


@dataclasses.dataclass(frozen=True)
class NoOptions:
    """A metric that takes no options."""


# Each metric's config: its options, declared once (mwz_metrics.settings).
_OPTIONS: dict[str, type] = {"success": SuccessConfig, "bleu": BleuConfig, "richness": NoOptions, "dst": NoOptions}
# What the evaluator takes from the settings: the metrics' options and these (the rest are the commands' own).
_EVALUATOR_SETTINGS = (
    *(f.name for config in (SuccessConfig, BleuConfig) for f in dataclasses.fields(config)),
    "chain",
    "reference_files",
    "per_dialogue",
    "bleu_per_dialogue",
    "delexicalize",
)


class MwzevalMetric:
    """One of mwzeval's metrics, as ``make_success`` and the others make it. Asked together with others
    of its group, it is scored through :class:`Mwzeval`, the one metric they join into (:meth:`join`);
    alone, by a pass of its own."""

    forks = True  # pure Python and numpy: a comparison may score systems in forked workers

    def __init__(self, name: str, options: Mapping[str, Any]) -> None:
        self.name = name
        self.options = dict(options)
        self.presentation = Presentation(lines=functools.partial(_lines, name))
        self._alone: Mwzeval | None = None  # scored by itself: its own pass, made once (its evaluators kept)

    def join(self, metrics: Sequence[MwzevalMetric]) -> Mwzeval:
        """mwzeval as one metric scoring ``metrics`` (of which this is one) in one pass."""
        return Mwzeval(metrics)

    def score(self, inputs: MetricInputs) -> MetricResult:
        """This metric's result, from a pass of its own."""
        if self._alone is None:
            self._alone = Mwzeval([self])
        return self._alone.score(inputs).figures[0]


class Mwzeval:
    """mwzeval's metrics asked together, as one metric: one :class:`Evaluator` pass reads and normalizes
    the responses once and scores each (mwzeval computes them so).

    Its result holds one result per member in ``figures``, named by the member; ``report``, what the
    pass writes once beside their sections (mwzeval's keys, coverage, warnings, signature);
    ``responses``, the responses as it read them where it rewrote them (delexicalized). Its evaluators
    and test sets stay in ``cache`` as long as the command holds it (every system of a comparison), so
    the references and memoized queries stay warm.
    """

    forks = True

    def __init__(self, members: Sequence[MwzevalMetric]) -> None:
        self.members = list(members)
        self.name = "+".join(m.name for m in self.members)
        self.cache: dict[str, Any] = {}

    def score(self, inputs: MetricInputs) -> MetricResult:
        """Every member's result on ``inputs``, from one evaluator pass."""
        settings = inputs.settings.given()
        for member in self.members:
            settings.update(member.options)
        if settings.get("styles") is not None:
            settings["styles"] = list(settings["styles"])
        parts = [part for part in PARTS if part in {m.name for m in self.members}]
        scorer = _evaluator(self.cache, parts, settings, inputs.data_dir)
        predictions: Any = inputs.predictions if inputs.predictions is not None else inputs.source
        if predictions is None:
            raise InputError("no predictions to score")
        truth = inputs.truth(scorer.testset) if callable(inputs.truth) else inputs.truth
        result = scorer.evaluate(predictions, sessions=truth)
        timings = ", ".join(f"{k} {v:.2f}s" for k, v in scorer.timings.items())
        logger.info("mwzeval's %s: %s", "+".join(parts), timings)
        statistics = (
            bleu_lib.dialogue_statistics(scorer.last_bleu_inputs)
            if "bleu" in parts and settings.get("dialogue_scores")
            else {}
        )
        figures = [_RESULTS[member.name](result, statistics) for member in self.members]
        return MetricResult(self.name, None, figures=figures, report=result, responses=scorer.last_delexicalized)


def _make(name: str, options: Mapping[str, str]) -> MwzevalMetric:
    parsed: Any = typed(_OPTIONS[name], options, name)
    given = {f.name: getattr(parsed, f.name) for f in dataclasses.fields(parsed) if getattr(parsed, f.name) is not None}
    return MwzevalMetric(name, given)


def make_success(**options: str) -> MwzevalMetric:
    """The ``success`` metric: Inform and Success rates, per domain (mwzeval)."""
    return _make("success", options)


def make_bleu(**options: str) -> MwzevalMetric:
    """The ``bleu`` metric: BLEU of the normalized responses per delexicalization style (mwzeval)."""
    return _make("bleu", options)


def make_richness(**options: str) -> MwzevalMetric:
    """The ``richness`` metric: lexical richness of the responses (mwzeval)."""
    return _make("richness", options)


def make_dst(**options: str) -> MwzevalMetric:
    """The ``dst`` metric: joint accuracy and slot F1 of the predicted states (mwzeval)."""
    return _make("dst", options)


def _where() -> tuple[str, ...]:
    """Where the data comes from besides ``data_dir`` (a changed mirror or cache is another test set)."""
    from mwz_datasets import sources

    return (os.environ.get(sources.MIRROR_ENV, ""), os.environ.get(sources.CACHE_ENV, ""))


def _evaluator(cache: dict[str, Any], parts: Sequence[str], settings: Mapping[str, Any], data_dir: str | None) -> Any:
    """The :class:`~.evaluator.Evaluator` of ``parts`` under ``settings``, made once per ``cache``, on
    the test set ``settings["test_set"]`` gives (``mwz evaluate --oracle`` scores the one it built)
    or one test set per chain, styles and data source."""
    options = {k: settings[k] for k in _EVALUATOR_SETTINGS if settings.get(k) is not None}
    where = [str(data_dir) if data_dir else None, _where(), id(settings.get("test_set"))]
    key = json.dumps([sorted(parts), options, where], sort_keys=True, default=str)
    if key not in cache:
        chain, styles = options.get("chain", "mwzeval"), options.get("styles")
        shared = settings.get("test_set")
        if shared is None:
            test_key = json.dumps(["test set", chain, styles, where], default=str)
            if test_key not in cache:
                cache[test_key] = TestSet(chain=chain, styles=styles, data_dir=data_dir)
            shared = cache[test_key]
        flags: dict[str, Any] = {part: part in parts for part in PARTS}
        cache[key] = Evaluator(**flags, testset=shared, data_dir=data_dir, **options)
    return cache[key]


def _lines(name: str, result: MetricResult) -> list[str]:
    """A result's section of ``mwz evaluate``'s table, as mwzeval's own script prints it."""
    section = result.report
    lines = [f"====== {name.upper()} ======"]
    if name == "success":
        domains = sorted(set(section["inform"]) - {"total"}) + ["total"]
        lines.append(f"{'':15}{'inform':>10}{'success':>10}")
        for domain in domains:
            lines.append(f"{domain:15}{section['inform'].get(domain, 0):>10}{section['success'].get(domain, 0):>10}")
        lines.append(f"(states: {section['states']}; active domains: {section['active_domains']})")
    else:
        for key, value in section.items():
            shown = f"{value:.4f}" if isinstance(value, float) else value
            lines.append(f"{key:15}{shown}")
    return [*lines, ""]


def _success(result: Mapping[str, Any], _statistics: Mapping) -> MetricResult:
    section = result["success"]
    outcomes = section.get("per_dialogue") or {}
    if outcomes:  # numpy (through the bootstrap) only where each dialogue's contribution is asked for
        from mwz_metrics import bootstrap
    figures = []
    for name in ("inform", "success"):
        # counted as mwzeval's rates count (success_lib.aggregate): a dialogue counts when either
        # dict has a "total", and a missing outcome is a failure
        counted = {
            k: float(o[name].get("total", 0)) if "total" in o["inform"] or "total" in o["success"] else None
            for k, o in outcomes.items()
        }
        figures.append(
            MetricResult(
                name,
                section[name].get("total"),
                scores=bootstrap.rates(counted) if outcomes else None,
                per_domain=dict(section[name]),
            )
        )
    columns: dict[str, dict[str, Any]] = {}
    if outcomes:
        columns = {
            "inform": {k: o["inform"].get("total", "") for k, o in outcomes.items()},
            "success": {k: o["success"].get("total", "") for k, o in outcomes.items()},
            "active_domains": {
                k: " ".join(sorted({d for t in o["active_domains"] for d in t})) for k, o in outcomes.items()
            },
        }
    return MetricResult("success", section["success"].get("total"), report=section, figures=figures, columns=columns)


def _bleu(result: Mapping[str, Any], statistics: Mapping[str, Mapping[str, list[int]]]) -> MetricResult:
    from mwz_metrics import bootstrap

    by_domain = (result.get("bleu_details") or {}).get("per_domain") or {}
    figures = [
        MetricResult(
            f"bleu:{style}",
            value,
            scores=bootstrap.bleu_scores(statistics[style], bleu_lib.bleu_of_statistics)
            if style in statistics
            else None,
            per_domain=dict(by_domain.get(style, {})),
        )
        for style, value in result["bleu"].items()
    ]
    columns = {
        f"bleu:{style}": {k: bleu_lib.bleu_of_statistics(stats) for k, stats in by_dialogue.items()}
        for style, by_dialogue in statistics.items()
    }
    return MetricResult("bleu", None, report=result["bleu"], figures=figures, columns=columns)


def _keyed(name: str, keys: Sequence[str]) -> Callable[[Mapping[str, Any], Mapping], MetricResult]:
    def build(result: Mapping[str, Any], _statistics: Mapping) -> MetricResult:
        section = result[name]
        figures = [MetricResult(f"{name}:{key}", section[key]) for key in keys]
        return MetricResult(name, None, report=section, figures=figures)

    return build


_RESULTS: dict[str, Callable[[Mapping[str, Any], Mapping], MetricResult]] = {
    "success": _success,
    "bleu": _bleu,
    "richness": _keyed("richness", richness_lib.RICHNESS_KEYS),
    "dst": _keyed("dst", dst_lib.DST_KEYS),
}

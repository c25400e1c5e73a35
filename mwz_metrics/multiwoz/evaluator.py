"""Scoring predictions the standard way (mwzeval), as a library.

>>> from mwz_metrics.multiwoz.evaluator import Evaluator
>>> result = Evaluator(bleu=False, success=False, richness=True).evaluate(
...     {"sng0073": [{"response": "i have [value_count] trains for you."}]})
>>> result["richness"]["num_unigrams"]
6
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping
from typing import Any

from mwz_datasets.fuzzy import partial_ratio
from mwz_metrics.multiwoz import bleu as bleu_lib
from mwz_metrics.multiwoz import dst as dst_lib
from mwz_metrics.multiwoz import richness as richness_lib
from mwz_metrics.multiwoz import success as success_lib
from mwz_metrics.multiwoz.inputs import InputError, Predictions, check_against_test_set, load_predictions
from mwz_metrics.multiwoz.normalize import UnknownPlaceholders, normalize_state
from mwz_metrics.multiwoz.testset import TestSet
from mwz_metrics.signature import Signature, describe_chain, describe_styles, plugin_details, source_checksums
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Options:
    bleu: bool = True
    success: bool = True
    richness: bool = True
    dst: bool = False
    gold_states: bool = False
    chain: str = "mwzeval"
    styles: tuple[str, ...] | None = None
    per_dialogue: bool = False
    variant: success_lib.Variant = success_lib.Variant()


class Evaluator:
    """Evaluates predictions in mwzeval's format; reusable across systems (caches stay warm)."""

    def __init__(
        self,
        *,
        bleu: bool = True,
        success: bool = True,
        richness: bool = True,
        dst: bool = False,
        gold_states: bool = False,
        chain: str = "mwzeval",
        styles: list[str] | None = None,
        per_dialogue: bool = False,
        data_dir=None,
        testset: TestSet | None = None,
        matching: str | None = None,
        name_constraints: str | None = None,
        active_domains: str | None = None,
        optimistic: bool = False,
    ) -> None:
        """Options as in :class:`Options`; ``matching``, ``name_constraints`` and
        ``active_domains`` choose the Inform/Success :class:`~success_lib.Variant`
        (default mwzeval's; ``optimistic`` sets all three, single options override it)."""
        base = success_lib.Variant.optimistic() if optimistic else success_lib.Variant()
        variant = success_lib.Variant(
            matching or base.matching,
            name_constraints or base.name_constraints,
            active_domains or base.active_domains,
        )
        self.options = Options(
            bleu,
            success,
            richness,
            dst,
            gold_states,
            chain,
            tuple(styles) if styles is not None else None,
            per_dialogue,
            variant,
        )
        # One normalizer (and its cache) for hypotheses and references alike.
        self.testset = testset or TestSet(chain=chain, styles=styles, data_dir=data_dir)
        self.normalizer = self.testset.normalizer
        self.timings: dict[str, float] = {}

    def _timed(self, name: str, started: float) -> float:
        now = time.perf_counter()
        self.timings[name] = now - started
        return now

    def evaluate(self, predictions: Mapping[str, Any] | str) -> dict[str, Any]:
        opts = self.options
        if not (opts.bleu or opts.success or opts.richness or opts.dst):
            raise ValueError("nothing to evaluate: enable at least one of bleu, success, richness, dst")
        t = time.perf_counter()
        self.timings = {}
        preds = load_predictions(predictions)
        if not preds:
            raise InputError("predictions are empty")
        has_states = all(turn.state is not None for turns in preds.values() for turn in turns)
        has_domains = all(turn.active_domains is not None for turns in preds.values() for turn in turns)
        use_gold = opts.success and (opts.gold_states or not has_states)
        if opts.dst and not has_states:
            raise InputError("dst needs a 'state' in every predicted turn")

        loaded = []
        if opts.success:
            loaded.append("2.1")
        if opts.bleu or opts.dst or use_gold:
            loaded.append("2.2")
        warnings: list[dict] = []
        coverage = None
        counts = self.testset.turn_counts(loaded)
        t = self._timed("load", t)
        if counts is not None:
            coverage, warnings = check_against_test_set(preds, counts)

        unknown = UnknownPlaceholders()
        hypotheses = self.normalizer.normalize_all({k: [x.response for x in v] for k, v in preds.items()}, unknown)
        t = self._timed("normalize", t)
        result: dict[str, Any] = {"bleu": None, "success": None, "richness": None, "dst": None}
        bleu_signature = None

        if opts.bleu:
            refs = self.testset.multiwoz22["references"]
            missing = [k for k in hypotheses if k not in next(iter(refs.values()), {})]
            if missing:
                raise InputError(f"no MultiWOZ 2.2 reference for {len(missing)} dialogue(s), e.g. {missing[:10]}")
            scores, bleu_signature = bleu_lib.bleu(hypotheses, refs)
            result["bleu"] = scores
            t = self._timed("bleu", t)

        if opts.success:
            result["success"] = self._success(preds, hypotheses, use_gold, has_domains)
            t = self._timed("success", t)

        if opts.richness:
            result["richness"] = richness_lib.richness(r for turns in hypotheses.values() for r in turns)
            t = self._timed("richness", t)

        if opts.dst:
            predicted = {k: [normalize_state(x.state, self.testset.chain) for x in v] for k, v in preds.items()}
            result["dst"] = dst_lib.dst_scores(predicted, self.testset.multiwoz22["gold_states"], partial_ratio)
            t = self._timed("dst", t)

        reference_unknown = self.testset.reference_placeholder_warning() if "2.2" in loaded else None
        warnings.extend(w for w in (unknown.as_warning(), reference_unknown) if w)
        result["coverage"] = coverage.as_dict() if coverage else None
        result["warnings"] = warnings
        result["signature"] = self._signature(loaded, use_gold, bleu_signature)
        return result

    def _success(self, preds: Predictions, hypotheses, use_gold: bool, has_domains: bool) -> dict[str, Any]:
        ts = self.testset
        goals, booked = ts.multiwoz21["goals"], ts.multiwoz21["booked_domains"]
        gold_states = ts.multiwoz22["gold_states"] if use_gold else None
        db = ts.database
        variant = self.options.variant
        gold_active = ts.gold_active_domains if variant.active_domains == "gold" else None
        outcomes = {}
        per_dialogue = {}
        for key, turns in preds.items():
            if use_gold:
                if key not in gold_states:
                    raise InputError(f"dialogue {key}: no MultiWOZ 2.2 gold state to evaluate Inform/Success with")
                states = gold_states[key][: len(turns)]
            else:
                states = [normalize_state(turn.state, ts.chain) for turn in turns]
            if gold_active is not None:
                active = gold_active[key][: len(turns)]
            elif has_domains:
                active = [list(turn.active_domains) for turn in turns]
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
            "variant": variant.as_dict(),
        }
        if self.options.per_dialogue:
            out["per_dialogue"] = per_dialogue
        return out

    def _signature(self, loaded: list[str], use_gold: bool, bleu_signature: str | None) -> dict[str, Any]:
        opts = dataclasses.asdict(self.options)
        opts["states"] = "gold" if use_gold else "predicted"
        variant = self.options.variant
        styles = list(self.testset.styles) if self.options.bleu else []
        sources = self.testset.source_signature()
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
        metrics = [m for m in ("bleu", "success", "richness", "dst") if opts[m]]
        line_options: dict[str, object] = {"metrics": "+".join(metrics)}
        if self.options.success:
            line_options["states"] = opts["states"]
            line_options.update(variant.as_dict())
        signature = Signature.build(
            "multiwoz",
            data=source_checksums(sources),
            normalizer=describe_chain(self.options.chain),
            styles=describe_styles(styles),
            options=line_options,
            details=details,
        )
        return signature.as_dict()

"""Shared pieces of the ``evaluate`` module scripts (which stay thin).

The scripts take whole dialogues, whose states are free-form dicts that Arrow
features cannot describe, so ``compute`` calls the library directly instead of
round-tripping inputs through an Arrow table; ``add``/``add_batch`` are not
supported.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import datasets
import evaluate

from mwz_metrics.inputs import InputError
from mwz_metrics.multiwoz.evaluator import Evaluator
from mwz_metrics.multiwoz.testset import TestSet
from mwz_metrics.settings import SuccessConfig, keyword_signature

CITATION = """\
@inproceedings{nekvinda-dusek-2021-shades,
    title = "Shades of {BLEU}, Flavours of Success: The Case of {M}ulti{WOZ}",
    author = "Nekvinda, Tom{\\'a}{\\v{s}} and Du{\\v{s}}ek, Ond{\\v{r}}ej",
    booktitle = "Proceedings of the 1st Workshop on Natural Language Generation, Evaluation, and Metrics (GEM 2021)",
    year = "2021",
    pages = "34--46",
}
"""

INPUTS = """
Args:
    predictions: either mwzeval's format, a dict ``{dialogue_id: [turn, ...]}``, or a
        list of dialogues (each a list of turns) with ``references`` giving their ids.
        A turn is ``{"response": str, "state": {domain: {slot: str}} (optional),
        "active_domains": [str] (optional)}``, one per system turn of the test dialogue.
        Ids may be written ``sng0073``, ``SNG0073`` or ``SNG0073.json``.
    references: the dialogue ids of a list of ``predictions`` (omit with a dict).
"""

FEATURES = datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")})

# What mwz_bleu really accepts through add/add_batch (flat responses): one reference
# string, or several, per response. Whole dialogues go straight to compute().
FLAT_FEATURES = [
    datasets.Features(
        {"predictions": datasets.Value("string"), "references": datasets.Sequence(datasets.Value("string"))}
    ),
    datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
]


def is_flat(predictions: Any) -> bool:
    """Whether ``predictions`` is a flat list of response strings (evaluate's convention)."""
    return isinstance(predictions, (list, tuple)) and bool(predictions) and all(isinstance(p, str) for p in predictions)


def as_mapping(predictions: Any, references: Sequence[str] | None) -> Mapping[str, Any]:
    """Predictions as ``{dialogue id: turns}`` from a mapping, or from a list with ``references`` as ids."""
    if isinstance(predictions, Mapping):
        if references is not None:
            raise InputError("give references (dialogue ids) only with a list of predictions")
        return predictions
    if references is None:
        raise InputError("a list of predictions needs references: the dialogue id of each")
    if len(predictions) != len(references):
        raise InputError(f"{len(predictions)} predictions but {len(references)} references (dialogue ids)")
    return dict(zip(references, predictions))


@functools.lru_cache(maxsize=8)
def testset(chain: str = "mwzeval", styles: tuple[str, ...] | None = None, data_dir: str | None = None) -> TestSet:
    """One warm test set per configuration, shared by every module in the process."""
    return TestSet(chain=chain, styles=list(styles) if styles is not None else None, data_dir=data_dir)


def run(predictions: Any, references: Sequence[str] | None, **options: Any) -> dict[str, Any]:
    """Evaluate for a module script: one warm shared test set per configuration."""
    styles = options.pop("styles", None)
    chain = options.pop("chain", "mwzeval")
    data_dir = options.pop("data_dir", None)
    shared = testset(chain, tuple(styles) if styles is not None else None, data_dir)
    evaluator = Evaluator(chain=chain, styles=styles, data_dir=data_dir, testset=shared, **options)
    return evaluator.evaluate(as_mapping(predictions, references))


def config_compute(
    config: type, body: Callable[[Any, Any, dict[str, Any]], dict[str, Any]], *settings: tuple[str, Any]
) -> Callable[..., dict[str, Any]]:
    """A module script's ``_compute`` taking ``predictions``, ``references``, ``settings`` (name, default)
    and the fields of ``config`` as keywords: its signature is read from the config (another keyword is a
    ``TypeError``); ``body(predictions, references, options)`` computes, the options with their defaults."""
    signature = keyword_signature(config, ("predictions", inspect.Parameter.empty), ("references", None), *settings)

    def _compute(self: Any, **options: Any) -> dict[str, Any]:
        bound = signature.bind(self, **options)
        bound.apply_defaults()
        given = dict(bound.arguments)
        given.pop("self")
        return body(given.pop("predictions"), given.pop("references"), given)

    _compute.__signature__ = signature  # type: ignore[attr-defined]
    return _compute


def success_compute(shape: Callable[[dict[str, Any], bool], dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """The ``_compute`` of ``mwz_success`` and ``mwz_inform``: ``per_dialogue``, ``chain`` and the fields of
    :class:`~mwz_metrics.settings.SuccessConfig` (:func:`config_compute`); ``shape(result, per_dialogue)``:
    what the module returns."""

    def body(predictions: Any, references: Any, options: dict[str, Any]) -> dict[str, Any]:
        result = run(predictions, references, bleu=False, success=True, richness=False, **options)
        return shape(result, bool(options["per_dialogue"]))

    return config_compute(SuccessConfig, body, *_SETTINGS)


_SETTINGS = (("per_dialogue", False), ("chain", "mwzeval"))  # what mwz_success/mwz_inform take besides the config


def info(description: str, inputs: str, reference_urls: list[str] | None = None, features: Any = None):
    """The ``evaluate.MetricInfo`` of an mwz module (``features`` default: dialogue ids)."""
    return evaluate.MetricInfo(
        description=description,
        citation=CITATION,
        inputs_description=inputs,
        features=features if features is not None else FEATURES,
        homepage="https://github.com/Tomiinek/MultiWOZ_Evaluation",
        reference_urls=reference_urls or ["https://aclanthology.org/2021.gem-1.4/"],
    )


def direct_compute(self, *, predictions=None, references=None, **kwargs):
    """Compute at once from whole dialogues (see the module's ``inputs_description``)."""
    if predictions is None:
        raise InputError(
            f"{self.name}: pass the dialogues as compute(predictions=...); add/add_batch are not supported"
        )
    return self._compute(predictions=predictions, references=references, **kwargs)


def unsupported_add(self, *args, **kwargs):
    """Not supported: these modules score whole dialogues in one ``compute`` call."""
    raise NotImplementedError(f"{self.name} scores whole dialogues: call compute(predictions=...) once")

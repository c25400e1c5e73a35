"""The metric protocol: what ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` ask of a metric.

Every metric registers one :class:`~mwz_plugins.registry.MetricEntry` under its one name
(``mwz_success``) through the hook ``mwz_register_metrics``: mwzeval's BLEU, Inform/Success, richness
and DST, session coherence and sentence fluency do, like any contributor's. A metric of dialogues
names a loader ``make(**options)`` returning an object with a ``name`` and ``score(inputs) ->
MetricResult``. The three commands take every metric from the registry by name (``--metric NAME`` or
``--metric NAME:KEY=VALUE,...``; ``-b``, ``-s``, ``-r``, ``--dst``, ``--coherence`` and ``--fluency``
are spellings of six of them; a metric's old name, ``success``, works until the next release and
says so) and name none themselves; a metric's figures go under its entry's ``key`` (the built-ins'
short names, ``success``):

- what it **needs**: :class:`MetricInputs`, a static system's predictions (mwzeval's format, keyed
  by test dialogue) or an interactive run's sessions (session-file records), the data folder and
  the command's evaluation settings; its entry says which of the two it scores, whether it needs
  the test set's references and which optional extra it needs;
- what it **gives**: :class:`MetricResult`, figures only: the aggregate with its own 95% interval,
  what each dialogue contributes (a :class:`~mwz_metrics.bootstrap.DialogueScores`: ``mwz compare``
  resamples it for its intervals and pairs it against a baseline), per-domain and per-dialogue
  values, and its signature fields (what the result's signature line names, and its own details);
  a metric of several figures gives each as a result of its own;
- how it is **shown**: its :class:`Presentation` (label, decimals, its own lines of a table), with
  its direction and version, which are its registry entry's (:func:`presentations`).

Three types lie between a request and a printed figure: :class:`MetricRequest`, :class:`MetricResult`
and :class:`Presentation`. :func:`load_all` makes the metrics of the requests (by key),
:func:`score` gives their results on a system's inputs (by key), :func:`assemble` writes them as
``mwz evaluate``'s JSON and each presentation prints its figure.

Metrics that share work declare the same ``group`` in their entries: :func:`load_all` joins the
members asked for into one metric (the first one's ``join``), scored once per system: mwzeval's four
become one metric that reads and normalizes the responses once and gives each member's figures, one
signature for them all (each member's result holds it in ``shared``), and the responses it rewrote,
which the metrics scored after it read. Inputs are never written. A metric that may be scored in a
forked worker process (no threads of its own, as a torch model has) says ``forks = True``; ``mwz
compare`` then scores the systems in parallel.

The types a metric is given and gives live in :mod:`mwz_metrics.metric_types` (a metric's module
imports them and nothing of this one, which calls it) and are importable from here too.

Modelled on sacrebleu's metric base class (one score, per-item statistics, a signature) and on
lm-evaluation-harness's registry (a metric named with its direction, loaded lazily).
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from mwz_metrics.inputs import InputError

# The protocol's types, here too: commands and contributors import them from this module.
from mwz_metrics.metric_types import Metric as Metric
from mwz_metrics.metric_types import MetricInputs as MetricInputs
from mwz_metrics.metric_types import MetricResult as MetricResult
from mwz_metrics.metric_types import Presentation as Presentation
from mwz_metrics.settings import EvaluationSettings as EvaluationSettings


@dataclasses.dataclass(frozen=True)
class MetricRequest:
    """A metric asked for by name (its name or, until the next release, an old name), with its options
    (``mwz_fluency:model=gpt2``). An old name says so in a :class:`DeprecationWarning` once: when
    :meth:`parse` reads it, else when the request is loaded (``said``: whether it has been said)."""

    name: str
    options: tuple[tuple[str, str], ...] = ()
    said: bool = dataclasses.field(default=False, compare=False, repr=False)

    @classmethod
    def parse(cls, text: str, *, warn: bool = True) -> MetricRequest:
        """``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE``; :class:`InputError` when malformed. An old name of a
        metric is taken with a :class:`DeprecationWarning` (``warn=False``: the caller says it its way)."""
        from mwz_metrics.settings import option_name, parse_pair

        name, _, rest = text.partition(":")
        options = []
        for item in filter(None, rest.split(",")):
            key, value = parse_pair(item, "--metric", "NAME or NAME:KEY=VALUE,...", empty_value=True, within=text)
            options.append((option_name(key), value.strip()))
        if not name.strip():
            raise InputError(f"--metric {text!r}: no metric name")
        if warn:
            _say_old(name.strip(), stacklevel=3)
        return cls(name.strip(), tuple(options), said=True)  # said here, or by the caller its way


def old_name(name: str) -> str | None:
    """The name of the metric that ``name`` is an old name of (``success`` -> ``mwz_success``); ``None``
    for a metric's own name or no metric's."""
    from mwz_plugins import get_registry

    registry = get_registry()
    return None if name in registry.metrics else registry.metric_aliases.get(name)


def _say_old(name: str, stacklevel: int) -> None:
    """A :class:`DeprecationWarning` where ``name`` is an old name of a metric."""
    new = old_name(name)
    if new is not None:
        from mwz_plugins.registry import RENAMED_METRIC

        warnings.warn(RENAMED_METRIC % (name, new), DeprecationWarning, stacklevel=stacklevel + 1)


def key(name: str) -> str:
    """The key the figures of the metric called ``name`` (by any name) go under: ``key("mwz_success")`` and
    ``key("success")`` are ``"success"``; a name no metric has, as it is."""
    from mwz_plugins import get_registry

    registry = get_registry()
    found = registry.metric_name(name)
    return name if found is None else str(registry.metrics[found].key)


def entry(name: str) -> Any:
    """The registered entry of a metric of dialogues, by its name or (with a :class:`DeprecationWarning`,
    until the next release) an old one; :class:`InputError` naming the registered ones otherwise."""
    _say_old(name, stacklevel=2)
    return _entry(name)


def _entry(name: str) -> Any:
    """:func:`entry`, an old name said by the caller."""
    from mwz_plugins import get_registry

    registry = get_registry()
    found = registry.metric_name(name)
    scorable = registry.dialogue_metrics
    if found is None or found not in scorable:
        known = ", ".join(sorted(scorable)) or "none"
        what = "no such metric is registered"
        if found is not None:
            what = f"{found} is an evaluate module script only (evaluate.load({found!r})), not a metric of dialogues"
        raise InputError(f"--metric {name}: {what} (registered: {known}){registry.failure_note()}")
    return scorable[found]


def load(request: MetricRequest) -> tuple[Metric, Any]:
    """The metric a request names, made with its options, and its registry entry (an old name not yet
    said, said: a request built directly, ``MetricRequest("success")``)."""
    from mwz_metrics.extras import require_extra

    if not request.said:
        _say_old(request.name, stacklevel=3)
    found = _entry(request.name)
    if found.extra:
        require_extra(found.extra, *found.modules)
    module_name, _, attribute = found.loader.partition(":")
    try:
        make = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise InputError(f"--metric {request.name}: cannot load {found.loader} ({error})") from None
    try:
        metric = make(**dict(request.options))
    except (TypeError, InputError) as error:  # options it does not take (see mwz_metrics.settings.typed)
        raise InputError(f"--metric {request.name}: {error}") from None
    return metric, found


def load_all(requests: Sequence[MetricRequest]) -> dict[str, Metric]:
    """Every requested metric, made once (a metric asked twice, once), by the key its figures go under
    (``success``), in the registry's order (the built-ins first, as registered), whatever order they
    were asked in; the members of a registered ``group`` are joined into one metric (the first member's
    ``join``), which each of their keys names."""
    from mwz_plugins import get_registry

    registry = get_registry()
    made: dict[str, tuple[Metric, Any]] = {}
    for request in requests:  # by the metric's name, whichever name asked for it
        if (registry.metric_name(request.name) or request.name) not in made:
            metric, found = load(request)
            made[found.name] = metric, found
    order = list(registry.metrics)
    names = sorted(made, key=order.index)
    members: dict[str, list[Metric]] = {}
    for name in names:
        metric, found = made[name]
        if found.group:
            members.setdefault(found.group, []).append(metric)
    joined = {group: _join(group, metrics) for group, metrics in members.items()}
    loaded = {}
    for name in names:
        metric, found = made[name]
        loaded[str(found.key)] = joined[found.group] if found.group else metric
    return loaded


def _join(group: str, metrics: Sequence[Metric]) -> Metric:
    """The one metric the members of ``group`` join into."""
    join = getattr(metrics[0], "join", None)
    if join is None:
        raise TypeError(f"metric {metrics[0].name} declares the group {group!r} but has no join(metrics): a bug")
    return join(list(metrics))


def with_defaults(requests: Sequence[MetricRequest]) -> list[MetricRequest]:
    """``requests`` after the registry's default metrics when they ask for none of the defaults' group
    (``mwz evaluate -i x.json --coherence`` also scores mwzeval's three, ``--dst`` alone only DST)."""
    from mwz_plugins import get_registry

    registry = get_registry()
    entries = registry.dialogue_metrics
    defaults = [e for e in entries.values() if e.default]
    groups = {e.group or e.name for e in defaults}
    names = [registry.metric_name(r.name) or r.name for r in requests]
    asked = {(entries[name].group or name) if name in entries else name for name in names}
    if asked & groups:
        return list(requests)
    return [MetricRequest(e.name) for e in defaults] + list(requests)


def presentations(loaded: Mapping[str, Metric]) -> dict[str, Presentation]:
    """How tables show each loaded metric, by key: its own :class:`Presentation` (a joined metric's
    member's), with its direction and version from its registry entry."""
    out, entries = {}, _entries()
    for key, metric in loaded.items():
        found = entries[key]
        own = next((m for m in getattr(metric, "members", ()) if m.name == key), metric)
        shown = getattr(own, "presentation", None) or Presentation()
        out[key] = dataclasses.replace(shown, higher_is_better=bool(found.higher_is_better), version=str(found.version))
    return out


def _entries() -> dict[str, Any]:
    """The registered metrics of dialogues, by the key their figures go under."""
    from mwz_plugins import get_registry

    return {str(found.key): found for found in get_registry().dialogue_metrics.values()}


def score(
    loaded: Mapping[str, Metric], inputs: MetricInputs, earlier: Mapping[str, MetricResult] | None = None
) -> dict[str, MetricResult]:
    """Each loaded metric's result on ``inputs``, by key, in order (:class:`InputError` for a metric that
    does not score them). The members of a group are scored once, through the metric they joined into,
    each result holding what that pass shares (``shared``, ``responses``); a metric outside a group sees
    ``predictions`` as a mapping (read from ``source`` where they come from a file), with the responses a
    group rewrote (here or in ``earlier``, results of other metrics on the same system: a comparison
    scores mwzeval's in other processes) in their place."""
    entries = _entries()
    for key in loaded:
        found = entries[key]
        if inputs.kind not in found.inputs:
            raise InputError(f"--metric {found.name}: it scores {' and '.join(found.inputs)}, not {inputs.kind}")
        if found.needs_references and not inputs.has_references:
            raise InputError(
                f"--metric {found.name}: it needs the test set's references, which only predictions and "
                "sessions of the replay simulator have"
            )
    passes: dict[int, MetricResult] = {}  # one pass per joined metric
    out: dict[str, MetricResult] = {}
    for key, metric in loaded.items():  # the joined first: the others may read what they rewrote
        if entries[key].group:
            if id(metric) not in passes:
                passes[id(metric)] = metric.score(inputs)
            joint = passes[id(metric)]
            result = next(r for r in joint.figures if r.name == key)
            out[key] = dataclasses.replace(result, shared=joint.section(), responses=joint.responses)
    responses = next((r.responses for r in [*(earlier or {}).values(), *out.values()] if r.responses is not None), None)
    read: list[MetricInputs] = []  # a file is read once, and only for a metric scored on its own
    for key, metric in loaded.items():
        if not entries[key].group:
            if not read:
                read.append(_as_read(inputs, responses))
            out[key] = metric.score(read[0])
            if out[key].shared:  # it would be written as a group's keys beside every section
                raise TypeError(f"metric {key} set MetricResult.shared, which only score() sets (a group's): a bug")
    return {key: out[key] for key in loaded}


def _as_read(inputs: MetricInputs, responses: Mapping[str, Sequence[str]] | None) -> MetricInputs:
    """``inputs`` as a metric scored on its own reads them: predictions as a mapping, and the responses
    a group delexicalized in place of the written ones."""
    predictions = inputs.predictions
    if predictions is None and inputs.source is not None:
        from mwz_metrics.inputs import read_json

        predictions = read_json(inputs.source, "predictions")
    sessions = inputs.sessions
    if responses is not None and predictions is not None:
        predictions = {key: _turns_with(turns, responses.get(_key(key))) for key, turns in predictions.items()}
    if responses is not None and sessions is not None:
        sessions = [_session_with(session, responses.get(_key(str(session["id"])))) for session in sessions]
    return dataclasses.replace(inputs, predictions=predictions, sessions=sessions)


def _key(dialogue_id: str) -> str:
    from mwz_metrics.inputs import dialogue_key

    return dialogue_key(dialogue_id)


def _turns_with(turns: Sequence[Mapping[str, Any]], responses: Sequence[str] | None) -> list[Any]:
    """Predicted turns saying ``responses`` (a dialogue the delexicalizer did not see: as they were)."""
    if responses is None or len(responses) != len(turns):
        return list(turns)
    return [{**turn, "response": text} for turn, text in zip(turns, responses)]


def _session_with(session: Mapping[str, Any], responses: Sequence[str] | None) -> Mapping[str, Any]:
    """A session whose system turns say ``responses`` (in order), the rest as it was."""
    if not responses:
        return session
    texts = iter(responses)
    turns = [
        {**turn, "text": next(texts, turn.get("text", ""))} if turn.get("speaker") == "system" else turn
        for turn in session.get("turns", ())
    ]
    return {**session, "turns": turns}


def section_lines(result: MetricResult, shown: Presentation) -> list[str]:
    """``result``'s section of ``mwz evaluate``'s table: its presentation's own lines (a metric's
    function: called from here, above the metric), else ``label value [low, high]`` and which way is
    better."""
    if shown.lines is not None:
        return list(shown.lines(result))
    digits = shown.digits + 1
    value = "n/a" if result.value is None else f"{result.value:.{digits}f}"
    if result.ci95:
        value += f" [{result.ci95[0]:.{digits}f}, {result.ci95[1]:.{digits}f}]"
    better = "" if shown.higher_is_better else " (lower is better)"
    label = shown.label or result.name
    return [f"====== {result.name.upper()} ======", f"{label:15}{value}{better}", ""]


def assemble(results: Mapping[str, MetricResult], shown: Mapping[str, Presentation]) -> dict[str, Any]:
    """``mwz evaluate``'s JSON of a system: what each group shares (mwzeval's keys, coverage, warnings,
    signature), then each metric's section under its key; every metric outside a group signs the
    signature (:func:`signed`; ``shown``: the metrics' presentations, which hold their versions)."""
    out: dict[str, Any] = {}
    for result in results.values():
        for key, value in result.shared.items():
            out.setdefault(key, value)
    for key, result in results.items():
        out[key] = result.section()
    if "signature" not in out:
        from mwz_metrics.signature import Signature

        out["signature"] = Signature.build("dialogues").as_dict()
    for key, result in results.items():
        if "signature" not in result.shared:
            out["signature"] = signed(out["signature"], result, shown[key])
    return out


def add_to_summary(
    summary: dict[str, Any], results: Mapping[str, MetricResult], shown: Mapping[str, Presentation]
) -> None:
    """Each metric into a summary (``mwz interact``'s result): its value under its key, its interval in
    ``ci95``, its per-domain values and own signature line beside, its model in the signature, how
    tables show it (``shown``) under ``metrics``."""
    for key, result in results.items():
        summary[key] = result.value
        summary.setdefault("ci95", {})[key] = result.ci95
        by_domain = result.section().get("per_domain")
        if by_domain:
            summary[f"{key}_by_domain"] = by_domain
        if result.signature.get("line"):
            summary[f"{key}_signature"] = result.signature["line"]
        summary["signature"] = signed(summary["signature"], result, shown[key])
        summary.setdefault("metrics", {})[key] = shown[key].describe(result)


def signed(signature: dict[str, Any], result: MetricResult, shown: Presentation) -> dict[str, Any]:
    """A result's signature with a metric added: what it names in the line (its model, else
    ``name@version``), ``NAME=true`` among the options, its own details under its name."""
    from mwz_metrics.signature import with_model

    return with_model(signature, result.model or f"{result.name}@{shown.version}", result.name, dict(result.signature))

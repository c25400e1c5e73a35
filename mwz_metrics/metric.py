"""The metric protocol: what ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` ask of a metric.

Every metric of dialogues registers a :class:`~mwz_plugins.registry.DialogueMetricEntry` through the
hook ``mwz_register_dialogue_metrics``: mwzeval's BLEU, Inform/Success, richness and DST, session
coherence and sentence fluency do, like any contributor's. Its loader ``make(**options)`` returns
an object with a ``name`` and ``score(inputs) -> MetricResult``. The three commands take every
metric from the registry by name (``--metric NAME`` or ``--metric NAME:KEY=VALUE,...``; ``-b``,
``-s``, ``-r``, ``--dst``, ``--coherence`` and ``--fluency`` are spellings of six of them) and
name none themselves:

- what it **needs**: :class:`MetricInputs`, a static system's predictions (mwzeval's format, keyed
  by test dialogue) or an interactive run's sessions (session-file records), the data folder and
  the command's evaluation settings; its entry says which of the two it scores, whether it needs
  the test set's references and which optional extra it needs;
- what it **gives**: :class:`MetricResult`, the aggregate with its own 95% interval, what each
  dialogue contributes (a :class:`~mwz_metrics.bootstrap.DialogueScores`: ``mwz compare`` resamples
  it for its intervals and pairs it against a baseline), per-domain and per-dialogue values, and
  its signature fields (what the result's signature line names, and its own details); a metric of
  several figures gives each as a result of its own.

Metrics that share work form a group (an entry's ``group``) and offer ``score_together``: mwzeval's
four read and normalize the responses once and share one signature, as mwzeval computes them. A
metric that may be scored in a forked worker process (no threads of its own, as a torch model has)
says ``forks = True``; ``mwz compare`` then scores the systems in parallel.

Modelled on sacrebleu's metric base class (one score, per-item statistics, a signature) and on
lm-evaluation-harness's registry (a metric named with its direction, loaded lazily).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from mwz_metrics.bootstrap import DialogueScores
from mwz_metrics.inputs import InputError


@dataclasses.dataclass(frozen=True)
class MetricInputs:
    """What a metric is given: a static system's predictions or an interactive run's sessions.

    ``source``: the predictions file, when they come from one (read on first use, so that errors
    name it); ``settings``: the command's evaluation options a metric may read (``chain``,
    ``styles``, ``gold_states``, the Inform/Success variant, ``per_dialogue``, ``dialogue_scores``
    when a comparison resamples every figure); for sessions, ``predictions`` holds their system
    turns in mwzeval's format, ``truth`` builds their goals and bookings from the test set a metric
    reads, and ``aligned`` says whether they replay the test dialogues. ``memo``: what is learnt of
    the inputs once for every metric (``predictions`` read from ``source``; ``responses``: each
    dialogue's responses with their values replaced by placeholders, see :func:`remember`).
    """

    predictions: Mapping[str, Sequence[Mapping[str, Any]]] | None = None
    sessions: Sequence[Mapping[str, Any]] | None = None
    data_dir: str | None = None
    resamples: int = 1000
    seed: int = 0
    label: str = ""  # the system's name, for progress messages
    source: str | None = None
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    truth: Any = None
    aligned: bool = False
    memo: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @property
    def kind(self) -> str:
        """``"sessions"`` or ``"predictions"``."""
        return "sessions" if self.sessions is not None else "predictions"

    @property
    def has_references(self) -> bool:
        """Whether the test set's references belong to these dialogues (predictions, replayed sessions)."""
        return self.sessions is None or self.aligned

    def mapping(self) -> Mapping[str, Sequence[Mapping[str, Any]]]:
        """The predictions as a mapping, read from ``source`` once (an :class:`InputError` names the file)."""
        if self.predictions is not None:
            return self.predictions
        if "predictions" not in self.memo:
            from mwz_metrics.inputs import read_json

            if self.source is None:
                raise InputError("no predictions to score")
            self.memo["predictions"] = read_json(self.source, "predictions")
        return self.memo["predictions"]


@dataclasses.dataclass
class MetricResult:
    """One metric's figures for one system (see the module docstring).

    A metric with several figures (Inform and Success, BLEU per style, richness's seven) gives each
    as a result of its own in ``figures``; tables and the bootstrap read those in its place.
    ``shared``: what a group of metrics computed together writes once beside their sections
    (mwzeval's: every section's key, ``coverage``, ``warnings`` and the ``signature`` they share).
    ``columns``: its per-dialogue columns, where they are not one ``per_dialogue`` under its name.
    """

    name: str
    value: float | None
    scores: DialogueScores | None = None  # what each dialogue contributes
    ci95: list[float] | None = None  # the metric's own interval around ``value``
    per_domain: dict[str, float] = dataclasses.field(default_factory=dict)
    per_dialogue: dict[str, float] = dataclasses.field(default_factory=dict)
    higher_is_better: bool = True  # set from its registry entry
    version: str = ""  # likewise
    label: str = ""  # its name in a table (default: the metric's name)
    digits: int = 2  # decimals a summary shows (its own section in ``mwz evaluate``: one more)
    model: str = ""  # what the result's signature line names (a model, a version)
    signature: dict[str, Any] = dataclasses.field(default_factory=dict)  # its own signature details
    report: Any = None  # the JSON section ``mwz evaluate`` writes (default: value, ci95, per_domain)
    figures: list[MetricResult] = dataclasses.field(default_factory=list)
    shared: dict[str, Any] = dataclasses.field(default_factory=dict)
    columns: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    lines: list[str] = dataclasses.field(default_factory=list)  # its own section of the table, if it writes one
    # the responses it read, where it rewrote them (delexicalized): the other metrics of these inputs read them too
    responses: dict[str, list[str]] | None = None

    def section(self) -> Any:
        """The JSON a result holds under the metric's name."""
        if self.report is not None:
            return self.report
        return {"value": self.value, "ci95": self.ci95, "per_domain": self.per_domain}

    def section_lines(self) -> list[str]:
        """Its section of ``mwz evaluate``'s table: ``lines``, else ``label value [low, high]`` and which
        way is better."""
        if self.lines:
            return list(self.lines)
        digits = self.digits + 1
        shown = "n/a" if self.value is None else f"{self.value:.{digits}f}"
        if self.ci95:
            shown += f" [{self.ci95[0]:.{digits}f}, {self.ci95[1]:.{digits}f}]"
        better = "" if self.higher_is_better else " (lower is better)"
        return [f"====== {self.name.upper()} ======", f"{self.label or self.name:15}{shown}{better}", ""]

    def summary_label(self) -> str:
        """Its row label in a summary (``mwz interact``): its name, and "(lower)" where lower is better."""
        return self.name + ("" if self.higher_is_better else " (lower)")

    def each_figure(self) -> list[MetricResult]:
        """Its figures, or itself when it has one."""
        return self.figures or [self]

    def domain_values(self) -> dict[str, Any]:
        """Its value per domain and ``total``, in the order tables show them (its own where it has a total)."""
        if "total" in self.per_domain:
            return dict(self.per_domain)
        return {"total": self.value, **self.per_domain}

    def dialogue_columns(self) -> dict[str, dict[str, Any]]:
        """Per-dialogue columns of a comparison's CSV: ``columns``, else its per-dialogue values under its name."""
        if self.columns:
            return self.columns
        return {self.name: self.per_dialogue} if self.per_dialogue else {}


@runtime_checkable
class Metric(Protocol):
    """Anything with a ``name`` that scores a system's dialogues."""

    name: str

    def score(self, inputs: MetricInputs) -> MetricResult:
        """The metric's figures for one system."""
        ...


@dataclasses.dataclass(frozen=True)
class MetricRequest:
    """A metric asked for by name, with its options (``fluency:model=gpt2``)."""

    name: str
    options: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> MetricRequest:
        """``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE``; :class:`InputError` when malformed."""
        name, _, rest = text.partition(":")
        options = []
        for item in filter(None, rest.split(",")):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise InputError(f"--metric {text!r}: expected NAME or NAME:KEY=VALUE,...")
            options.append((key.strip().replace("-", "_"), value.strip()))
        if not name.strip():
            raise InputError(f"--metric {text!r}: no metric name")
        return cls(name.strip(), tuple(options))


def entry(name: str) -> Any:
    """The registered entry of a metric (:class:`InputError` naming the registered ones otherwise)."""
    from mwz_plugins import get_registry

    registry = get_registry()
    if name not in registry.dialogue_metrics:
        known = ", ".join(sorted(registry.dialogue_metrics)) or "none"
        raise InputError(f"--metric {name}: no such metric is registered (registered: {known})")
    return registry.dialogue_metrics[name]


def load(request: MetricRequest) -> tuple[Metric, Any]:
    """The metric a request names, made with its options, and its registry entry."""
    from mwz_metrics.extras import require_extra

    found = entry(request.name)
    if found.extra:
        require_extra(found.extra, *found.modules)
    module_name, _, attribute = found.loader.partition(":")
    try:
        make = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise InputError(f"--metric {request.name}: cannot load {found.loader} ({error})") from None
    try:
        metric = make(**dict(request.options))
    except TypeError as error:
        raise InputError(f"--metric {request.name}: {error}") from None
    return metric, found


def load_all(requests: Sequence[MetricRequest]) -> list[tuple[Metric, Any]]:
    """Every requested metric, made once (a metric asked twice, once), with its entry, in the
    registry's order (the built-ins first, as registered), whatever order they were asked in."""
    from mwz_plugins import get_registry

    loaded: dict[str, tuple[Metric, Any]] = {}
    for request in requests:
        if request.name not in loaded:
            loaded[request.name] = load(request)
    order = list(get_registry().dialogue_metrics)
    return [loaded[name] for name in sorted(loaded, key=order.index)]


def with_defaults(requests: Sequence[MetricRequest]) -> list[MetricRequest]:
    """``requests`` after the registry's default metrics when they ask for none of the defaults' group
    (``mwz evaluate -i x.json --coherence`` also scores mwzeval's three, ``--dst`` alone only DST)."""
    from mwz_plugins import get_registry

    entries = get_registry().dialogue_metrics
    defaults = [e for e in entries.values() if e.default]
    groups = {e.group or e.name for e in defaults}
    asked = {(entries[r.name].group or r.name) if r.name in entries else r.name for r in requests}
    if asked & groups:
        return list(requests)
    return [MetricRequest(e.name) for e in defaults] + list(requests)


def score(loaded: Sequence[tuple[Metric, Any]], inputs: MetricInputs) -> dict[str, MetricResult]:
    """Each loaded metric's result on ``inputs``, in order (:class:`InputError` for a metric that does
    not score them). Metrics that offer ``score_together(metrics, inputs)`` (the same function for
    the whole group) are scored in one call, so that they share their work; a metric scored on its
    own always sees ``predictions`` as a mapping (read from ``source`` where they come from a file)."""
    for _metric, found in loaded:
        if inputs.kind not in found.inputs:
            raise InputError(f"--metric {found.name}: it scores {' and '.join(found.inputs)}, not {inputs.kind}")
        if found.needs_references and not inputs.has_references:
            raise InputError(
                f"--metric {found.name}: it needs the test set's references, which only predictions and "
                "sessions of the replay simulator have"
            )
    results: dict[str, MetricResult] = {}
    groups: dict[Any, list[Metric]] = {}
    for metric, _found in loaded:
        together = getattr(metric, "score_together", None)
        if together is not None:
            groups.setdefault(together, []).append(metric)
    for together, members in groups.items():
        results.update(together(members, inputs))
    remember(inputs, results.values())
    read: list[MetricInputs] = []  # a file is read once, and only for a metric scored on its own
    out: dict[str, MetricResult] = {}
    for metric, found in loaded:
        if metric.name in results:
            result = results[metric.name]
        else:
            if not read:
                read.append(_as_read(inputs))
            result = metric.score(read[0])
        result.higher_is_better, result.version = found.higher_is_better, found.version
        out[found.name] = result
    return out


def remember(inputs: MetricInputs, results: Iterable[MetricResult]) -> None:
    """Keep in ``inputs`` the responses a result rewrote, for the metrics scored on them afterwards
    (a comparison scores mwzeval's metrics in other processes, the others here)."""
    for result in results:
        if result.responses is not None:
            inputs.memo["responses"] = result.responses


def _as_read(inputs: MetricInputs) -> MetricInputs:
    """``inputs`` as a metric scored on its own reads them: predictions as a mapping, and the responses
    another metric delexicalized (``memo["responses"]``) in place of the written ones."""
    predictions = inputs.mapping() if inputs.predictions is not None or inputs.source is not None else None
    sessions = inputs.sessions
    responses = inputs.memo.get("responses")
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


def assemble(results: Mapping[str, MetricResult]) -> dict[str, Any]:
    """``mwz evaluate``'s JSON of a system: what each group shares (mwzeval's keys, coverage, warnings,
    signature), then each metric's section under its name; every metric outside a group signs the
    signature (:func:`signed`)."""
    out: dict[str, Any] = {}
    for result in results.values():
        for key, value in result.shared.items():
            out.setdefault(key, value)
    for name, result in results.items():
        out[name] = result.section()
    if "signature" not in out:
        from mwz_metrics.signature import Signature

        out["signature"] = Signature.build("dialogues").as_dict()
    for result in results.values():
        if "signature" not in result.shared:
            out["signature"] = signed(out["signature"], result)
    return out


def add_to_summary(summary: dict[str, Any], results: Mapping[str, MetricResult]) -> None:
    """Each metric into a summary (``mwz interact``'s result): its value under its name, its interval in
    ``ci95``, its per-domain values and own signature line beside, its model in the signature."""
    for name, result in results.items():
        summary[name] = result.value
        summary.setdefault("ci95", {})[name] = result.ci95
        by_domain = result.section().get("per_domain")
        if by_domain:
            summary[f"{name}_by_domain"] = by_domain
        if result.signature.get("line"):
            summary[f"{name}_signature"] = result.signature["line"]
        summary["signature"] = signed(summary["signature"], result)
        summary.setdefault("metrics", {})[name] = describe(result)


def describe(result: MetricResult) -> dict[str, Any]:
    """How tables show a metric: its label, direction and decimals."""
    return {
        "label": result.label or result.name,
        "higher_is_better": result.higher_is_better,
        "digits": result.digits,
        "version": result.version,
    }


def signed(signature: dict[str, Any], result: MetricResult) -> dict[str, Any]:
    """A result's signature with a metric added: what it names in the line (its model, else
    ``name@version``), ``NAME=true`` among the options, its own details under its name."""
    from mwz_metrics.signature import with_model

    return with_model(signature, result.model or f"{result.name}@{result.version}", result.name, result.signature)

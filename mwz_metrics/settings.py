"""Settings as typed records, and the one ``KEY=VALUE`` parser.

Every ``KEY=VALUE`` a user writes (``--metric NAME:KEY=VALUE``, ``--system-option``,
``--simulator-option``, ``--reference-file NAME=PATH``, ``mwz compare -i NAME=PATH``, ``mwz hub export
--config DATASET=CONFIG``, the research scripts' ``--corpus``/``--mix``) is split by
:func:`parse_pair`, so a malformed one gets the same one-line :class:`InputError` everywhere.

Options become a dataclass of their own (as ``datasets``' ``BuilderConfig``): :func:`typed` reads the
strings into the fields' types and refuses an unknown key or a bad value in one line. A metric's
options are declared once, as the fields of its config (:class:`SuccessConfig`, :class:`BleuConfig`),
each with its help, choices and mwzeval's default (:func:`option`); the command-line flags
(:func:`add_arguments`), ``--metric NAME:KEY=VALUE``, the library call, the ``evaluate`` module
scripts' ``_compute`` and the signature's ``opt:`` field are read from those fields.
:class:`EvaluationSettings` is what ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` tell every
metric about the evaluation: the metric configs' fields and the commands' own.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from mwz_plugins.errors import InputError

if TYPE_CHECKING:
    import argparse

T = TypeVar("T")


def parse_pair(
    text: str, flag: str, expected: str = "KEY=VALUE", *, empty_value: bool = False, within: str | None = None
) -> tuple[str, str]:
    """``KEY=VALUE`` -> ``(KEY, VALUE)``; an :class:`InputError` naming ``flag``, the argument (``within``:
    the whole argument the pair is part of) and ``expected`` when there is no ``=``, no key, or (unless
    ``empty_value``) no value."""
    key, sep, value = text.partition("=")
    if not sep or not key or (not value and not empty_value):
        raise InputError(f"{flag} {within if within is not None else text!r}: expected {expected}")
    return key, value


def parse_pairs(
    items: Iterable[str], flag: str, expected: str = "KEY=VALUE", *, empty_value: bool = False
) -> dict[str, str]:
    """Repeated ``KEY=VALUE`` arguments as a mapping (a later key wins)."""
    return dict(parse_pair(item, flag, expected, empty_value=empty_value) for item in items)


def option_name(key: str) -> str:
    """An option's name as a keyword argument (``name-constraints`` -> ``name_constraints``)."""
    return key.strip().replace("-", "_")


def typed(cls: type[T], options: Mapping[str, Any], who: str) -> T:
    """The dataclass ``cls`` from string options: ``true``/``false`` for a bool, a number for an int or
    float, ``a+b`` for a tuple of strings; an :class:`InputError` (``WHO takes ..., got ...``) for an
    unknown key or a value of the wrong kind. Values that are already typed pass as they are."""
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    hints = typing.get_type_hints(cls)
    unknown = sorted(set(options) - set(fields))
    if unknown:
        takes = ", ".join(fields) or "no options"
        raise InputError(f"{who} takes {takes}, got {', '.join(unknown)}")
    values = {key: _read(hints[key], key, value, who) for key, value in options.items()}
    return cls(**values)


def _read(hint: Any, key: str, value: Any, who: str) -> Any:
    if not isinstance(value, str):
        return value
    kinds = set(typing.get_args(hint)) - {type(None)} or {hint}
    if bool in kinds:
        if value.lower() not in ("true", "false"):
            raise InputError(f"{who}: {key} is true or false, got {value!r}")
        return value.lower() == "true"
    for number in (int, float):
        if number in kinds:
            try:
                return number(value)
            except ValueError:
                raise InputError(f"{who}: {key} is a number, got {value!r}") from None
    if any(typing.get_origin(kind) is tuple for kind in kinds):
        return tuple(part for part in value.split("+") if part)
    return value


VARIANT = "Inform/Success variant (default: mwzeval's)"  # the flags' section of a Success variant choice


def option(
    help: str,
    *,
    doc: str = "",
    choices: tuple[str, ...] = (),
    default: str = "",
    optimistic: str = "",
    section: str = "",
) -> Any:
    """A config field's declaration (its value ``None`` until given): ``help`` for its flag, ``doc`` for the
    ``evaluate`` module scripts' description of their keywords, the ``choices`` it takes, mwzeval's
    ``default`` and the paper's ``optimistic`` choice (a Success variant choice), the ``section`` of
    ``--help`` its flag is listed in (default: the command's options)."""
    about = {"help": help, "doc": doc, "choices": choices, "default": default, "optimistic": optimistic}
    return dataclasses.field(default=None, metadata={**about, "section": section})


@dataclasses.dataclass(frozen=True)
class SuccessConfig:
    """Inform/Success's options, each declared here once (``--metric success:KEY=VALUE``, the flags of
    ``mwz evaluate``/``mwz compare``, ``Evaluator(...)``, ``evaluate.load("mwz_success").compute(...)``);
    ``None``: not given (mwzeval's choice, or the optimistic one under ``optimistic``).

    ``matching``: offered venues must all meet the goal (``subset``) or at least one must
    (``intersection``). ``name_constraints``: the offered venues are those matching the whole predicted
    state of the domain (``all``) or, when it names a venue or train, only that name (``name_only``).
    ``active_domains``: the turn's domains are the predicted/estimated ones (``predicted``) or the
    dataset's, as DAMD derives them from the dialogue acts (``gold``). ``optimistic``: the paper's
    optimistic setting (section 5.1), all three; a choice given beside it overrides it.
    """

    gold_states: bool | None = option(
        "Inform/Success with MultiWOZ 2.2 gold states", doc="use MultiWOZ 2.2 gold states instead of predicted ones."
    )
    matching: str | None = option(
        "offered venues vs goal venues",
        doc="``subset`` (mwzeval) or ``intersection`` of offered and goal venues.",
        choices=("subset", "intersection"),
        default="subset",
        optimistic="intersection",
        section=VARIANT,
    )
    name_constraints: str | None = option(
        "name_only: a named venue/train is looked up by name",
        doc="``all`` (mwzeval) or ``name_only`` (a named venue is looked up by name).",
        choices=("all", "name_only"),
        default="all",
        optimistic="name_only",
        section=VARIANT,
    )
    active_domains: str | None = option(
        "gold: the dataset's, from its dialogue acts (DAMD)",
        doc="``predicted`` (mwzeval) or ``gold`` (the dataset's, from its acts as DAMD).",
        choices=("predicted", "gold"),
        default="predicted",
        optimistic="gold",
        section=VARIANT,
    )
    optimistic: bool | None = option(
        "the paper's optimistic setting: intersection, name_only, gold",
        doc="the paper's optimistic setting (all three non-default choices).",
        section=VARIANT,
    )

    def resolved(self) -> SuccessConfig:
        """Every variant choice made (mwzeval's, or the optimistic one, unless given) and checked:
        an :class:`InputError` for a choice not among its field's."""
        made = {}
        for field in _variant_fields():
            value = getattr(self, field.name)
            if value is None:
                value = field.metadata["optimistic" if self.optimistic else "default"]
            if value not in field.metadata["choices"]:
                raise InputError(f"{field.name} must be one of {field.metadata['choices']}, not {value!r}")
            made[field.name] = value
        return dataclasses.replace(self, **made)

    def variant(self) -> dict[str, str]:
        """The variant's choices by name, made (for the signature and the result)."""
        resolved = self.resolved()
        return {field.name: getattr(resolved, field.name) for field in _variant_fields()}

    @property
    def is_default(self) -> bool:
        """Whether this is mwzeval's computation."""
        return self.variant() == SuccessConfig().variant()


def _variant_fields() -> list[dataclasses.Field]:
    """The fields of :class:`SuccessConfig` that choose how Inform/Success is computed (with choices)."""
    return [f for f in dataclasses.fields(SuccessConfig) if f.metadata["choices"]]


@dataclasses.dataclass(frozen=True)
class BleuConfig:
    """BLEU's options (``--metric bleu:styles=damd+mwz22``, ``--style``): the delexicalization styles scored."""

    styles: tuple[str, ...] | None = option(
        "delex style(s) for BLEU (default: all)", doc="the styles to score against (default: all available)."
    )


def add_arguments(parser: argparse.ArgumentParser, config: type, section: str = "", *, title: str = "") -> None:
    """The flags of ``config``'s fields listed in ``section`` (``--matching {subset,intersection}``; a
    bool is a switch), in a group titled ``title`` when given."""
    target: Any = parser.add_argument_group(title) if title else parser
    hints = typing.get_type_hints(config)
    for field in dataclasses.fields(config):
        if field.metadata.get("section", "") != section:
            continue
        flag, about = "--" + field.name.replace("_", "-"), field.metadata
        if bool in typing.get_args(hints[field.name]):
            target.add_argument(flag, action="store_true", help=about["help"])
        else:
            target.add_argument(flag, choices=about["choices"] or None, help=about["help"])


def described(config: type, *names: str) -> str:
    """The ``evaluate`` module scripts' lines describing ``config``'s fields ``names`` (default: all)."""
    fields = [f for f in dataclasses.fields(config) if not names or f.name in names]
    return "".join(f"    {f.name}: {f.metadata['doc']}\n" for f in fields)


def from_arguments(config: type[T], args: argparse.Namespace) -> T:
    """``config`` from the flags :func:`add_arguments` added (every field the namespace holds)."""
    names = [f.name for f in dataclasses.fields(config)]  # type: ignore[arg-type]
    return config(**{name: getattr(args, name) for name in names if hasattr(args, name)})


def keyword_signature(config: type, *first: tuple[str, Any]) -> Any:
    """An ``inspect.Signature`` of keyword parameters: ``first`` (name, default), then ``config``'s fields
    with their defaults (the ``evaluate`` module scripts' ``_compute``)."""
    import inspect

    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [inspect.Parameter(name, keyword, default=default) for name, default in first]
    parameters += [inspect.Parameter(f.name, keyword, default=f.default) for f in dataclasses.fields(config)]
    return inspect.Signature(parameters)


@dataclasses.dataclass(frozen=True)
class _Chain:
    chain: str | None = None


@dataclasses.dataclass(frozen=True)
class _Sources:
    data_dir: str | None = None
    reference_files: Mapping[str, str] | None = None


# The bases in this order keep the fields in the order they always had (typed's messages list them so).
@dataclasses.dataclass(frozen=True)
class EvaluationSettings(SuccessConfig, _Sources, BleuConfig, _Chain):
    """What a command tells every metric about the evaluation (``MetricInputs.settings``): ``chain``,
    the metric configs' fields (:class:`BleuConfig`, :class:`SuccessConfig`), ``data_dir``,
    ``reference_files`` and the commands' own; ``None``: the evaluator's default.
    ``per_dialogue``/``bleu_per_dialogue``/``dialogue_scores``: what a command needs per dialogue (a
    comparison: every figure's contributions, for the bootstrap); ``test_set``: one the command built
    and scores on (``mwz evaluate --oracle``)."""

    delexicalize: str | None = None
    per_dialogue: bool | None = None
    bleu_per_dialogue: bool | None = None
    dialogue_scores: bool | None = None
    test_set: Any = None

    def given(self) -> dict[str, Any]:
        """The settings that were given (not ``None``), by name (the test set itself, not a copy)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) is not None}

    def replace(self, **changes: Any) -> EvaluationSettings:
        """These settings with ``changes``."""
        return dataclasses.replace(self, **changes)

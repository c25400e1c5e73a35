"""Settings as typed records, and the one ``KEY=VALUE`` parser.

Every ``KEY=VALUE`` a user writes (``--metric NAME:KEY=VALUE``, ``--system-option``,
``--simulator-option``, ``--reference-file NAME=PATH``, ``mwz compare -i NAME=PATH``, ``mwz hub export
--config DATASET=CONFIG``, the research scripts' ``--corpus``/``--mix``) is split by
:func:`parse_pair`, so a malformed one gets the same one-line :class:`InputError` everywhere.

Options become a dataclass of their own (as ``datasets``' ``BuilderConfig``): :func:`typed` reads the
strings into the fields' types and refuses an unknown key or a bad value in one line;
:class:`EvaluationSettings` is what ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` tell every
metric about the evaluation.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from mwz_plugins.errors import InputError

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


@dataclasses.dataclass(frozen=True)
class EvaluationSettings:
    """What a command tells every metric about the evaluation (``MetricInputs.settings``); ``None``: the
    evaluator's default. ``per_dialogue``/``bleu_per_dialogue``/``dialogue_scores``: what a command
    needs per dialogue (a comparison: every figure's contributions, for the bootstrap); ``test_set``:
    one the command built and scores on (``mwz evaluate --oracle``)."""

    chain: str | None = None
    styles: tuple[str, ...] | None = None
    data_dir: str | None = None
    reference_files: Mapping[str, str] | None = None
    gold_states: bool | None = None
    matching: str | None = None
    name_constraints: str | None = None
    active_domains: str | None = None
    optimistic: bool | None = None
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

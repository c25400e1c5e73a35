"""The signature every result carries, so that two numbers can be compared.

Modelled on sacrebleu's ``Signature``: a few named fields with a stable one-line
form that parses back, e.g.::

    mwz-eval:0.1.0|metric:multiwoz|data:data/MultiWOZ_2.1.zip=8db3f6afe591|normalizer:mwzeval@1.0.0|style:mwz22@1.0.0|opt:states=predicted

Two results are comparable when their signatures are equal. The JSON form
(:meth:`Signature.as_dict`) carries the line, the fields and the full provenance
(``details``: every source file with its origin and verification, the plugins
that registered each style and normalizer), which equality ignores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from mwz_plugins.errors import InputError
from mwz_plugins.version import __version__

PACKAGE = "mwz-eval"
_SEPARATORS = "|:,="  # never inside a value of the line
_CHECKSUM_CHARS = 12


def _clean(value: object) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    for ch in _SEPARATORS:
        text = text.replace(ch, "_")
    return text


def _pairs(mapping: Mapping[str, object] | Iterable[tuple[str, object]]) -> tuple[tuple[str, str], ...]:
    items = mapping.items() if isinstance(mapping, Mapping) else mapping
    return tuple(sorted((_clean(k), _clean(v)) for k, v in items))


@dataclasses.dataclass(frozen=True)
class Signature:
    """What a score depends on: package version, data, normalizer, styles, model and options."""

    metric: str
    version: str = __version__
    data: tuple[tuple[str, str], ...] = ()
    normalizer: str | None = None
    styles: tuple[str, ...] = ()
    model: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    details: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def build(
        cls,
        metric: str,
        *,
        data: Mapping[str, str] | Iterable[tuple[str, str]] = (),
        normalizer: str | None = None,
        styles: Iterable[str] = (),
        model: str | None = None,
        options: Mapping[str, object] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> Signature:
        """A signature with its fields cleaned and sorted (checksums shortened to 12 characters)."""
        pairs = data.items() if isinstance(data, Mapping) else data
        return cls(
            metric=_clean(metric),
            data=_pairs((name, checksum[:_CHECKSUM_CHARS]) for name, checksum in pairs),
            normalizer=_clean(normalizer) if normalizer else None,
            styles=tuple(sorted(_clean(s) for s in styles)),
            model=_clean(model) if model else None,
            options=_pairs(options or {}),
            details=dict(details or {}),
        )

    def __str__(self) -> str:
        parts = [f"{PACKAGE}:{self.version}", f"metric:{self.metric}"]
        if self.data:
            parts.append("data:" + ",".join(f"{k}={v}" for k, v in self.data))
        if self.normalizer:
            parts.append(f"normalizer:{self.normalizer}")
        if self.styles:
            parts.append("style:" + ",".join(self.styles))
        if self.model:
            parts.append(f"model:{self.model}")
        if self.options:
            parts.append("opt:" + ",".join(f"{k}={v}" for k, v in self.options))
        return "|".join(parts)

    @classmethod
    def parse(cls, line: str) -> Signature:
        """The signature written by ``str()`` (``details`` are not part of the line)."""
        fields: dict[str, str] = {}
        for part in line.strip().split("|"):
            key, sep, value = part.partition(":")
            if not sep:
                raise InputError(f"not a signature field: {part!r} in {line!r}")
            fields[key] = value
        if PACKAGE not in fields or "metric" not in fields:
            raise InputError(f"not an {PACKAGE} signature: {line!r}")

        def pairs(text: str | None) -> tuple[tuple[str, str], ...]:
            if not text:
                return ()
            return tuple(tuple(item.split("=", 1)) for item in text.split(","))  # type: ignore[misc]

        return cls(
            metric=fields["metric"],
            version=fields[PACKAGE],
            data=pairs(fields.get("data")),
            normalizer=fields.get("normalizer"),
            styles=tuple(fields["style"].split(",")) if fields.get("style") else (),
            model=fields.get("model"),
            options=pairs(fields.get("opt")),
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON form: the one-line form, the fields, and the provenance details."""
        fields = {
            "metric": self.metric,
            "version": self.version,
            "data": dict(self.data),
            "normalizer": self.normalizer,
            "styles": list(self.styles),
            "model": self.model,
            "options": dict(self.options),
        }
        return {"line": str(self), "fields": fields, **self.details}


def plugin_details(styles: Iterable[str] = (), chains: Iterable[str] = ()) -> dict[str, Any]:
    """Version and owning plugin (with its distribution) of each style and normalizer chain."""
    from mwz_plugins.manager import get_registry, plugin_infos  # a result naming no plugin loads none

    registry = get_registry()
    infos = plugin_infos()

    def owner(kind: str, name: str) -> str:
        plugin = registry.owners[(kind, name)]
        info = infos.get(plugin)
        dist = f"{info.distribution} {info.version}" if info and info.distribution else "unregistered distribution"
        return f"{plugin} ({dist})"

    out: dict[str, Any] = {"styles": {}, "normalizers": {}}
    for name in styles:
        out["styles"][name] = {"version": registry.styles[name].version, "plugin": owner("styles", name)}
    for name in chains:
        chain = registry.chains[name]
        out["normalizers"][name] = {
            "version": chain.version,
            "plugin": owner("chains", name),
            "steps": {step: registry.normalizers[step].version for step in chain.steps},
            "description": chain.description,  # names the mwzeval commit a chain reproduces
        }
    return out


def describe_chain(name: str) -> str:
    """``name@version`` of a registered normalizer chain."""
    from mwz_plugins.manager import get_registry

    return f"{name}@{get_registry().chains[name].version}"


def describe_styles(names: Iterable[str]) -> list[str]:
    """``name@version`` of registered delexicalization styles."""
    from mwz_plugins.manager import get_registry

    styles = get_registry().styles
    return [f"{name}@{styles[name].version}" for name in names]


def source_checksums(sources: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``{file: sha256}`` from resolved-file signatures (``mwz_datasets.sources.ResolvedFile``)."""
    out = {}
    for source in sources:
        name = str(source.get("file", "?"))
        out[name.split("/", 2)[-1] if name.count("/") >= 2 else name] = str(source.get("sha256", ""))
    return out


def with_model(signature: dict[str, Any], model: str, key: str, details: Mapping[str, Any]) -> dict[str, Any]:
    """A result's signature with a model-based metric added: ``model`` in the line's model field
    (joined to one already there), ``key=true`` among its options, ``details`` under ``key``."""
    parsed = Signature.parse(signature["line"])
    merged = dataclasses.replace(
        parsed,
        model=_clean(f"{parsed.model}+{model}" if parsed.model else model),
        options=tuple(sorted({*parsed.options, (key, "true")})),
        details={k: v for k, v in signature.items() if k not in ("line", "fields")},
    )
    out = merged.as_dict()
    out[key] = dict(details)
    return out


def with_options(signature: dict[str, Any], **options: object) -> dict[str, Any]:
    """A result's signature with ``options`` added to its line (every line, when it holds several)."""
    lines = []
    for line in signature["line"].split(" ; "):
        parsed = Signature.parse(line)
        merged = dict(parsed.options) | {k: v for k, v in _pairs(options)}
        lines.append(str(dataclasses.replace(parsed, options=_pairs(merged))))
    out = dict(signature)
    out["line"] = " ; ".join(lines)
    if "systems_of" in out:  # the same lines, with the options added
        old = signature["line"].split(" ; ")
        out["systems_of"] = {
            lines[old.index(line)]: systems for line, systems in out["systems_of"].items() if line in old
        }
    out.setdefault("fields", {})
    out["fields"] = {**out["fields"], "options": {**out["fields"].get("options", {}), **dict(_pairs(options))}}
    return out

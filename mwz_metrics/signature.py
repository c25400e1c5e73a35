"""The signature every result carries, so that two numbers can be compared."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mwz_plugins import get_registry
from mwz_plugins.manager import plugin_infos
from mwz_plugins.version import __version__


def plugin_signature(styles: Iterable[str] = (), chains: Iterable[str] = ()) -> dict[str, Any]:
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
        }
    return out


def signature(
    *, options: Mapping[str, Any], sources: Iterable[Mapping[str, Any]], styles: Iterable[str] = (),
    chains: Iterable[str] = (), extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    out = {"package": f"mwz-eval {__version__}", "options": dict(options), "sources": list(sources)}
    out.update(plugin_signature(styles, chains))
    if extra:
        out.update(extra)
    return out

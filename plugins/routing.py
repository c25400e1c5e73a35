"""Wrapping a library's name-resolution function so registered names route to us.

Both ``datasets`` and ``evaluate`` resolve names through a module-level factory;
wrapping it (once, idempotently) keeps our names off the Hub. The factories are
private API, so the library version is checked against the range we test.

Importing ``evaluate`` costs seconds (it imports its evaluator, hence transformers and
torch when installed), so :func:`route` never imports the library itself: it wraps the
factory at once if the library is already imported, else right after the user imports it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import logging
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

logger = logging.getLogger(__name__)

_MARK = "_mwz_original"


def wrap_factory(
    owner: ModuleType,
    attribute: str,
    make_wrapper: Callable[[Callable[..., Any]], Callable[..., Any]],
    *,
    library: str,
    version: str,
    tested: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """Replace ``owner.attribute`` by ``make_wrapper(original)`` unless already done."""
    current = getattr(owner, attribute)
    if hasattr(current, _MARK):
        return
    major_minor = tuple(int(p) for p in version.split(".")[:2])
    low, high = tested
    if not (low <= major_minor < high):
        logger.warning("%s %s is outside the tested range %s..%s", library, version, low, high)
    wrapper = make_wrapper(current)
    setattr(wrapper, _MARK, current)
    setattr(owner, attribute, wrapper)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a callback on a module right after it is first executed (a post-import hook)."""

    def __init__(self, name: str, callback: Callable[[ModuleType], None]) -> None:
        self.name = name
        self.callback = callback

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """The normal spec of the watched module, its loader set to call back after executing it."""
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # one shot; also keeps find_spec below from finding us
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        execute = loader.exec_module
        callback = self.callback

        def exec_module(module: ModuleType) -> None:
            execute(module)
            callback(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def when_imported(name: str, callback: Callable[[ModuleType], None]) -> None:
    """Call ``callback(module)`` once module ``name`` is imported: now if it already is."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    if not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, callback))


def route(
    module: str,
    attribute: str,
    make_wrapper: Callable[[Callable[..., Any]], Callable[..., Any]],
    *,
    library: str,
    tested: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """Wrap ``module.attribute`` (a library's name factory) as soon as ``module`` is imported."""

    def wrap(owner: ModuleType) -> None:
        version = getattr(sys.modules.get(library), "__version__", None) or _installed_version(library)
        wrap_factory(owner, attribute, make_wrapper, library=library, version=version, tested=tested)

    when_imported(module, wrap)


def _installed_version(distribution: str) -> str:
    from importlib import metadata

    return metadata.version(distribution)

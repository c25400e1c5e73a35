"""Optional extras: what a feature needs beyond the core install, and the one error saying which to install."""

from __future__ import annotations

from mwz_plugins.errors import MissingExtra  # re-exported: the one missing-extra error


def require_extra(extra: str, *modules: str) -> None:
    """Raise :class:`MissingExtra` naming ``extra`` and its pip command if a module is missing."""
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingExtra(
            f"this needs the '{extra}' extra ({', '.join(missing)} not installed): pip install 'mwz-eval[{extra}]'"
        )

"""MultiWOZ and DSTC9 Track 1 metrics as a library and as ``evaluate`` modules.

Importing this package routes the registered metric names (``mwz_bleu``,
``mwz_success``...) to the module scripts shipped with it, so that
``evaluate.load("mwz_success")`` works offline.
"""

from mwz_metrics.routing import install, script_path
from mwz_plugins.version import __version__

install()

__all__ = ["Evaluator", "compare", "install", "script_path", "__version__"]


def __getattr__(name: str) -> object:
    # The library's entry points, imported on first use so that `import mwz_metrics` stays light.
    if name == "Evaluator":
        from mwz_metrics.multiwoz.evaluator import Evaluator

        return Evaluator
    if name == "compare":
        from mwz_metrics.comparison import compare

        return compare
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

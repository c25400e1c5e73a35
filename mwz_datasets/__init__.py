"""MultiWOZ and DSTC9 Track 1 as ``datasets`` builders, and the venue database.

Importing this package routes the registered dataset names (``multiwoz``,
``dstc9_track1`` and any a plugin adds) to their builders, so that
``datasets.load_dataset("multiwoz", "2.2")`` works without the Hub.
"""

from mwz_datasets.routing import builder_class, install
from mwz_plugins.version import __version__

install()

__all__ = ["builder_class", "install", "__version__"]

"""Built-in plugin: the dataset builders of ``mwz_datasets``, by import path."""

from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import DatasetEntry


@hookimpl
def mwz_register_datasets(register):
    """Register the MultiWOZ and DSTC9 Track 1 builders."""
    register(DatasetEntry("multiwoz", "mwz_datasets.multiwoz:MultiWOZ", "MultiWOZ 2.0, 2.1 and 2.2"))
    register(
        DatasetEntry(
            "dstc9_track1",
            "mwz_datasets.dstc9:DSTC9Track1",
            "DSTC9 Track 1: knowledge-grounded task-oriented dialogue",
        )
    )

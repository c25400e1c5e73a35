"""``mwz view``: the sessions of interactive runs on one self-contained HTML page (see :mod:`.build`)."""

from mwz_metrics.viewer.build import page_data, write

__all__ = ["page_data", "write"]

"""Compare systems as papers do: one process, shared references, intervals, tables, a plot.

>>> from mwz_metrics.comparison import compare
>>> table = compare({"ubar": "ubar.json", "mttod": "mttod.json"}, baseline="ubar")  # doctest: +SKIP
>>> table.rows[0]  # doctest: +SKIP
{'system': 'ubar', 'metric': 'inform', 'domain': 'total', 'value': 83.4, ...}
"""

from mwz_metrics.comparison import bootstrap
from mwz_metrics.comparison.compare import compare
from mwz_metrics.comparison.inputs import published_systems, resolve_inputs
from mwz_metrics.comparison.table import Comparison

__all__ = ["Comparison", "bootstrap", "compare", "published_systems", "resolve_inputs"]

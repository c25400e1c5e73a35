"""``python -m mwz_metrics.cli``."""

import sys

from mwz_metrics.cli import main

sys.exit(main())

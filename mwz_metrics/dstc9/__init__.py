"""DSTC9 Track 1 scoring, identical to the official scorer (see ``scorer``)."""

from mwz_metrics.dstc9.api import score_split
from mwz_metrics.dstc9.scorer import Scorer, official_view, score
from mwz_metrics.dstc9.validation import EntryError

__all__ = ["EntryError", "Scorer", "official_view", "score", "score_split"]

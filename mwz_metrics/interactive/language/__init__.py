"""Words for acts: templates taken from MultiWOZ 2.1 validation (``extract``), the English heuristics that
judge their words (``lexicon``), where a user turn stands (``moments``), and the banks that say a user's or
a system's acts with them (``banks``).
"""

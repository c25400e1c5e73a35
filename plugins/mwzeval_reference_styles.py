"""Built-in plugin: the five reference-file styles that mwzeval ships.

``damd``, ``uniconv``, ``hdsa``, ``lava`` and ``augpt``: the test references as
each system's own preprocessing delexicalized them, already mapped onto the
unified ontology by mwzeval (Nekvinda & Dusek 2021, Table 4). They are not built
from span annotations: each style reads ``mwzeval/data/references/<style>.json``
of Tomiinek/MultiWOZ_Evaluation @7f19ee0, pinned in ``mwz_datasets.catalog``.
"""

from __future__ import annotations

from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import DelexStyle

VERSION = "1.0.0"
REPOSITORY = "Tomiinek/MultiWOZ_Evaluation"

# The unified ontology's placeholder names as they appear in the files (``[name]``...).
PLACEHOLDERS: dict[str, str] = {
    slot.lower(): slot
    for slot in (
        "ADDRESS", "AREA", "TIME", "DAY", "FOOD", "NAME", "PHONE", "PRICE",
        "REFERENCE", "TYPE", "TRAINID", "INTERNET", "PARKING", "DEPARTMENT",
    )
}  # fmt: skip

DESCRIPTIONS = {
    "damd": "DAMD's delexicalization (Zhang et al. 2020), from mwzeval's reference file",
    "uniconv": "UniConv's delexicalization (Le et al. 2020), from mwzeval's reference file",
    "hdsa": "HDSA's delexicalization (Chen et al. 2019), from mwzeval's reference file",
    "lava": "LAVA's delexicalization (Lubis et al. 2020), from mwzeval's reference file",
    "augpt": "AuGPT's delexicalization (Kulhanek et al. 2021), from mwzeval's reference file",
}

STYLES = tuple(
    DelexStyle(
        name=name,
        version=VERSION,
        placeholders=PLACEHOLDERS,
        reference_source=f"{REPOSITORY}/mwzeval/data/references/{name}.json",
        description=description,
    )
    for name, description in DESCRIPTIONS.items()
)


@hookimpl
def mwz_register_delex_styles(register):
    """Register the five reference-file styles."""
    for style in STYLES:
        register(style)

"""Letters of Cyrillic and Greek that render like Latin ones (pairs from Unicode's
confusables data, TR39): "АСМЕ" typed in Cyrillic reads as the Latin "ACME".

Used where a text must not pass for another: planted instructions in the knowledge base
(`knowledge/injection/planted.py`) and operator display names (`live/names.py`).
"""

from __future__ import annotations

import re

_OTHER_SCRIPTS = "аеорсухіјѕԁԛԝАВЕКМНОРСТХУІЅЈαεικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"
_LATIN_SHAPES = "aeopcyxijsdqwABEKMHOPCTXYISJaeikvoptuxABEZHIKMNOPTYX"

LOOK_ALIKES = str.maketrans(_OTHER_SCRIPTS, _LATIN_SHAPES)
LOOK_ALIKE = re.compile(f"[{_OTHER_SCRIPTS}]")


def as_latin(text: str) -> str:
    """`text` with every look-alike letter replaced by the Latin letter it imitates."""
    return text.translate(LOOK_ALIKES)

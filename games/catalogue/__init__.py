"""The catalogue: every game in one place, each a package registered once.

Each game's package (``crazy_eights``, ``crazy_8``, ``dodo``, ``dingo``,
``dos``) registers its presentation on the table page and in the replay
(``table.py`` beside its template fragments) when imported; importing this
package imports them all. Pure Python, no Django.

>>> presentation_of("dos").card_face("W2")["name"]
'DOS wild'
>>> sorted(PRESENTATIONS)
['crazy-8', 'crazy-eights', 'dingo', 'dodo', 'dos']
"""

from __future__ import annotations

from games.catalogue import crazy_8, crazy_eights, dingo, dodo, dos
from games.catalogue.presentation import Presentation
from games.catalogue.registry import PRESENTATIONS, presentation_of, register

GAMES = (crazy_eights, crazy_8, dodo, dingo, dos)

__all__ = ["GAMES", "PRESENTATIONS", "Presentation", "presentation_of", "register"]

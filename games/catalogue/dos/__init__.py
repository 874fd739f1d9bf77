"""DOS: its presentation on the table page and in the replay."""

from __future__ import annotations

from games.catalogue.dos.table import PRESENTATION
from games.catalogue.registry import register

register(PRESENTATION)

"""Crazy Eights: its presentation on the table page and in the replay."""

from __future__ import annotations

from games.catalogue.crazy_eights.table import PRESENTATION
from games.catalogue.registry import register

register(PRESENTATION)

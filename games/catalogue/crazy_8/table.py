"""Crazy 8 on the table page: the standard pack's pile, suit and stock, as every default says."""

from __future__ import annotations

from games.catalogue.presentation import Presentation

PRESENTATION = Presentation("crazy-8")

"""Toy on the table page: the standard pack's defaults, with a board fragment of its own.

The fragment (``board.html`` beside this file) is found as ``games/toy/board.html``
by ``games.template_loader.Loader``, from the folder this presentation names.
"""

from __future__ import annotations

from pathlib import Path

from games.catalogue.presentation import Presentation


class ToyPresentation(Presentation):
    board_template = "games/toy/board.html"


PRESENTATION = ToyPresentation("toy", templates=Path(__file__).parent)

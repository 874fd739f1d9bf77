"""A template loader for the games' own fragments, kept in each game's package.

``games/<game id>/<file>`` is ``<file>`` in the folder its presentation names
(``Presentation.templates``, in ``games/catalogue/<game>/``), so a game's look
lives beside its code and shared templates include it by the name its
presentation gives. It is Django's filesystem loader with its sources taken
from the catalogue; the cached loader wraps it as it wraps the others
(``TEMPLATES`` in ``config/settings.py``), and ``get_dirs`` lets the
development server notice an edited fragment.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from django.template import Origin
from django.template.loaders import filesystem

from games.catalogue import GAMES


class Loader(filesystem.Loader):
    def get_dirs(self) -> list[Path]:
        return [g.presentation.templates for g in GAMES.values() if g.presentation.templates]

    def get_template_sources(self, template_name: str) -> Iterator[Origin]:
        """``games/<game id>/<file>``: that file in the game's folder, never one outside it."""
        top, _, rest = template_name.partition("/")
        game_id, _, name = rest.partition("/")
        game = GAMES.get(game_id)
        presentation = game.presentation if game is not None else None
        if top != "games" or not name or presentation is None or presentation.templates is None:
            return
        folder = presentation.templates.resolve()
        path = (folder / name).resolve()
        if path.is_relative_to(folder):
            yield Origin(name=str(path), template_name=template_name, loader=self)

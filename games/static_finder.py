"""A static files finder for the games' own stylesheets, kept in each game's package.

``games/<game id>/<file>.css`` is that stylesheet in the folder its presentation
names (``Presentation.templates``, in ``games/catalogue/<game>/``), beside the
game's template fragments (``games.template_loader``), so that a game's look is
in one place. Only stylesheets: the folder also holds the game's code. Django's
``collectstatic`` gathers them like any other (``STATICFILES_FINDERS`` in
``config/settings.py``), and the development server serves them from here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

from games.catalogue import GAMES

SERVED = ".css"


def _folders() -> dict[str, Path]:
    """Each game's folder, by its id."""
    return {
        game_id: game.presentation.templates.resolve()
        for game_id, game in GAMES.items()
        if game.presentation.templates is not None
    }


class Finder(BaseFinder):
    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> str | list[str]:
        """``games/<game id>/<file>.css``: that file in the game's folder, never one outside it."""
        top, _, rest = path.partition("/")
        game_id, _, name = rest.partition("/")
        folder = _folders().get(game_id)
        found = None
        if top == "games" and name.endswith(SERVED) and folder is not None:
            candidate = (folder / name).resolve()
            if candidate.is_relative_to(folder) and candidate.is_file():
                found = str(candidate)
        if find_all:
            return [found] if found else []
        return found or []

    def list(self, ignore_patterns: Any) -> Iterator[tuple[str, FileSystemStorage]]:
        for game_id, folder in _folders().items():
            storage = FileSystemStorage(location=folder)
            storage.prefix = f"games/{game_id}"  # type: ignore[attr-defined]
            for path in sorted(folder.rglob(f"*{SERVED}")):
                yield path.relative_to(folder).as_posix(), storage

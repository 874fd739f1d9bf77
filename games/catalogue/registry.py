"""The games' presentations, by game id: each game's package registers its own, once."""

from __future__ import annotations

from games.catalogue.presentation import Presentation

PRESENTATIONS: dict[str, Presentation] = {}


def register(presentation: Presentation) -> Presentation:
    """Add a game's presentation; a second one for the same game is a mistake."""
    if presentation.game_id in PRESENTATIONS:
        raise ValueError(f"{presentation.game_id} has a presentation already")
    PRESENTATIONS[presentation.game_id] = presentation
    return presentation


def presentation_of(game_id: str) -> Presentation:
    """The presentation of the game called ``game_id`` (a KeyError if there is none)."""
    return PRESENTATIONS[game_id]

"""The registry of games: each game's package registers one :class:`Game`, once.

A game is one package under ``games/catalogue/``: its rules (``rules.py``), its
bot (``bot.py``), its look on the table page (``table.py`` and its template
fragments), its rules page (``rules.md``), and the formats it is played in at
once against the computer (:class:`Format`). The package's ``__init__`` makes
one ``register(Game(...))`` call, as OpenSpiel registers a game at the end of its
module; nothing outside the package names the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.bots import LEVELS
from games.bots.policy import Policy
from games.catalogue.presentation import Presentation
from games.catalogue.rulesets import VERSIONS, add, remove
from games.rules.base import RulesError, Ruleset


class UnknownGame(RulesError):
    code = "unknown_game"


@dataclass(frozen=True)
class Format:
    """One way to play a game at once against the computer: its words and the options it sets.

    ``options`` are the ruleset's (any left out at their defaults); :func:`register`
    checks them at the game's :attr:`Game.quick_seats`.
    """

    key: str  # what the form sends: "short", "full"
    name: str  # what the button says after the game's name: "One hand"
    options: Mapping[str, Any] = field(default_factory=dict)


# A game that names no format of its own is played quickly by its rulebook's preset.
FULL_MATCH = Format("full", "The full match")


@dataclass(frozen=True)
class Game:
    """Everything Fairdeal knows of one game, registered once."""

    ruleset: Ruleset  # the current version: what new tables get and the catalogue lists
    presentation: Presentation  # its look on the table page and in the replay
    rules_page: Path  # the rules for players, in the project's own words, then its Interpretations
    bot: Policy | None = None  # None: bots play it at "easy" only (any legal action)
    # Every earlier version still published: a table, and a record, plays and verifies
    # under the version it was made with, whatever is current now.
    older: tuple[Ruleset, ...] = ()
    # The formats of "play the computer", the short one first (one hand, one round...).
    formats: tuple[Format, ...] = (FULL_MATCH,)

    @property
    def id(self) -> str:
        return self.ruleset.id

    @property
    def quick_seats(self) -> int:
        """The seats of a table against the computer: the fewest at which bots may sit."""
        return max(self.ruleset.bots_from_seats, self.ruleset.min_seats)

    def find_format(self, key: object) -> Format | None:
        """The format called ``key``, or None."""
        return next((format for format in self.formats if format.key == key), None)

    @property
    def versions(self) -> tuple[Ruleset, ...]:
        return (self.ruleset, *self.older)

    @property
    def bot_levels(self) -> tuple[str, ...]:
        """The levels its bots play at: every level with a bot of its own, else ``easy`` alone."""
        return LEVELS if self.bot is not None else LEVELS[:1]

    @property
    def bot_level(self) -> str:
        """A bot's level when the host names none: ``normal``, or ``easy`` where that is all."""
        return "normal" if "normal" in self.bot_levels else self.bot_levels[0]


GAMES: dict[str, Game] = {}
# RULESETS and VERSIONS, the current ruleset of each game by id and every version ever
# published by its name (``dodo/1``), are games.catalogue.rulesets's: ``register`` and
# ``unregister`` keep them, and the stand-alone verifier fills them from the rules alone.


def register(game: Game) -> Game:
    """Add ``game`` to the catalogue; a second game of the same id, or version, is a mistake."""
    if game.id in GAMES:
        raise ValueError(f"there is a game {game.id} already")
    for ruleset in game.versions:
        if ruleset.id != game.id or VERSIONS.get(ruleset.version, ruleset) is not ruleset:
            raise ValueError(f"{ruleset.version} cannot be a version of {game.id}")
    _check_formats(game)
    add(game.versions)
    GAMES[game.id] = game
    return game


def _check_formats(game: Game) -> None:
    """A game's formats: at least one, each key once, and options its ruleset accepts."""
    keys = [format.key for format in game.formats]
    if not keys or len(set(keys)) != len(keys) or not all(keys):
        raise ValueError(f"{game.id}'s formats need keys, each one once: {keys}")
    for format in game.formats:
        try:
            game.ruleset.validate(game.quick_seats, format.options)
        except RulesError as error:
            raise ValueError(f"{game.id}'s format {format.key!r}: {error.message}") from None


def unregister(game_id: str) -> None:
    """Take a game out of the catalogue again (a test's own game, once the test is done)."""
    GAMES.pop(game_id)
    remove(game_id)


def find_game(game_id: object) -> Game:
    """The game called ``game_id``, or :class:`UnknownGame`."""
    if not isinstance(game_id, str) or game_id not in GAMES:
        raise UnknownGame(f"there is no game {game_id!r}; the games are {', '.join(GAMES)}")
    return GAMES[game_id]


def find_ruleset(game_id: object, version: object = None) -> Ruleset:
    """The ruleset called ``game_id``: its ``version``, or the current one when None.

    >>> find_ruleset("dodo").version, find_ruleset("dodo", "dodo/1").version
    ('dodo/3', 'dodo/1')
    """
    game = find_game(game_id)
    if version is None:
        return game.ruleset
    for ruleset in game.versions:
        if ruleset.version == version:
            return ruleset
    known = ", ".join(ruleset.version for ruleset in game.versions)
    raise UnknownGame(f"{game.id} has no version {version!r}; its versions are {known}")

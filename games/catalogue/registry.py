"""The registry of games: each game's package registers one :class:`Game`, once.

A game is one package under ``games/catalogue/``: its rules (``rules.py``), its
bot (``bot.py``), its look on the table page (``table.py`` and its template
fragments), and its rules page (``rules.md``). The package's ``__init__`` makes
one ``register(Game(...))`` call, as OpenSpiel registers a game at the end of its
module; nothing outside the package names the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from games.bots import LEVELS
from games.bots.policy import Policy
from games.catalogue.presentation import Presentation
from games.rules.base import RulesError, Ruleset


class UnknownGame(RulesError):
    code = "unknown_game"


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

    @property
    def id(self) -> str:
        return self.ruleset.id

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
# The current ruleset of each game, by id, and every version ever published, by its
# name (``dodo/1``): kept by ``register`` and ``unregister``, never written elsewhere.
RULESETS: dict[str, Ruleset] = {}
VERSIONS: dict[str, Ruleset] = {}


def register(game: Game) -> Game:
    """Add ``game`` to the catalogue; a second game of the same id, or version, is a mistake."""
    if game.id in GAMES:
        raise ValueError(f"there is a game {game.id} already")
    for ruleset in game.versions:
        if ruleset.id != game.id or ruleset.version in VERSIONS:
            raise ValueError(f"{ruleset.version} cannot be a version of {game.id}")
    GAMES[game.id] = game
    RULESETS[game.id] = game.ruleset
    VERSIONS.update((ruleset.version, ruleset) for ruleset in game.versions)
    return game


def unregister(game_id: str) -> None:
    """Take a game out of the catalogue again (a test's own game, once the test is done)."""
    game = GAMES.pop(game_id)
    del RULESETS[game_id]
    for ruleset in game.versions:
        del VERSIONS[ruleset.version]


def find_game(game_id: object) -> Game:
    """The game called ``game_id``, or :class:`UnknownGame`."""
    if not isinstance(game_id, str) or game_id not in GAMES:
        raise UnknownGame(f"there is no game {game_id!r}; the games are {', '.join(GAMES)}")
    return GAMES[game_id]


def find_ruleset(game_id: object, version: object = None) -> Ruleset:
    """The ruleset called ``game_id``: its ``version``, or the current one when None.

    >>> find_ruleset("dodo").version, find_ruleset("dodo", "dodo/1").version
    ('dodo/2', 'dodo/1')
    """
    game = find_game(game_id)
    if version is None:
        return game.ruleset
    for ruleset in game.versions:
        if ruleset.version == version:
            return ruleset
    known = ", ".join(ruleset.version for ruleset in game.versions)
    raise UnknownGame(f"{game.id} has no version {version!r}; its versions are {known}")

"""The forms of the lobby pages: the lobby's filters, and a new table built from the catalogue.

The forms check what a browser sends (a choice that is one, a number in range)
and say what is wrong in words; the rules themselves (the seats a game takes,
which options go together, what a deadline may be, what entropy is) stay with
the services and the rules engine, which the pages call as the API does.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from games.catalogue import GAMES, RULESETS
from games.catalogue.registry import Format, Game
from games.models import BotLevel
from games.rules import Option, Ruleset

# The deadlines a host picks from (seconds), from a quick game to a slow one; only those
# inside FAIRDEAL_MIN/MAX_DEADLINE_SECONDS are offered.
DEADLINES = (
    60,
    5 * 60,
    15 * 60,
    3600,
    3 * 3600,
    8 * 3600,
    12 * 3600,
    86400,
    2 * 86400,
    3 * 86400,
    7 * 86400,
)
DEFAULT_DEADLINE = 86400
# The waits a host picks from before bots fill the seats still free (seconds).
BOT_FILLS = (10 * 60, 3600, 6 * 3600, 86400, 3 * 86400)
# Short enough for a phone's select (about 32 characters at 360 px): a longer one is cut.
BOT_LEVEL_WORDS = {
    BotLevel.EASY: "Easy: any legal card, at random",
    BotLevel.NORMAL: "Normal: the rulebook's advice",
    BotLevel.STRONG: "Strong: weighs the unseen cards",
}

_UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))


def deadline_words(seconds: int) -> str:
    """A deadline as a person says it: its two largest units.

    >>> deadline_words(86400), deadline_words(7200), deadline_words(5400), deadline_words(90061)
    ('1 day', '2 hours', '1 hour 30 minutes', '1 day 1 hour')
    """
    parts = []
    rest = max(int(seconds), 0)
    for unit, size in _UNITS:
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count} {unit}{'' if count == 1 else 's'}")
    return " ".join(parts[:2]) or "0 seconds"


def bot_fill_choices() -> list[tuple[str, str]]:
    low = settings.FAIRDEAL_MIN_BOT_FILL_SECONDS
    high = settings.FAIRDEAL_OPEN_TABLE_SECONDS
    waits = [(str(s), f"Bots after {deadline_words(s)}") for s in BOT_FILLS if low <= s < high]
    return [("", "Keep waiting for people"), *waits]


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _counts_in_words(counts: range) -> str:
    """``three``, ``three or four``, ``three to ten``: a run of seat counts in words.

    >>> _counts_in_words(range(3, 5)), _counts_in_words(range(2, 3)), _counts_in_words(range(3, 11))
    ('three or four', 'two', 'three to ten')
    """
    words = [NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n) for n in counts]
    if len(words) < 3:
        return " or ".join(words)
    return f"{words[0]} to {words[-1]}"


def bot_seat_notes() -> list[str]:
    """A sentence for each game whose bots sit at some of its seat counts only, from its ruleset."""
    return [
        f"In {ruleset.name} bots sit only at "
        f"{_counts_in_words(range(ruleset.bots_from_seats, ruleset.max_seats + 1))} seats: "
        f"{_counts_in_words(range(ruleset.min_seats, ruleset.bots_from_seats))} people "
        "play each other."
        for ruleset in RULESETS.values()
        if ruleset.bots_from_seats > ruleset.min_seats
    ]


# The reserves of time a host picks from (seconds; none first), within
# FAIRDEAL_MIN_DEADLINE_SECONDS and FAIRDEAL_MAX_RESERVE_SECONDS.
RESERVES = (3600, 86400, 3 * 86400, 7 * 86400, 14 * 86400)


def reserve_choices() -> list[tuple[str, str]]:
    low = settings.FAIRDEAL_MIN_DEADLINE_SECONDS
    high = settings.FAIRDEAL_MAX_RESERVE_SECONDS
    spans = [(str(s), deadline_words(s)) for s in RESERVES if low <= s <= high]
    return [("0", "None"), *spans]


def deadline_choices() -> list[tuple[int, str]]:
    low = settings.FAIRDEAL_MIN_DEADLINE_SECONDS
    high = settings.FAIRDEAL_MAX_DEADLINE_SECONDS
    return [(seconds, deadline_words(seconds)) for seconds in DEADLINES if low <= seconds <= high]


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter (unless it starts with a name such as
    ``twos_stack``, which keeps its case) and a full stop."""
    text = text.strip()
    if not text:
        return text
    first = text.split(maxsplit=1)[0]
    if "_" not in first:
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def option_label(name: str) -> str:
    """``twos_draw_two`` as a label: ``Twos draw two``."""
    words = name.replace("_", " ")
    return words[:1].upper() + words[1:]


def value_words(option: Option, value: Any) -> str:
    """An option's value in words: ``on``, ``off``, ``300``, ``until playable``."""
    if option.type == "bool":
        return "on" if value else "off"
    return str(value).replace("_", " ")


def game_choices() -> list[tuple[str, str]]:
    return [(ruleset.id, ruleset.name) for ruleset in RULESETS.values()]


def _seat_range() -> tuple[int, int]:
    return (
        min(ruleset.min_seats for ruleset in RULESETS.values()),
        max(ruleset.max_seats for ruleset in RULESETS.values()),
    )


def seats_words(ruleset: Ruleset) -> str:
    """The players a game takes: ``4 players``, ``2 to 7 players``."""
    low, high = ruleset.min_seats, ruleset.max_seats
    return f"{low} players" if low == high else f"{low} to {high} players"


class GameSelect(forms.Select):
    """The choice of game; each choice carries what static/fairdeal/table-new.js offers with it:
    its seat range, the fewest seats at which bots sit, and its bots' levels."""

    def create_option(self, name: str, value: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(name, value, *args, **kwargs)
        game = GAMES.get(str(value))
        if game is not None:
            option["attrs"]["data-min-seats"] = game.ruleset.min_seats
            option["attrs"]["data-max-seats"] = game.ruleset.max_seats
            option["attrs"]["data-bots-from-seats"] = game.quick_seats
            option["attrs"]["data-bot-levels"] = " ".join(game.bot_levels)
        return option


# -- the lobby's filters ------------------------------------------------------------


class LobbyFilterForm(forms.Form):
    """The lobby's filters, under the names the API's ``GET /api/tables/`` takes."""

    game = forms.ChoiceField(
        required=False,
        error_messages={"invalid_choice": "There is no such game: choose one from the list."},
    )
    deadline_min = forms.TypedChoiceField(
        label="Deadline at least",
        required=False,
        coerce=int,
        empty_value=None,
        error_messages={"invalid_choice": "Choose the shortest deadline from the list."},
    )
    deadline_max = forms.TypedChoiceField(
        label="Deadline at most",
        required=False,
        coerce=int,
        empty_value=None,
        error_messages={"invalid_choice": "Choose the longest deadline from the list."},
    )
    page = forms.IntegerField(
        required=False,
        min_value=1,
        widget=forms.HiddenInput,
        error_messages={
            "invalid": "The page is a whole number, 1 or more.",
            "min_value": "The page is a whole number, 1 or more.",
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [("", "Any game"), *game_choices()]
        deadlines = [(str(seconds), words) for seconds, words in deadline_choices()]
        self.fields["deadline_min"].choices = [("", "Any"), *deadlines]
        self.fields["deadline_max"].choices = [("", "Any"), *deadlines]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        low, high = data.get("deadline_min"), data.get("deadline_max")
        if low is not None and high is not None and low > high:
            raise forms.ValidationError(
                "The shortest deadline is longer than the longest: no table could have it."
            )
        return data

    def filters(self) -> dict[str, Any]:
        """The valid filters, as ``selectors.open_tables`` takes them; a bad one is left out."""
        data = getattr(self, "cleaned_data", {})
        if self.non_field_errors():
            data = {key: value for key, value in data.items() if not key.startswith("deadline")}
        filters: dict[str, Any] = {}
        if data.get("game"):
            filters["game"] = data["game"]
        for name in ("deadline_min", "deadline_max"):
            if data.get(name) is not None:
                filters[name] = data[name]
        return filters


# -- a new table ----------------------------------------------------------------------


class TableForm(forms.Form):
    """What every table has, whatever its game; the game's own options are an :class:`OptionsForm`."""

    game = forms.ChoiceField(
        widget=GameSelect,
        error_messages={
            "required": "Choose a game.",
            "invalid_choice": "There is no such game: choose one from the list.",
        },
    )
    seats = forms.TypedChoiceField(
        coerce=int,
        help_text="Including you. Each game says how many it takes (its options below).",
        error_messages={
            "required": "Choose how many seats the table has.",
            "invalid_choice": "Choose the number of seats from the list.",
        },
    )
    deadline = forms.TypedChoiceField(
        coerce=int,
        help_text="How long each player has for each move. A missed deadline loses the game.",
        error_messages={
            "required": "Choose a deadline.",
            "invalid_choice": "Choose a deadline from the list.",
        },
    )
    reserve = forms.TypedChoiceField(
        coerce=int,
        required=False,
        empty_value=0,
        label="Reserve of time",
        help_text="Each player's extra time for the whole game: a move after its deadline draws"
        " the overrun from it, and the game is lost on time only when it is spent.",
        error_messages={"invalid_choice": "Choose a reserve of time from the list."},
    )
    rated = forms.BooleanField(
        required=False,
        help_text="The result counts for the game's leaderboard. Never with a bot at the table;"
        " only for accounts with a verified e-mail address, a few days old.",
    )
    private = forms.BooleanField(
        required=False,
        label="Private",
        help_text="Kept out of the lobby: you get a link to send, and may invite players by name.",
    )
    bots = forms.TypedChoiceField(
        label="Computer players",
        coerce=int,
        required=False,
        empty_value=0,
        initial=0,
        help_text="Bots in the last seats; the other seats wait for people. With bots in every"
        " other seat, the game starts at once.",
        error_messages={
            "invalid_choice": "Choose the number of computer players from the list.",
        },
    )
    bot_level = forms.ChoiceField(
        label="How the computer plays",
        choices=list(BOT_LEVEL_WORDS.items()),
        initial=BotLevel.NORMAL,
        required=False,
        error_messages={"invalid_choice": "Choose how the computer plays from the list."},
    )
    bot_fill = forms.TypedChoiceField(
        label="When nobody comes",
        coerce=int,
        required=False,
        empty_value=None,
        help_text="Bots (playing as chosen above) can take the seats still free after a wait,"
        " and the game starts.",
        error_messages={"invalid_choice": "Choose a wait from the list."},
    )
    # The browser's contribution to the seed (static/fairdeal/entropy.js); empty without it.
    entropy = forms.CharField(required=False, strip=False, widget=forms.HiddenInput)
    # A one-time token: the same form sent twice (a double click) makes one table.
    once = forms.CharField(
        max_length=64,
        widget=forms.HiddenInput,
        error_messages={
            "required": "This form had lost its one-time token; nothing was created. Send it again.",
            "max_length": "This form's one-time token was damaged; nothing was created. "
            "Send it again.",
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        # Every count some game takes: without scripts the game may change after the seats
        # are chosen, and clean() says when the two do not go together.
        low, high = _seat_range()
        self.fields["seats"].choices = [(str(n), str(n)) for n in range(low, high + 1)]
        self.fields["bots"].choices = [(str(n), str(n)) for n in range(high)]
        self.fields["game"].choices = game_choices()
        self.fields["deadline"].choices = [(str(s), words) for s, words in deadline_choices()]
        self.fields["reserve"].choices = reserve_choices()
        self.fields["bot_fill"].choices = bot_fill_choices()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        ruleset, seats = RULESETS.get(data.get("game") or ""), data.get("seats")
        if (
            ruleset is not None
            and seats is not None
            and not (ruleset.min_seats <= seats <= ruleset.max_seats)
        ):
            self.add_error(
                "seats", f"{ruleset.name} is played by {seats_words(ruleset)}, not {seats}."
            )
        return data

    def bot_seats(self) -> list[dict[str, Any]]:
        """The seats for bots, the last ones, as the services take them (once valid)."""
        data = self.cleaned_data
        count, seats = data.get("bots") or 0, data["seats"]
        level = data.get("bot_level") or None  # None: the game's own default
        return [{"seat": n, "level": level} for n in range(seats - count, seats)]

    def bot_fill_request(self) -> dict[str, Any] | None:
        after = self.cleaned_data.get("bot_fill")
        level = self.cleaned_data.get("bot_level") or None
        return None if after is None else {"after": after, "level": level}

    @property
    def ruleset(self) -> Ruleset | None:
        """The chosen game's ruleset, once the form is valid (or its game field is)."""
        game = getattr(self, "cleaned_data", {}).get("game")
        return RULESETS.get(game) if game else None

    def hidden_errors(self) -> list[str]:
        """The errors of the hidden fields, which have nowhere else to show."""
        return [str(e) for name in ("entropy", "once") for e in self.errors.get(name, [])]


def _company_words(bots: int) -> str:
    """``you and one bot``, ``you and three bots``."""
    count = NUMBER_WORDS[bots] if bots < len(NUMBER_WORDS) else str(bots)
    return f"you and {count} bot{'' if bots == 1 else 's'}"


def _play_value(game: Game, format: Format) -> str:
    return f"{game.id}:{format.key}"


class ComputerForm(forms.Form):
    """A game against the computer in one click: each game's formats are buttons (``play``),
    sent with how the computer plays; the game's own seat count, bots in every other seat."""

    play = forms.ChoiceField(
        error_messages={
            "required": "Choose a game and how long a match with one of the buttons.",
            "invalid_choice": "Choose a game and how long a match with one of the buttons.",
        },
    )
    level = forms.ChoiceField(
        label="The computer plays",
        choices=list(BOT_LEVEL_WORDS.items()),
        initial=BotLevel.NORMAL,
        error_messages={
            "required": "Choose how the computer plays from the list.",
            "invalid_choice": "Choose how the computer plays from the list.",
        },
    )
    entropy = forms.CharField(required=False, strip=False, widget=forms.HiddenInput)
    once = forms.CharField(max_length=64, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["play"].choices = [
            (_play_value(game, format), f"{game.ruleset.name}: {format.name}")
            for game in GAMES.values()
            for format in game.formats
        ]

    def plays(self) -> list[dict[str, Any]]:
        """Each game with its formats' buttons, for the template: its name, seats and bots."""
        return [
            {
                "name": game.ruleset.name,
                "company": _company_words(game.quick_seats - 1),
                "formats": [
                    {"value": _play_value(game, format), "name": format.name}
                    for format in game.formats
                ],
            }
            for game in GAMES.values()
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if "play" in data:
            game_id, _, key = data["play"].partition(":")
            data["game"] = GAMES[game_id]
            data["format"] = data["game"].find_format(key)
        game = data.get("game")
        if game is not None and "level" in data and data["level"] not in game.bot_levels:
            levels = " or ".join(game.bot_levels)
            self.add_error("level", f"At {game.ruleset.name} the computer plays {levels} only.")
        return data


def option_field(option: Option) -> forms.Field:
    """The form field of one catalogue option, with its default and its explanation."""
    label = option_label(option.name)
    help_text = f"{sentence(option.description)} Default: {value_words(option, option.default)}."
    if option.type == "bool":
        return forms.BooleanField(
            label=label, required=False, initial=option.default, help_text=help_text
        )
    if option.type == "int":
        field = forms.IntegerField(
            label=label,
            initial=option.default,
            help_text=help_text,
            error_messages={
                "required": f"{label}: give a whole number.",
                "invalid": f"{label} is a whole number.",
            },
        )
        if option.minimum is not None:
            field.validators.append(_option_bound(label, option.minimum, at_least=True))
            field.widget.attrs["min"] = option.minimum
        if option.maximum is not None:
            field.validators.append(_option_bound(label, option.maximum, at_least=False))
            field.widget.attrs["max"] = option.maximum
        return field
    return forms.ChoiceField(
        label=label,
        initial=option.default,
        help_text=help_text,
        choices=[(choice, value_words(option, choice)) for choice in option.choices],
        error_messages={
            "required": f"{label}: choose one of the list.",
            "invalid_choice": f"{label}: choose one of the list.",
        },
    )


def _option_bound(label: str, bound: int, *, at_least: bool) -> Any:
    def check(value: int) -> None:
        if at_least and value < bound:
            raise forms.ValidationError(f"{label} is at least {bound}.")
        if not at_least and value > bound:
            raise forms.ValidationError(f"{label} is at most {bound}.")

    return check


class OptionsForm(forms.Form):
    """One game's options, each field named ``<game>-<option>`` (the form's prefix)."""

    def __init__(self, ruleset: Ruleset, *args: Any, **kwargs: Any) -> None:
        kwargs["prefix"] = ruleset.id
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.ruleset = ruleset
        for option in ruleset.options:
            self.fields[option.name] = option_field(option)

    @property
    def seats_words(self) -> str:
        return seats_words(self.ruleset)

    def options(self) -> dict[str, Any]:
        """The chosen options, by the catalogue's names (call once the form is valid)."""
        return {option.name: self.cleaned_data[option.name] for option in self.ruleset.options}

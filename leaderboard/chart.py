"""A rating history as a line chart in SVG, drawn on the server: no script and no library.

:func:`history_chart` turns a player's rating changes at one game into the
geometry ``templates/leaderboard/_chart.html`` draws: a line through the rating
shown after each rated game, a point on it for each change (each with its own
``<title>``, the browser's tooltip), gridlines at round ratings and the game
numbers below. The page beside it says the same in words and as a table, for
those who do not see it. Colours and type are the style sheet's (``lobby.css``).

>>> chart = history_chart(1000, 0, [(1, 1165, "game 1"), (2, 1120, "game 2")])
>>> [(point.number, point.rating) for point in chart.points]
[(1, 1165), (2, 1120)]
>>> [tick.label for tick in chart.y_ticks]
['1000', '1050', '1100', '1150', '1200']
>>> chart.line
'56.0,174.0 260.0,42.0 464.0,78.0'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 480, 220  # the viewBox; the page scales it to the column's width
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 14, 46  # room for the ratings at the left, the games below
MOST_TICKS = 5
LEAST_SPAN = 100  # rating points from the bottom of the chart to its top, at least


@dataclass(frozen=True)
class Point:
    """A rated game on the chart: where it is drawn, its number and the rating after it."""

    x: float
    y: float
    number: int
    rating: int
    label: str


@dataclass(frozen=True)
class Tick:
    at: float  # the coordinate: y for a rating, x for a game number
    label: str


@dataclass(frozen=True)
class Chart:
    start: Point  # the rating before the first change drawn: 1000 for a new player
    points: list[Point]  # one for each change, oldest first
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    width: int = WIDTH
    height: int = HEIGHT
    left: float = LEFT
    right: float = WIDTH - RIGHT
    top: float = TOP
    bottom: float = HEIGHT - BOTTOM

    @property
    def middle(self) -> float:
        return (self.left + self.right) / 2

    @property
    def line(self) -> str:
        """The polyline's ``points``: the start, then each change."""
        return " ".join(f"{p.x},{p.y}" for p in [self.start, *self.points])


def step_for(span: float, most: int = MOST_TICKS) -> int:
    """A round step (1, 2 or 5 times a power of ten) that cuts ``span`` in at most ``most - 1``.

    >>> step_for(165), step_for(1), step_for(0), step_for(1234)
    (50, 1, 1, 500)
    """
    if span <= 0:
        return 1
    power: int = 10 ** max(0, math.floor(math.log10(span / (most - 1))))
    for factor in (1, 2, 5):
        if span / (factor * power) <= most - 1:
            return factor * power
    return 10 * power


def history_chart(
    start_rating: int, start_number: int, changes: Sequence[tuple[int, int, str]]
) -> Chart:
    """The chart of ``changes`` (game number, rating after it, its label), oldest first,
    from ``start_rating`` before game ``start_number + 1``."""
    if not changes:
        raise ValueError("a chart needs at least one rating change")
    ratings = [start_rating, *(rating for _, rating, _ in changes)]
    lowest, highest = float(min(ratings)), float(max(ratings))
    if highest - lowest < LEAST_SPAN:  # a few points' wiggle is drawn as one, not as a cliff
        middle = (highest + lowest) / 2
        lowest, highest = middle - LEAST_SPAN / 2, middle + LEAST_SPAN / 2
    step = step_for(highest - lowest)
    low = math.floor(lowest / step) * step
    high = math.ceil(highest / step) * step
    first, last = start_number, changes[-1][0]
    left, right, top, bottom = LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM

    # To a tenth of a unit, as the template writes them: nobody sees finer, and it is less to send.
    def x(number: float) -> float:
        return round(left + (right - left) * (number - first) / max(1, last - first), 1)

    def y(rating: float) -> float:
        return round(bottom - (bottom - top) * (rating - low) / (high - low), 1)

    x_step = step_for(last - first)
    numbers = range(math.ceil(first / x_step) * x_step, last + 1, x_step)
    return Chart(
        start=Point(x(first), y(start_rating), first, start_rating, "before"),
        points=[
            Point(x(number), y(rating), number, rating, label) for number, rating, label in changes
        ],
        y_ticks=[Tick(y(value), str(value)) for value in range(low, high + 1, step)],
        x_ticks=[Tick(x(number), str(number)) for number in numbers],
    )

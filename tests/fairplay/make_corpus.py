"""Make the corpus of records that every later engine must verify and replay byte for byte.

Made before the one-path change, at commit 32fc092 (the engine of e7e3b02 plus
``GameState.apply_legal``). NEVER regenerate it to make a test pass: the corpus is
what the engine did then, and ``tests/fairplay/test_corpus.py`` holds every later
engine to it. Regenerate it only to add records, and then only from an engine that
still passes ``test_corpus.py`` with the corpus as it was.

``python -m tests.fairplay.make_corpus`` writes ``tests/fairplay/corpus/records.json.gz``.
It holds, for each match of every rules version in ``games.rules.VERSIONS``:

* ``envelope``: the signed record, built by :func:`tests.fairplay.helpers.play_record`
  the way the web app builds one, from seeded random play: seat counts across the
  game's range, every option at a value other than its default in some match,
  calls out of turn (Dodo's catch and late ``last_card``, DOS's call and catch,
  Crazy 8's ``last_card`` house rule), resignations and timeouts;
* ``digests``: for every step (the start, then each log entry), three short
  SHA-256 digests (:func:`step_digests`) of what the record does not show: the
  state's saved form (``GameState.to_json``, what the database stores), every
  seat's view and the public view, and every seat's legal actions;
* ``saved``: the saved form of the state at a few steps, to be loaded by
  ``Ruleset.load`` and played on from there.

The records of format 2 (:data:`TIMED`, named ``timed/<version>#n``), added after
all the others, carry a time control: a reserve of time drawn on, holidays, and
timeouts each at the microsecond its seat's time ran out. The versions that came
after them (:data:`LATER`: ``dodo/3``) add their records after those.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from pathlib import Path
from typing import Any

from games.catalogue import VERSIONS, find_ruleset
from games.rules.base import Action, GameState
from games.rules.replay import Act, Entry, Forfeit, replay
from tests.fairplay.helpers import Calls, Policy, Timing, play_record, seat_list

CORPUS = Path(__file__).parent / "corpus" / "records.json.gz"
DIGEST_CHARS = 16  # of a SHA-256 in hex: enough to see any drift

# Each version's matches: (seats, options, forfeit, calls), forfeit as
# ("resigned" | "timeout", after how many actions) or None, calls the chance
# (0 to 1) that a seat with a call to make makes it before a step.
_CRAZY_8 = [
    (2, {}, None, 0.0),
    (2, {"draw_rule": "one", "voluntary_draw": True, "last_card": True}, None, 0.5),
    (2, {"draw_rule": "limit", "draw_limit": 5, "starter_eight": "any"}, ("timeout", 30), 0.0),
    (
        3,
        {"more_players": True, "jacks_reverse": True, "queens_skip": True, "last_card": True},
        None,
        0.3,
    ),
    (4, {"more_players": True, "aces": "reverse", "twos_draw_two": True}, None, 0.0),
    (
        5,
        {"more_players": True, "aces": "skip", "twos_draw_two": True, "twos_stack": True},
        ("resigned", 20),
        0.0,
    ),
    (7, {"more_players": True, "starter_eight": "dealer_names", "draw_limit": 3}, None, 0.0),
    (2, {"jacks_reverse": True, "aces": "reverse", "last_card": True}, None, 1.0),
]
MATCHES: dict[str, list[tuple[int, dict[str, Any], tuple[str, int] | None, float]]] = {
    "crazy-eights/1": [
        (2, {}, None, 0.0),
        (3, {}, None, 0.0),
        (4, {}, None, 0.0),
        (4, {}, ("resigned", 25), 0.0),
        (3, {}, ("timeout", 12), 0.0),
        (2, {}, ("timeout", 3), 0.0),
    ],
    "crazy-8/3": [
        *_CRAZY_8,
        (2, {"jacks_reverse": True, "reverse_skips_at_two": True}, None, 0.0),
        (3, {"more_players": True, "aces": "reverse", "reverse_skips_at_two": True}, None, 0.0),
    ],
    "crazy-8/2": _CRAZY_8,
    "dodo/2": [
        (2, {"target": 50}, None, 0.5),
        (3, {"target": 60, "seven_cards": True}, None, 1.0),
        (4, {"target": 50, "two_packs": True, "no_chains": True}, ("resigned", 50), 0.3),
        (5, {"target": 80, "crazy_eights_scoring": True}, None, 0.5),
        (2, {"target": 50, "jacks_skip_at_two": True}, None, 0.5),
        (6, {"target": 50}, ("timeout", 60), 0.2),
        (8, {"target": 50, "crazy_eights_scoring": True, "no_chains": True}, None, 0.5),
        (3, {}, ("resigned", 80), 0.5),
    ],
    "dodo/1": [
        (2, {"target": 50}, None, 0.5),
        (3, {"target": 60, "seven_cards": True, "no_chains": True}, None, 1.0),
        (4, {"target": 50, "two_packs": True, "crazy_eights_scoring": True}, None, 0.3),
        (7, {"target": 50}, ("timeout", 40), 0.5),
        (2, {}, ("resigned", 30), 0.5),
        (5, {"target": 100}, None, 0.0),
    ],
    "dingo/1": [
        (4, {}, None, 0.0),
        (4, {"deals": 3}, None, 0.0),
        (4, {"deals": 4, "target": 40}, None, 0.0),
        (4, {"deals": 2}, ("timeout", 9), 0.0),
        (4, {"deals": 2}, ("resigned", 30), 0.0),
        (4, {}, ("timeout", 0), 0.0),
    ],
    "dos/1": [
        (2, {"target": 60}, None, 0.5),
        (3, {"target": 80}, None, 1.0),
        (4, {"target": 50}, ("timeout", 40), 0.3),
        (6, {"target": 40}, None, 0.5),
        (10, {"target": 30}, ("resigned", 60), 0.5),
        (2, {"target": 0}, None, 0.2),
        (5, {}, ("resigned", 90), 0.5),
    ],
    # Added later, after the versions above, so that their records keep their numbers.
    "crazy-eights/2": [
        (2, {"one_hand": True}, None, 0.0),
        (3, {}, None, 0.0),
        (4, {"one_hand": True}, ("timeout", 8), 0.0),
    ],
    "crazy-8/4": [
        (2, {"target": 0}, None, 0.0),
        (2, {"target": 40, "jacks_reverse": True, "reverse_skips_at_two": True}, None, 0.0),
        (2, {"target": 30, "last_card": True}, None, 0.5),
        (3, {"more_players": True, "target": 0, "twos_draw_two": True}, ("resigned", 10), 0.0),
    ],
    # Calls out of turn at most chances, so that players are caught in their own turns;
    # in dos/2#5 one of them goes out in it (what dos/2 changed).
    "dos/2": [
        (2, {"target": 60}, None, 1.0),
        (3, {"target": 80}, None, 1.0),
        (4, {"target": 50}, ("resigned", 70), 0.5),
        (2, {"target": 0}, None, 1.0),
        (5, {"target": 100}, ("timeout", 150), 1.0),
        (2, {"target": 100}, None, 1.0),  # a player caught in their turn goes out in it
    ],
}
# Format 2 records (added after every record above, which keep their numbers): each
# (version, seats, options, forfeit, calls, timing), as above, played with its clock.
TIMED: list[tuple[str, int, dict[str, Any], tuple[str, int] | None, float, Timing]] = [
    # An hour a move and two of reserve, drawn on, then a timeout when it is spent.
    ("crazy-eights/2", 2, {}, ("timeout", 9), 0.0, Timing(3600, 7200, (), (60, 5000, 300))),
    # A day a move, no reserve; seat 0 away for five days, seat 1 twice: a timeout after.
    (
        "dodo/2",
        3,
        {"target": 50},
        ("timeout", 20),
        0.5,
        Timing(86400, 0, ((0, 3600, 435600), (1, 0, 7200), (1, 600000, 700000)), (3600, 80000)),
    ),
    # Both: a reserve and a holiday; a resignation ends it.
    (
        "dos/2",
        2,
        {"target": 60},
        ("resigned", 30),
        1.0,
        Timing(7200, 3600, ((1, 60, 86400),), (600, 7500, 60)),
    ),
]
# Added after the format 2 records, which keep their tables' numbers: each version's
# matches, as in MATCHES, played and named the same way.
LATER: dict[str, list[tuple[int, dict[str, Any], tuple[str, int] | None, float]]] = {
    # The house rule one_hand: a single deal, under either scoring; and the match as before.
    "dodo/3": [
        (2, {"one_hand": True}, None, 0.5),
        (4, {"one_hand": True, "seven_cards": True}, None, 1.0),
        (3, {"one_hand": True, "crazy_eights_scoring": True}, None, 0.5),
        (6, {"one_hand": True, "no_chains": True}, ("resigned", 20), 0.3),
        (3, {"target": 50, "jacks_skip_at_two": True}, None, 0.5),
        (2, {"target": 60, "two_packs": True}, ("timeout", 40), 0.5),
    ],
}
SAVED_EVERY = 37  # keep the saved form of every 37th step (and of the last)


def _digest(value: Any) -> str:
    data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()[:DIGEST_CHARS]


def step_digests(state: GameState) -> list[str]:
    """The state's saved form, every view (each seat's, then the public one), every seat's legal actions."""
    seats = range(state.seats)
    return [
        _digest(state.to_json()),
        _digest([state.view(seat) for seat in seats] + [state.view(None)]),
        _digest([state.legal_actions(seat) for seat in seats]),
    ]


def log_entries(record: dict[str, Any]) -> list[Entry]:
    """The record's log as :func:`games.rules.replay.replay` takes it."""
    entries: list[Entry] = []
    for entry in record["log"][1:]:
        if entry["kind"] == "forfeit":
            entries.append(Forfeit(entry["seat"], entry["action"]["reason"]))
        else:
            entries.append(Act(entry["seat"], entry["action"]))
    return entries


def walk(record: dict[str, Any]) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """Replay ``record``: the digests of every step, and the saved form at some of them."""
    ruleset = find_ruleset(record["game"], record["ruleset_version"])
    steps = replay(
        ruleset,
        record["seat_count"],
        record["options"],
        bytes.fromhex(record["game_seed"]),
        log_entries(record),
    )
    digests: list[list[str]] = []
    saved: list[dict[str, Any]] = []
    last = len(record["log"]) - 1
    for index, step in enumerate(steps):
        digests.append(step_digests(step.state))
        if index and (index % SAVED_EVERY == 0 or index == last - 1):
            saved.append({"step": index, "state": step.state.to_json()})
    return digests, saved


def _policy(rng: random.Random) -> Policy:
    def policy(state: GameState, seat: int, legal: list[Action]) -> Action:
        return dict(rng.choice(legal))

    return policy


def _calls(rng: random.Random, chance: float) -> Calls:
    made = [0]  # calls in a row: never more than three before a step of play

    def calls(state: GameState) -> tuple[int, Action] | None:
        if chance and made[0] < 3 and rng.random() < chance:
            seats = list(range(state.seats))
            rng.shuffle(seats)
            for seat in seats:
                own = [a for a in state.legal_actions(seat) if state.is_call(a)]
                if own:
                    made[0] += 1
                    return seat, dict(rng.choice(own))
        made[0] = 0
        return None

    return calls


def _untimed(
    corpus: list[dict[str, Any]],
    versions: dict[str, list[tuple[int, dict[str, Any], tuple[str, int] | None, float]]],
) -> None:
    """Play each version's matches of ``versions`` (MATCHES or LATER) onto ``corpus``."""
    for version, matches in versions.items():
        ruleset = VERSIONS[version]
        for number, (seats, options, forfeit, calls) in enumerate(matches):
            name = f"{version}#{number}"
            rng = random.Random(f"corpus {name}")
            contributors = sorted(rng.sample(range(seats), rng.randint(0, min(2, seats))))
            server_seed = rng.randbytes(32)
            given = [(seat, rng.randbytes(rng.randint(16, 40))) for seat in contributors]
            ending = None
            if forfeit is not None:
                reason, after = forfeit
                ending = (after, -1 if reason == "timeout" else rng.randrange(seats), reason)
            bots = [seats - 1] if number % 2 else []
            envelope = play_record(
                table=1000 + len(corpus),
                seats=seat_list(seats, bots=bots),
                server_seed=server_seed,
                contributions=given,
                policy=_policy(rng),
                forfeit=ending,
                game=ruleset.id,
                version=version,
                options=options,
                calls=_calls(rng, calls),
            )
            digests, saved = walk(envelope["record"])
            corpus.append({"name": name, "envelope": envelope, "digests": digests, "saved": saved})


def make() -> list[dict[str, Any]]:
    corpus: list[dict[str, Any]] = []
    _untimed(corpus, MATCHES)
    for number, (version, seats, options, forfeit, calls, timing) in enumerate(TIMED):
        name = f"timed/{version}#{number}"
        rng = random.Random(f"corpus {name}")
        ending = None
        if forfeit is not None:
            reason, after = forfeit
            ending = (after, -1 if reason == "timeout" else rng.randrange(seats), reason)
        envelope = play_record(
            table=1000 + len(corpus),
            seats=seat_list(seats, bots=[seats - 1] if seats > 2 else []),
            server_seed=rng.randbytes(32),
            contributions=[(0, rng.randbytes(20))],
            policy=_policy(rng),
            forfeit=ending,
            game=VERSIONS[version].id,
            version=version,
            options=options,
            calls=_calls(rng, calls),
            timing=timing,
        )
        digests, saved = walk(envelope["record"])
        corpus.append({"name": name, "envelope": envelope, "digests": digests, "saved": saved})
    _untimed(corpus, LATER)
    return corpus


def main() -> None:
    corpus = make()
    CORPUS.parent.mkdir(exist_ok=True)
    data = json.dumps(corpus, separators=(",", ":"), ensure_ascii=False).encode()
    CORPUS.write_bytes(gzip.compress(data, mtime=0))
    steps = sum(len(entry["digests"]) for entry in corpus)
    print(f"{len(corpus)} records, {steps} steps, {CORPUS.stat().st_size} bytes: {CORPUS}")


if __name__ == "__main__":
    main()

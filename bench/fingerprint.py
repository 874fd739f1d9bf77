"""A fingerprint of what the Crazy Eights family's engine does: for checking that a
change to it (for speed) changes nothing a player, a record or a verifier sees.

    python bench/fingerprint.py [--matches M] [--only VERSION-PREFIX] [--tree DIR]

Every version of the family (``crazy-eights``, ``crazy-8``, ``dodo``) at every seat
count, at its preset and with each true-or-false option turned the other way, plays
``--matches`` seeded matches. At every step each seat's legal actions are hashed; the
seat that acts is drawn from those with any (so calls out of turn are made); half the
actions are posted as the listed object and half as a copy through JSON; one step in
twenty posts an action from a fixed list of likely refusals instead (hashing the
refusal, or what it did if taken); every seventh step the saved state and every seat's
view are hashed; every fourth match is forfeited at its sixtieth step. Each
configuration prints one line with its digest, and the last line digests them all:
run it before and after a change and compare the lines.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def dump(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, default=repr).encode()


# Actions a seat is likely to be refused: drawn from at one step in twenty.
LIKELY_REFUSED: list[dict[str, Any]] = [
    {"type": "draw"},
    {"type": "pass"},
    {"type": "play", "cards": ["QS", "QS"]},
    {"type": "play", "card": "8H"},
]


def configurations(ruleset: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each seat count, at the preset and with each true-or-false option turned."""
    from games.rules import InvalidOptions  # after main() has put the tree on the path

    switches = [option for option in ruleset.options if option.type == "bool"]
    for seats in range(ruleset.min_seats, ruleset.max_seats + 1):
        for options in [{}, *({option.name: not option.default} for option in switches)]:
            try:
                ruleset.validate(seats, options)
            except InvalidOptions:  # a seat count or option this version refuses
                continue
            yield seats, options


def play(ruleset: Any, version: str, seats: int, options: dict[str, Any], matches: int) -> str:
    from games.rules import IllegalAction
    from games.rules.chance import SeededChance

    digest = hashlib.sha256()
    for number in range(matches):
        chance = SeededChance(hashlib.sha256(dump([version, seats, options, number])).digest())
        policy = random.Random(number)
        state, events = ruleset.new_game(seats, options, chance)
        digest.update(dump([event.to_json() for event in events]))
        step = 0
        while not state.is_over:
            legal = {seat: state.legal_actions(seat) for seat in range(seats)}
            digest.update(dump(legal))
            seat = policy.choice([seat for seat in range(seats) if legal[seat]])
            action = policy.choice(legal[seat])
            if policy.random() < 0.5:
                action = json.loads(json.dumps(action))
            if policy.random() < 0.05:
                refused = policy.choice([*LIKELY_REFUSED, {"type": "swap", "seat": seat}])
                try:
                    taken = state.apply(seat, refused, chance)
                    digest.update(dump(["taken", refused, [e.to_json() for e in taken]]))
                except IllegalAction as refusal:
                    digest.update(dump([refusal.code, str(refusal)]))
                continue
            events = state.apply(seat, action, chance)
            digest.update(dump([event.to_json() for event in events]))
            if step % 7 == 0:
                digest.update(dump(state.to_json()))
                views = [state.public_view()] + [state.private_view(s) for s in range(seats)]
                digest.update(dump(views))
            step += 1
            if number % 4 == 3 and step == 60 and not state.is_over:
                forfeit = state.forfeit(state.to_act[0] if state.to_act else 0, "timeout")
                digest.update(dump([event.to_json() for event in forfeit]))
                break
        digest.update(dump(state.to_json()))
    return digest.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6, help="matches a configuration (6)")
    parser.add_argument("--only", default="", help="versions starting so (dodo, crazy-8/3...)")
    parser.add_argument("--tree", help="fingerprint another copy of the code (a version before)")
    args = parser.parse_args()
    tree = Path(args.tree).resolve() if args.tree else Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(tree))
    from games.rules import VERSIONS

    family = [
        version
        for version in VERSIONS
        if version.split("/")[0] in ("crazy-eights", "crazy-8", "dodo")
        and version.startswith(args.only)
    ]
    whole = hashlib.sha256()
    for version in family:
        ruleset = VERSIONS[version]
        for seats, options in configurations(ruleset):
            line = f"{version} {seats} {json.dumps(options)} "
            line += play(ruleset, version, seats, options, args.matches)
            print(line, flush=True)
            whole.update(line.encode())
    print("all", whole.hexdigest()[:16])


if __name__ == "__main__":
    main()

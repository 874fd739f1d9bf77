"""How fast the stand-alone verifier checks finished records.

    python bench/verify.py [--records N] [--seats S] [--repeat R]

Builds N signed records of seeded random Crazy Eights matches (the records of
``tests/fairplay/helpers.py``: real engine playouts, signed with the test
key), then times ``fairplay.verify.verify`` on them with the key pinned: the
whole check, from the envelope to the result, including the canonical JSON,
the Ed25519 signature and the replay through the engine. Reading and parsing
the file is not included; its time is printed apart, and so is the time of the
Ed25519 check alone (pure Python, ``fairplay/ed25519.py``).
"""

from __future__ import annotations

import argparse
import base64
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fairplay.signing import canonical, ed25519_valid, public_key_bytes
from fairplay.verify import verify
from tests.fairplay.helpers import random_match, signing_key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=30)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=20, help="runs over the first record")
    args = parser.parse_args()

    key = signing_key().public_key()
    envelopes = [random_match(n, seats=args.seats) for n in range(args.records)]
    actions = [len(e["record"]["log"]) - 1 for e in envelopes]
    texts = [json.dumps(e) for e in envelopes]

    # One finished match, verified again and again: the time a person waits.
    first = envelopes[0]
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        verify(first, key)
        times.append(time.perf_counter() - started)
    started = time.perf_counter()
    signed = canonical(first["record"])
    canonical_time = time.perf_counter() - started
    raw = public_key_bytes(key)
    value = base64.b64decode(first["signature"]["value"])
    checks = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        assert ed25519_valid(raw, value, signed)
        checks.append(time.perf_counter() - started)
    print(
        f"one {args.seats}-seat match ({actions[0]} actions, {len(texts[0]) // 1024} KiB): "
        f"verified in {statistics.median(times) * 1000:.1f} ms (median of {args.repeat}; "
        f"canonical JSON alone {canonical_time * 1000:.1f} ms)"
    )
    print(
        f"one Ed25519 signature check: {statistics.median(checks) * 1000:.2f} ms "
        f"(median of {args.repeat}, pure Python)"
    )

    started = time.perf_counter()
    parsed = [json.loads(text) for text in texts]
    parse_time = time.perf_counter() - started
    started = time.perf_counter()
    for envelope in parsed:
        verify(envelope, key)
    elapsed = time.perf_counter() - started
    print(
        f"{args.records} records of {args.seats} seats, {sum(actions)} actions: "
        f"verified in {elapsed:.2f} s: {args.records / elapsed:.1f} records/s, "
        f"{sum(actions) / elapsed:.0f} actions/s (parsing the JSON: {parse_time * 1000:.0f} ms)"
    )


if __name__ == "__main__":
    main()

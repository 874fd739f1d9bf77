"""The embedded broker (config/broker.py): whole messages, each delivered once, in order."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from queue import Empty

import pytest
from kombu import Connection

import config.celery  # noqa: F401  (puts our transport behind filesystem://)

ROOT = Path(__file__).resolve().parents[1]


def connection(folder: Path) -> Connection:
    for name in ("queue", "processed"):
        (folder / name).mkdir(exist_ok=True)
    return Connection(
        "filesystem://",
        transport_options={
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            "processed_folder": str(folder / "processed"),
            "control_folder": str(folder / "control"),
            "polling_interval": 0.001,
        },
    )


CONSUMER = """
import json, sys
from pathlib import Path
from queue import Empty
sys.path.insert(0, {root!r})
from tests.test_broker import connection
got = []
with connection(Path({folder!r})) as conn:
    queue = conn.SimpleQueue("work")
    while True:
        try:
            message = queue.get(block=True, timeout=3)
        except Empty:
            break
        got.append(message.payload)
        message.ack()
print(json.dumps(got))
"""


def test_the_filesystem_url_is_served_by_our_transport(tmp_path: Path) -> None:
    with connection(tmp_path) as conn:
        assert type(conn.transport).__module__ == "config.broker"


def test_messages_sent_while_two_consumer_processes_take_them_arrive_whole_and_once(
    tmp_path: Path,
) -> None:
    """Two workers and a producer, each a process of its own, as in ``make run``."""
    sent = [{"n": n, "padding": "x" * (n * 37 % 5000)} for n in range(400)]
    producer = connection(tmp_path)
    queue = producer.SimpleQueue("work")  # declared first, as the worker does at its start
    code = CONSUMER.format(root=str(ROOT), folder=str(tmp_path))
    consumers = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    with producer:
        for payload in sent:
            queue.put(payload)
    received = [json.loads(consumer.communicate(timeout=120)[0]) for consumer in consumers]

    everything = received[0] + received[1]
    assert sorted(p["n"] for p in everything) == list(range(400))  # none lost, none twice
    assert all(p == sent[p["n"]] for p in everything)  # none cut short
    # Nothing is left behind: no half-written or claimed files.
    assert list((tmp_path / "queue").iterdir()) == []


def test_one_consumer_takes_a_queue_in_the_order_it_was_written(tmp_path: Path) -> None:
    with connection(tmp_path) as conn:
        queue = conn.SimpleQueue("ordered")
        for n in range(50):
            queue.put({"n": n})
        got = []
        for _ in range(50):
            message = queue.get(timeout=5)
            got.append(message.payload["n"])
            message.ack()
    assert got == list(range(50))


def test_a_partly_written_message_is_invisible_to_consumers(tmp_path: Path) -> None:
    with connection(tmp_path) as conn:
        queue = conn.SimpleQueue("partial")
        (tmp_path / "queue" / ".1_x.partial.msg.part").write_bytes(b'{"body": ')
        with pytest.raises(Empty):
            queue.get(timeout=0.3)
